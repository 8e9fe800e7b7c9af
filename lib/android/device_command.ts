/**
 * One device command read as text: stdout, then stderr on a line of its own (without shell_v2
 * the device merges them already). The android/ services read command output through here.
 */
import type { CallOptions, DeviceShell } from "../adb/client.ts";

interface RunOutput {
  /** stdout then stderr. */
  text: string;
  code: number | null;
}

const decoder = new TextDecoder();

/** Runs argv and returns stdout + stderr as text, and the exit status. */
export async function runText(
  adb: DeviceShell,
  serial: string,
  argv: readonly string[],
  opts: CallOptions,
): Promise<RunOutput> {
  const r = await adb.shell(serial, argv, opts);
  const err = decoder.decode(r.stderr);
  const out = r.text();
  return {
    text: err === "" ? out : `${out}${out.endsWith("\n") || out === "" ? "" : "\n"}${err}`,
    code: r.exitCode,
  };
}
