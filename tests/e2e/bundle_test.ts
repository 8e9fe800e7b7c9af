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

/** The bundle's files main.js loads before it runs: its static imports, transitively. */
async function startupFiles(bundleDir: string): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const todo = ["main.js"];
  while (todo.length > 0) {
    const name = todo.pop()!;
    if (seen.has(name)) continue;
    const text = await Deno.readTextFile(`${bundleDir}/${name}`);
    seen.set(name, text);
    // `import … from "./x.js"` and `import "./x.js"`, never `import("./x.js")`.
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;(]*?["']\.\/([^"']+)["']/g)) {
      todo.push(m[1]);
    }
  }
  return seen;
}

Deno.test("a checkout's bundle serves main.ts's bytes, and a stale one starts from source", async () => {
  const dir = await copyCheckout();
  const home = await Deno.makeTempDir({ prefix: "keynobi-bundle-e2e-home-" });
  try {
    const env = await childEnv({ HOME: home, KEYNOBI_HOME: `${home}/keynobi` });
    assertEquals(await buildBundle(dir, Deno.execPath()), null);
    const bundle = `${dir}/${BUNDLE_DIR}/main.js`;
    // Node compatibility (node:module's createRequire, which CommonJS packages bring) costs
    // ~40 ms of start-up: none of what main.js loads before it runs may import it.
    const startup = await startupFiles(`${dir}/${BUNDLE_DIR}`);
    assert(startup.size > 3, [...startup.keys()].join(" "));
    for (const [name, text] of startup) {
      assert(!/["']node:module["']/.test(text), `${name} imports node:module at start-up`);
    }
    // The flow parser's chunk, loaded as the bundle loads it, still parses (its `yaml` is
    // left out of the bundle and resolved through the checkout's deno.json).
    const flowChunk = [...Deno.readDirSync(`${dir}/${BUNDLE_DIR}`)]
      .map((e) => e.name).find((n) => n.startsWith("flow_parse-"));
    assert(flowChunk !== undefined, "no flow_parse chunk");
    const probe = `${dir}/${BUNDLE_DIR}/probe.js`;
    await Deno.writeTextFile(
      probe,
      `const { parseFlow } = await import("./${flowChunk}");\n` +
        `const f = await parseFlow("appId: a.b\\n---\\n- launchApp\\n", { source: "f.yaml" });\n` +
        `console.log(JSON.stringify(f.appId));\n`,
    );
    const parsed = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...RUN_FLAGS, probe],
      env,
      cwd: home,
      clearEnv: true,
    }).output();
    const td = new TextDecoder();
    assertEquals(td.decode(parsed.stdout).trim(), '"a.b"', td.decode(parsed.stderr));
    await Deno.remove(probe);
    const fromSource = await serve(`${dir}/main.ts`, env, home);
    assertEquals(fromSource.lines.length, 2, fromSource.stderr);
    const current = await serve(bundle, env, home);
    assert(!current.stderr.includes("starting from source"), current.stderr);
    assertEquals(current.lines, fromSource.lines);
    // The bundle's modules sit in one folder: its `keynobi retrace` still finds the retrace worker.
    await Deno.writeTextFile(
      `${home}/mapping.txt`,
      "a.b.Repo -> q.a:\n    1:4:void load():20:23 -> a\n",
    );
    await Deno.writeTextFile(`${home}/trace.txt`, "java.lang.Error: x\n\tat q.a.a(SourceFile:3)\n");
    const retraced = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...RUN_FLAGS, bundle, "retrace", "--mapping", "mapping.txt", "trace.txt"],
      env,
      cwd: home,
      clearEnv: true,
    }).output();
    assertEquals(
      [retraced.code, td.decode(retraced.stdout)],
      [0, "java.lang.Error: x\n    at a.b.Repo.load(Repo.java:22)\n"],
      td.decode(retraced.stderr),
    );
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
