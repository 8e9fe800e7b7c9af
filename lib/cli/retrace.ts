/**
 * `keynobi retrace --mapping FILE [TRACE_FILE]`: deobfuscates a stack trace the user already has
 * (Play Console, a bug report) with a mapping they name, in the retrace worker the crash tools use
 * (lib/retrace/shared/retrace_client.ts → workers/retrace.ts): the same safe open of the mapping
 * (no symlink, regular file, at most 512 MB), the same memory budget, the same text; its client
 * alone asks for a `file` mapping, and grants the worker read of just that file. The trace comes
 * from the file, or from stdin when none is named (or `-`), at most `MAX_TRACE_CHARS`. Prints
 * the retraced trace on stdout and one summary line on stderr.
 */
import { ToolError } from "../core/errors.ts";
import { resolve } from "../core/path.ts";
import { openRegularNoFollow, readHead } from "../core/safe_open.ts";
import { RetraceClient } from "../retrace/shared/retrace_client.ts";
import { MAX_TRACE_CHARS } from "../retrace/shared/retrace_protocol.ts";

/** Bytes of a trace read at most (UTF-8: at least as many as its characters). */
const MAX_TRACE_BYTES = 4 * MAX_TRACE_CHARS;

interface RetraceIo {
  cwd: string;
  stdin: ReadableStream<Uint8Array>;
  /** Writes `text` to stdout exactly. */
  write(text: string): Promise<void>;
  stderr(line: string): void;
}

async function readStdin(stdin: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    size += chunk.length;
    if (size > MAX_TRACE_BYTES) {
      throw new ToolError(
        "invalid_params",
        `The trace on stdin is more than ${MAX_TRACE_BYTES} bytes`,
      );
    }
    parts.push(chunk);
  }
  const out = new Uint8Array(size);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

async function readTraceFile(path: string): Promise<Uint8Array> {
  const file = await openRegularNoFollow(path).catch((e) => {
    throw new ToolError("invalid_params", `Cannot read the trace ${path}: ${(e as Error).message}`);
  });
  try {
    if (file.size > MAX_TRACE_BYTES) {
      throw new ToolError(
        "invalid_params",
        `The trace ${path} is ${file.size} bytes, more than ${MAX_TRACE_BYTES}`,
      );
    }
    return await readHead(file, file.size);
  } finally {
    await file.close();
  }
}

export async function retraceCommand(
  cmd: { mapping: string; trace: string | null },
  io: RetraceIo,
): Promise<number> {
  try {
    const bytes = cmd.trace === null
      ? await readStdin(io.stdin)
      : await readTraceFile(resolve(io.cwd, cmd.trace));
    const trace = new TextDecoder().decode(bytes);
    if (trace.length > MAX_TRACE_CHARS) {
      throw new ToolError(
        "invalid_params",
        `The trace has more than ${MAX_TRACE_CHARS} characters`,
      );
    }
    const client = new RetraceClient({ dataDir: io.cwd, anyFile: true });
    const r = await client.run({
      mapping: { kind: "file", path: resolve(io.cwd, cmd.mapping) },
      traces: [trace],
    }).finally(() => client.close());
    const out = r.outputs[0];
    await io.write(out.text.endsWith("\n") ? out.text : `${out.text}\n`);
    const s = out.stats;
    io.stderr(
      `keynobi retrace: ${s.retraced} of ${s.frames} frames retraced` +
        `${s.ambiguous ? ` (${s.ambiguous} ambiguous)` : ""}, ${s.exceptions} exception names, ` +
        `with ${cmd.mapping} (${r.mapping.classes} classes, map id ${r.mapping.map_id ?? "none"})`,
    );
    return 0;
  } catch (e) {
    if (e instanceof ToolError || e instanceof RangeError) {
      io.stderr(`keynobi retrace: ${e.message}`);
      return 1;
    }
    throw e;
  }
}
