/**
 * The environment for a keynobi child process in tests, the demo and the bench: the parent's
 * environment (so Deno finds its module cache, certificates and proxy settings), minus everything
 * that would make the child see the user's real devices, SDK, data or project, plus overrides.
 */

/** Variables a child must never inherit from whoever runs the tests. */
const CONTROLLED = /^(KEYNOBI_|ADB_|ANDROID_|INIT_CWD$|JAVA_HOME$|GRADLE_USER_HOME$)/;

let cachedDenoDir: string | undefined;

/** The module cache this Deno uses; children get it explicitly because their HOME differs. */
export async function denoDir(): Promise<string> {
  if (cachedDenoDir) return cachedDenoDir;
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return cachedDenoDir = fromEnv;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  cachedDenoDir = JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
  return cachedDenoDir;
}

export async function childEnv(
  overrides: Record<string, string>,
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(Deno.env.toObject())) {
    if (!CONTROLLED.test(k)) env[k] = v;
  }
  env.DENO_DIR = await denoDir();
  env.NO_COLOR = "1";
  return { ...env, ...overrides };
}
