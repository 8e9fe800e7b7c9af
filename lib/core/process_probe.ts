/**
 * Whether a process that a record names (a standalone server's session record, the build lock's
 * holder, a running build) still runs: a crashed process leaves its record behind, and its PID may
 * later run something else. Linux: `/proc/<pid>` and the `/proc/<pid>/exe` link when Deno allows
 * reading `/proc`; otherwise and elsewhere `ps -p <pid> -o stat=,comm=`, with a timeout. A process
 * that cannot be inspected (another user's, no `ps`) counts as running.
 */
import { basename, join } from "./path.ts";
import { runCommand } from "./run_command.ts";

/** How long `ps` may take to describe one process. */
const PS_TIMEOUT_MS = 2_000;
/** Output read from `ps` and `readlink` (one line each). */
const MAX_PROBE_OUTPUT_BYTES = 64 * 1024;

/** What the OS says about a PID. `binary: null` means it runs but cannot be inspected. */
export type ProcessProbe =
  | { state: "gone" }
  | { state: "running"; binary: string | null; nameOnly?: boolean };

/** A process as a record remembers it: its PID and the binary that wrote the record. */
export interface RecordedProcess {
  pid: number;
  binary: string;
}

/** `/proc/<pid>/exe` of a replaced binary reads `<path> (deleted)`. */
function stripDeleted(path: string): string {
  return path.endsWith(" (deleted)") ? path.slice(0, -" (deleted)".length) : path;
}

/** Linux `ps -o comm=` shows at most 15 characters of the name. */
const COMM_MAX_CHARS = 15;

/**
 * Why a record is stale, or `null` to keep it. `knownPaths` are the paths the record's binary is
 * known by (as recorded, and resolved through symlinks).
 */
export function staleReason(
  record: RecordedProcess,
  probe: ProcessProbe,
  knownPaths: readonly string[] = [record.binary],
): string | null {
  if (probe.state === "gone") return `process ${record.pid} is gone`;
  if (probe.binary === null) return null;
  const running = stripDeleted(probe.binary);
  if (probe.nameOnly) {
    const name = basename(running);
    const same = knownPaths.some((p) => {
      const expected = basename(p);
      return expected === name ||
        (name.length >= COMM_MAX_CHARS && expected.startsWith(name));
    });
    return same ? null : `process ${record.pid} now runs ${name}`;
  }
  return knownPaths.map(stripDeleted).includes(running)
    ? null
    : `process ${record.pid} now runs ${running}`;
}

/**
 * Inspects `pid`. Linux: `/proc/<pid>` and its `exe` link. Deno lets only `--allow-all` read
 * `/proc`, and we launch with explicit `--allow-*` lists, so usually this falls back to
 * `ps -p <pid> -o stat=,comm=` (needs run access to `ps`), then on Linux `readlink` of the `exe`
 * link in a child process for the full path (run access to `readlink`).
 */
export async function probeProcess(pid: number): Promise<ProcessProbe> {
  const linux = Deno.build.os === "linux";
  if (linux) {
    try {
      return await probeWithProc(pid);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotCapable)) throw e;
    }
  }
  const probe = await probeWithPs(pid);
  if (!linux || probe.state !== "running" || probe.binary === null) return probe;
  const exe = await runText("readlink", ["-n", `/proc/${pid}/exe`]);
  return exe?.success && exe.text !== "" ? { state: "running", binary: exe.text } : probe;
}

/** `/proc` (or a folder laid out like it). Throws `NotCapable` without `--allow-all`. */
export async function probeWithProc(pid: number, procRoot = "/proc"): Promise<ProcessProbe> {
  try {
    await Deno.stat(join(procRoot, String(pid)));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { state: "gone" };
    if (e instanceof Deno.errors.NotCapable) throw e;
    return { state: "running", binary: null };
  }
  try {
    return { state: "running", binary: await Deno.readLink(join(procRoot, String(pid), "exe")) };
  } catch (e) {
    // A zombie (exited, not yet reaped) still has `/proc/<pid>` but no `exe` link.
    if (e instanceof Deno.errors.NotFound) return { state: "gone" };
    if (e instanceof Deno.errors.NotCapable) throw e;
    return { state: "running", binary: null };
  }
}

/** Parses `ps -o stat=,comm=`: a zombie (`Z`) counts as gone. */
export function parsePsLine(output: string): ProcessProbe {
  const line = output.trim().split("\n")[0] ?? "";
  const m = /^(\S+)\s+(.+)$/.exec(line.trim());
  if (!m) return { state: "gone" };
  if (m[1].startsWith("Z")) return { state: "gone" };
  return { state: "running", binary: m[2].trim(), nameOnly: true };
}

/** `ps -p <pid> -o stat=,comm=` (POSIX). No `ps`, or one that hangs, keeps the record. */
export async function probeWithPs(pid: number, timeoutMs = PS_TIMEOUT_MS): Promise<ProcessProbe> {
  const out = await runText("ps", ["-p", String(pid), "-o", "stat=,comm="], timeoutMs);
  if (out === null) return { state: "running", binary: null };
  if (out.text.trim() === "") {
    return out.success ? { state: "running", binary: null } : { state: "gone" };
  }
  return parsePsLine(out.text);
}

/** Runs a small command with a timeout; `null` when it cannot run or times out. */
async function runText(
  command: string,
  args: string[],
  timeoutMs = PS_TIMEOUT_MS,
): Promise<{ success: boolean; text: string } | null> {
  const out = await runCommand(command, args, {
    timeoutMs,
    maxOutputBytes: MAX_PROBE_OUTPUT_BYTES,
  });
  // A command killed by the timeout says nothing about the process: keep the record.
  if (out.code === null) return null;
  return { success: out.code === 0, text: out.stdout };
}

/** The paths `binary` is known by: as recorded, and resolved through symlinks. */
export async function knownBinaryPaths(binary: string): Promise<string[]> {
  const known = [binary];
  const real = await Deno.realPath(binary).catch(() => null);
  if (real && real !== binary) known.push(real);
  return known;
}

/** Probes the recorded process: why it no longer runs what recorded it, or `null` while it does. */
export async function staleProcessReason(
  recorded: RecordedProcess,
  probe: (pid: number) => Promise<ProcessProbe> = probeProcess,
): Promise<string | null> {
  const result = await probe(recorded.pid);
  return staleReason(recorded, result, await knownBinaryPaths(recorded.binary));
}

/**
 * The start time field of a `/proc/<pid>/stat` line (field 22, clock ticks since boot), or null.
 * The command name (field 2) is in parentheses and may hold spaces and `)`: fields are counted
 * after its last `)`. Pure.
 */
export function parseProcStatStart(line: string): string | null {
  const close = line.lastIndexOf(")");
  if (close < 0) return null;
  const fields = line.slice(close + 1).trim().split(/\s+/);
  const start = fields[22 - 3];
  return start !== undefined && /^\d+$/.test(start) ? start : null;
}

/**
 * When `pid` started, as a string to compare for equality (a reused pid starts later): Linux
 * `proc:<ticks>` from `/proc/<pid>/stat` (read directly under `--allow-all`, else by a `cat`
 * child, as Deno reserves `/proc` for `--allow-all`); elsewhere `ps:<lstart>`. Null when the
 * process is gone or nothing can tell.
 */
export async function processStartTime(pid: number): Promise<string | null> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  if (Deno.build.os === "linux") {
    const path = `/proc/${pid}/stat`;
    let text: string | null = null;
    try {
      text = await Deno.readTextFile(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotCapable) {
        const out = await runText("cat", [path]);
        text = out?.success ? out.text : null;
      } else if (e instanceof Deno.errors.NotFound) return null;
    }
    const ticks = text === null ? null : parseProcStatStart(text);
    if (ticks !== null) return `proc:${ticks}`;
    // Not readable at all (no /proc, no cat): ps says it in seconds.
    if (text !== null) return null;
  }
  const out = await runText("ps", ["-p", String(pid), "-o", "lstart="]);
  const lstart = out?.success ? out.text.trim() : "";
  return lstart === "" ? null : `ps:${lstart}`;
}
