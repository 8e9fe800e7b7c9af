/**
 * Finding the `adb` executable and running `adb start-server` when nothing listens on a local
 * address. The lookup is a pure decision over an `Env` and an `isExecutable` probe; the spawn
 * (through lib/core/run_command.ts) is the only process lib/adb starts.
 */
import { delimiter, join } from "../core/path.ts";
import type { Env } from "../core/env.ts";
import { runCommand } from "../core/run_command.ts";

/** How long `adb start-server` may take (it waits for the daemon to come up). */
export const START_SERVER_TIMEOUT_MS = 20_000;
/** Output of `adb start-server` kept for the error message. */
const MAX_START_SERVER_OUTPUT_CHARS = 2_000;
/** Bytes of its stdout and of its stderr read. */
const MAX_START_SERVER_OUTPUT_BYTES = 8 * 1024;

/** `$ANDROID_HOME`/`$ANDROID_SDK_ROOT` `platform-tools/adb`, else `adb` on `$PATH`; else null. */
export function findAdbExecutable(
  env: Env,
  isExecutable: (path: string) => boolean = isExecutableFile,
  os: string = Deno.build.os,
): string | null {
  const exe = os === "windows" ? "adb.exe" : "adb";
  for (const name of ["ANDROID_HOME", "ANDROID_SDK_ROOT"]) {
    const root = env.get(name);
    if (root) {
      const candidate = join(root, "platform-tools", exe);
      if (isExecutable(candidate)) return candidate;
    }
  }
  const path = env.get("PATH") ?? "";
  for (const dir of path.split(os === "windows" ? ";" : delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, exe);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutableFile(path: string): boolean {
  try {
    const st = Deno.statSync(path);
    if (!st.isFile) return false;
    return Deno.build.os === "windows" || st.mode === null || (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

interface StartServerResult {
  ok: boolean;
  /** Exit code, or null when it was killed for the timeout. */
  code: number | null;
  output: string;
  timedOut: boolean;
}

/**
 * Runs `<adb> -P <port> start-server` with a deadline (lib/core/run_command.ts); never throws
 * for a failing adb, only when it cannot be run at all.
 */
export async function runStartServer(
  adbPath: string,
  port: number,
  timeoutMs: number,
): Promise<StartServerResult> {
  const r = await runCommand(adbPath, ["-P", String(port), "start-server"], {
    timeoutMs,
    maxOutputBytes: MAX_START_SERVER_OUTPUT_BYTES,
  });
  if (r.code === null && !r.timedOut) throw new Error(r.error ?? "it could not be started");
  const output = (r.stdout + r.stderr).trim().slice(0, MAX_START_SERVER_OUTPUT_CHARS);
  return { ok: r.code === 0, code: r.code, output, timedOut: r.timedOut };
}
