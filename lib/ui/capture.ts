/**
 * Capturing the UI hierarchy over ADB: the two dump forms, retries within the deadlines, busy
 * errors, and the per-device lock.
 *
 * Forms (PROTOCOLS.md §7): `exec:uiautomator dump /dev/tty` prints the XML straight into the
 * stream on many devices (the fast form); where the output holds no `<hierarchy` (adbd opened no
 * tty), the dump goes to `/sdcard/window_dump.xml` and is read back with `exec:cat`. A device that
 * once needed the file form keeps using it (`DumpFormMemory`). The success line is spelled
 * "hierchary" (AOSP) or "hierarchy" (forks); errors come on stderr.
 *
 * Deadlines (spec): each attempt `ATTEMPT_DEADLINE_MS`, the whole capture
 * `CAPTURE_TOTAL_DEADLINE_MS` counting retries and the wait for the device. "already registered"
 * (another UI Automator client, e.g. a test run from an IDE) fails at once with `device_busy`.
 */
import {
  type AdbClient,
  type CallOptions,
  DEFAULT_SHELL_OUTPUT_BYTES,
  type DeviceShell,
} from "../adb/client.ts";
import { ToolError } from "../core/errors.ts";
import type { UiAutomatorLocks } from "./automator_lock.ts";
import { HierarchyParseError, MAX_HIERARCHY_XML_CHARS, parseHierarchy } from "./hierarchy.ts";
import type { UiTree } from "./hierarchy.ts";
import { statusBarNodes } from "./screen_parts.ts";
import { screenHash } from "./screen_hash.ts";
import { delay } from "../core/abortable.ts";
import { CAPTURE_TOTAL_DEADLINE_MS } from "./shared/limits.ts";
import type { DumpForm } from "./shared/result_types.ts";

/** Each dump attempt (spec). */
const ATTEMPT_DEADLINE_MS = 25_000;
/** Dump attempts per capture, at most. */
const MAX_CAPTURE_ATTEMPTS = 6;
/** Pauses before retries 1, 2, 3, …; the last one repeats. */
const RETRY_DELAYS_MS = [200, 500, 1_000, 2_000] as const;
/** Largest dump output read from the device (bytes). */
const MAX_DUMP_BYTES = Math.max(MAX_HIERARCHY_XML_CHARS, DEFAULT_SHELL_OUTPUT_BYTES);
/** Where the file form writes (the dumper's own default). */
export const DUMP_FILE = "/sdcard/window_dump.xml";

/** What the capture needs of the ADB client (AdbClient satisfies it; tests pass tests/fake_adb.ts). */
export type UiAdb = DeviceShell & Pick<AdbClient, "exec">;

/** Which form each device needs, learned from the first capture. */
export class DumpFormMemory {
  #forms = new Map<string, DumpForm>();
  get(serial: string): DumpForm {
    return this.#forms.get(serial) ?? "tty";
  }
  set(serial: string, form: DumpForm): void {
    if (this.#forms.size >= 256 && !this.#forms.has(serial)) this.#forms.clear();
    this.#forms.set(serial, form);
  }
}

type DumpOutcome =
  | { kind: "xml"; text: string }
  | { kind: "busy"; detail: string }
  | { kind: "error"; detail: string }
  | { kind: "dumped" }
  | { kind: "no_xml"; detail: string };

const SUCCESS_LINE = /UI hier(?:chary|archy) dumped to:/;
const BUSY = /already registered/i;
const DUMP_ERROR = /^(ERROR:.*|Killed.*|.*Exception.*)$/m;

/** What a dump command's output says. Pure. */
export function classifyDumpOutput(text: string): DumpOutcome {
  // The XML first: an app's own text may say "already registered".
  if (text.includes("<hierarchy")) return { kind: "xml", text };
  if (BUSY.test(text)) {
    return { kind: "busy", detail: firstLine(text.match(/.*already registered.*/i)?.[0] ?? text) };
  }
  const err = DUMP_ERROR.exec(text);
  if (err) return { kind: "error", detail: firstLine(err[0]) };
  if (SUCCESS_LINE.test(text)) return { kind: "dumped" };
  return {
    kind: "no_xml",
    detail: text.trim() === "" ? "no output" : firstLine(text.trim()),
  };
}

function firstLine(s: string): string {
  const line = s.split("\n")[0].trim();
  return line.length > 200 ? line.slice(0, 197) + "..." : line;
}

interface CaptureOptions {
  locks: UiAutomatorLocks;
  forms?: DumpFormMemory;
  /** The caller's cancellation. */
  signal?: AbortSignal;
  attemptMs?: number;
  totalMs?: number;
  /** Called while another keynobi process holds the device. */
  onBusy?: (pid: number) => void;
}

export interface Capture {
  serial: string;
  tree: UiTree;
  /** See screen_hash.ts. */
  hash: string;
  /** Ids of the status bar's nodes (left out of lists and hashes). */
  statusBar: Set<number>;
  form: DumpForm;
  attempts: number;
  /** Wall time of the capture, lock wait included. */
  captureMs: number;
  /** Epoch ms when the capture completed. */
  at: number;
  /** The dump as the device wrote it (from `<?xml`); empty once stored as a device's latest. */
  xml: string;
}

const decoder = new TextDecoder();

class RetryableDump extends Error {}

/** Dumps and parses the UI hierarchy of `serial`. */
export async function captureHierarchy(
  adb: UiAdb,
  serial: string,
  opts: CaptureOptions,
): Promise<Capture> {
  const started = performance.now();
  const totalMs = Math.min(opts.totalMs ?? CAPTURE_TOTAL_DEADLINE_MS, CAPTURE_TOTAL_DEADLINE_MS);
  const attemptMs = Math.min(opts.attemptMs ?? ATTEMPT_DEADLINE_MS, ATTEMPT_DEADLINE_MS);
  const forms = opts.forms ?? new DumpFormMemory();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(totalDeadlineError(serial, totalMs)), totalMs);
  const onCancel = () =>
    deadline.abort(new ToolError("cancelled", `Cancelled: UI capture on ${serial}`));
  if (opts.signal?.aborted) onCancel();
  else opts.signal?.addEventListener("abort", onCancel, { once: true });
  const signal = deadline.signal;
  try {
    return await opts.locks.run(
      serial,
      { signal, onBusy: (h) => opts.onBusy?.(h.pid) },
      async () => {
        let lastDetail = "";
        for (let attempt = 1; attempt <= MAX_CAPTURE_ATTEMPTS; attempt++) {
          if (signal.aborted) throw signal.reason;
          const remaining = totalMs - (performance.now() - started);
          const call: CallOptions = {
            signal,
            timeoutMs: Math.max(1, Math.min(attemptMs, remaining)),
            maxOutputBytes: MAX_DUMP_BYTES,
          };
          try {
            const { text, form } = await dumpOnce(adb, serial, forms, call);
            const tree = parseHierarchy(text);
            const statusBar = statusBarNodes(tree);
            return {
              serial,
              tree,
              hash: screenHash(tree, statusBar),
              statusBar,
              form,
              attempts: attempt,
              captureMs: Math.round(performance.now() - started),
              at: Date.now(),
              xml: text.slice(Math.max(0, text.indexOf("<?xml"))),
            };
          } catch (e) {
            if (signal.aborted) throw signal.reason;
            if (e instanceof ToolError && e.code === "timeout") lastDetail = e.message;
            else if (e instanceof RetryableDump || e instanceof HierarchyParseError) {
              lastDetail = e.message;
            } else throw e;
          }
          if (attempt < MAX_CAPTURE_ATTEMPTS) {
            const wait = RETRY_DELAYS_MS[Math.min(attempt - 1, RETRY_DELAYS_MS.length - 1)];
            await delay(wait, signal);
          }
        }
        throw new ToolError(
          "adb_error",
          `UI Automator could not dump the screen of ${serial} in ${MAX_CAPTURE_ATTEMPTS} ` +
            `attempts: ${lastDetail}; check that the screen is on and unlocked, then retry`,
          { serial, attempts: MAX_CAPTURE_ATTEMPTS },
        );
      },
    );
  } catch (e) {
    // A busy device at the deadline says who holds it; other aborts say why they happened.
    if (e instanceof ToolError && e.code === "device_busy") throw e;
    if (signal.aborted && signal.reason instanceof ToolError) throw signal.reason;
    throw e;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onCancel);
  }
}

function totalDeadlineError(serial: string, totalMs: number): ToolError {
  return new ToolError(
    "timeout",
    `UI hierarchy capture on ${serial} hit its total deadline of ${totalMs} ms ` +
      "(CAPTURE_TOTAL_DEADLINE, retries and the wait for the device included): check that the " +
      "device responds (list_devices) and that no other tool holds UI Automator, then retry",
    { serial, timeout_ms: totalMs },
  );
}

function busy(serial: string, detail: string): ToolError {
  return new ToolError(
    "device_busy",
    `Device ${serial} is busy: another UI Automator client is registered (${detail}), for ` +
      "example a test run or an inspector from an IDE; stop it, then retry",
    { serial, detail },
  );
}

async function dumpOnce(
  adb: UiAdb,
  serial: string,
  forms: DumpFormMemory,
  call: CallOptions,
): Promise<{ text: string; form: DumpForm }> {
  if (forms.get(serial) === "tty") {
    const out = classifyDumpOutput(
      decoder.decode(await adb.exec(serial, ["uiautomator", "dump", "/dev/tty"], call)),
    );
    if (out.kind === "xml") return { text: out.text, form: "tty" };
    if (out.kind === "busy") throw busy(serial, out.detail);
    if (out.kind === "error") throw new RetryableDump(out.detail);
    // Only the success line, or nothing: this device gives no tty to exec; use the file.
    forms.set(serial, "file");
  }
  const r = await adb.shell(serial, ["uiautomator", "dump", DUMP_FILE], call);
  const said = classifyDumpOutput(decoder.decode(r.stdout) + "\n" + decoder.decode(r.stderr));
  if (said.kind === "busy") throw busy(serial, said.detail);
  if (said.kind === "error") throw new RetryableDump(said.detail);
  if (said.kind === "no_xml") {
    throw new RetryableDump(`uiautomator dump did not report a dump: ${said.detail}`);
  }
  if (said.kind === "xml") return { text: decoder.decode(r.stdout), form: "file" };
  const text = decoder.decode(await adb.exec(serial, ["cat", DUMP_FILE], call));
  const read = classifyDumpOutput(text);
  if (read.kind !== "xml") {
    throw new RetryableDump(`${DUMP_FILE} held no hierarchy: ${firstLine(text) || "empty"}`);
  }
  return { text, form: "file" };
}
