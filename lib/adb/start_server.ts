/**
 * Finding the `adb` executable and running `adb start-server` when nothing listens on a local
 * address. The lookup is a pure decision over an `Env` and an `isExecutable` probe; the spawn is
 * the only Deno process I/O in lib/adb.
 */
import { delimiter, join } from "node:path";
import type { Env } from "../core/env.ts";

/** How long `adb start-server` may take (it waits for the daemon to come up). */
export const START_SERVER_TIMEOUT_MS = 20_000;
/** Output of `adb start-server` kept for the error message. */
export const MAX_START_SERVER_OUTPUT_CHARS = 2_000;

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

export interface StartServerResult {
  ok: boolean;
  /** Exit code, or null when it was killed for the timeout or the abort. */
  code: number | null;
  output: string;
  timedOut: boolean;
}

/** Runs `<adb> -P <port> start-server` with a deadline; never throws for a failing adb. */
export async function runStartServer(
  adbPath: string,
  port: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<StartServerResult> {
  const child = new Deno.Command(adbPath, {
    args: ["-P", String(port), "start-server"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, timeoutMs);
  signal?.addEventListener("abort", kill, { once: true });
  try {
    const out = await child.output();
    const text = (new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr))
      .trim()
      .slice(0, MAX_START_SERVER_OUTPUT_CHARS);
    const killed = timedOut || signal?.aborted === true;
    return { ok: out.success && !killed, code: killed ? null : out.code, output: text, timedOut };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", kill);
  }
}
