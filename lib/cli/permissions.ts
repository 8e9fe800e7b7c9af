/**
 * The Deno permission flags keynobi runs with from source. One list: the deno.json tasks, `keynobi
 * setup`, the dev script, the e2e tests and the bench all use it (a test checks deno.json).
 *
 * - read/write: the data directory, the project, the SDK and JDK (probed), temp files
 * - net: the ADB server (local or a device lab) and the emulator's gRPC port
 * - env: KEYNOBI_HOME, ADB_*, ANDROID_*, JAVA_HOME, HOME
 * - run: adb start-server, java -version, android --version, the project's gradlew (trusted only)
 * - sys: host facts used for paths and process records
 * - --unstable-worker-options: workers start with narrowed permissions
 */
export const RUN_FLAGS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
  "--unstable-worker-options",
] as const;

/** True when running as a `deno compile` binary rather than `deno run main.ts`. */
export function isCompiled(execPath = Deno.execPath()): boolean {
  const base = execPath.split(/[\\/]/).pop() ?? "";
  return !/^deno(\.exe)?$/i.test(base);
}

/**
 * The argv that starts this program the way it is running now: the compiled binary, or deno with
 * the flags and main.ts. A deno that npx fetched lives in npx's cache, which npm may clear, so the
 * registration then asks npx for the same Deno version instead of naming that path.
 */
export function selfCommandFor(execPath: string, mainPath: string, denoVersion: string): string[] {
  if (isCompiled(execPath)) return [execPath];
  const deno = /[\\/]_npx[\\/]/.test(execPath) ? ["npx", "-y", `deno@${denoVersion}`] : [execPath];
  return [...deno, "run", ...RUN_FLAGS, mainPath];
}
