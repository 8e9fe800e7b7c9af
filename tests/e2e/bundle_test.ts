/**
 * The bundle of a checkout, end to end, in a copy of this checkout: built by `buildBundle`, it
 * serves initialize and tools/list with the bytes main.ts serves; once a source changes (an edit
 * after the build), it says so on stderr and starts from source, which serves the same.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { buildBundle, BUNDLE_DIR } from "../../lib/cli/bundle.ts";
import { RUN_FLAGS } from "../../lib/cli/permissions.ts";
import { childEnv } from "../child_env.ts";
import { handshakeLines } from "./harness.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
/** What a checkout needs to run. */
const PARTS = ["main.ts", "deno.json", "deno.lock", "lib", "workers", "skills", "proto"];

async function copyCheckout(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-bundle-e2e-" });
  const cp = await new Deno.Command("cp", {
    args: ["-R", ...PARTS.map((p) => `${ROOT}/${p}`), dir],
  }).output();
  assert(cp.success, new TextDecoder().decode(cp.stderr));
  return dir;
}

/** The handshake's answers from `entry` run as the registered command runs it. */
const serve = (entry: string, env: Record<string, string>, cwd: string) =>
  handshakeLines(["run", ...RUN_FLAGS, entry, "--mcp"], env, cwd);

Deno.test("a checkout's bundle serves main.ts's bytes, and a stale one starts from source", async () => {
  const dir = await copyCheckout();
  const home = await Deno.makeTempDir({ prefix: "keynobi-bundle-e2e-home-" });
  try {
    const env = await childEnv({ HOME: home, KEYNOBI_HOME: `${home}/keynobi` });
    assertEquals(await buildBundle(dir, Deno.execPath()), null);
    const bundle = `${dir}/${BUNDLE_DIR}/main.js`;
    const fromSource = await serve(`${dir}/main.ts`, env, home);
    assertEquals(fromSource.lines.length, 2, fromSource.stderr);
    const current = await serve(bundle, env, home);
    assert(!current.stderr.includes("starting from source"), current.stderr);
    assertEquals(current.lines, fromSource.lines);
    // An edit after the build: the bundle no longer matches its sources.
    const version = `${dir}/lib/version.ts`;
    await Deno.writeTextFile(version, (await Deno.readTextFile(version)) + "\n");
    const stale = await serve(bundle, env, home);
    assertStringIncludes(stale.stderr, "dist/bundle was built from older sources");
    assertEquals(stale.lines, fromSource.lines);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
