/** Resources through the real entry point: listing, Groovy projects, symlinks, size cap. */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { connect, startWorld } from "./harness.ts";
import { raceRounds, withSwapper } from "../core/_swap_race.ts";

async function readError(
  s: Awaited<ReturnType<typeof connect>>,
  uri: string,
): Promise<{ code?: number; message: string }> {
  try {
    await s.client.readResource({ uri });
  } catch (e) {
    return e as { code?: number; message: string };
  }
  throw new Error(`reading ${uri} did not fail`);
}

Deno.test("resources list and read the Kotlin DSL project's files", async () => {
  await using world = await startWorld();
  const project = world.sim.projects["sample-kts"];
  await using s = await connect(world, ["--project", project]);
  const { resources } = await s.client.listResources();
  const uris = resources.map((r: { uri: string }) => r.uri).sort();
  assertEquals(uris, [
    "android://app-build-gradle",
    "android://build-gradle",
    "android://gradle-settings",
    "android://health",
    "android://manifest",
    "android://project-info",
    "keynobi://skill",
  ]);
  const settings = await s.client.readResource({ uri: "android://gradle-settings" });
  assertEquals(
    (settings.contents[0] as { text: string }).text,
    await Deno.readTextFile(`${project}/settings.gradle.kts`),
  );
  const app = await s.client.readResource({ uri: "android://app-build-gradle" });
  assertEquals(
    (app.contents[0] as { text: string }).text,
    await Deno.readTextFile(`${project}/app/build.gradle.kts`),
  );
  const info = await s.client.readResource({ uri: "android://project-info" });
  const json = JSON.parse((info.contents[0] as { text: string }).text);
  assertEquals(json.project.root, await Deno.realPath(project));
  const skill = await s.client.readResource({ uri: "keynobi://skill" });
  const skillText = (skill.contents[0] as { text: string }).text;
  assertStringIncludes(skillText, "name: keynobi");
  // The spec's rule, on the skill as served: a bare snake_case name in backticks is a tool of
  // tools/list; a parameter is written `name: value`.
  const { tools } = await s.client.listTools();
  const names = new Set(tools.map((t: { name: string }) => t.name));
  for (const m of skillText.matchAll(/`([a-z]+(?:_[a-z]+)+)`/g)) {
    assert(names.has(m[1]), `the served skill puts ${m[1]} bare in backticks: not a tool`);
  }
});

Deno.test("resources serve a Groovy DSL project's files", async () => {
  await using world = await startWorld();
  const project = world.sim.projects["sample-groovy"];
  await using s = await connect(world, ["--project", project]);
  const settings = await s.client.readResource({ uri: "android://gradle-settings" });
  assertEquals(
    (settings.contents[0] as { text: string }).text,
    await Deno.readTextFile(`${project}/settings.gradle`),
  );
  const build = await s.client.readResource({ uri: "android://build-gradle" });
  assertEquals(
    (build.contents[0] as { text: string }).text,
    await Deno.readTextFile(`${project}/build.gradle`),
  );
  const app = await s.client.readResource({ uri: "android://app-build-gradle" });
  assertEquals(
    (app.contents[0] as { text: string }).text,
    await Deno.readTextFile(`${project}/app/build.gradle`),
  );
  const manifest = await s.client.readResource({ uri: "android://manifest" });
  assertStringIncludes((manifest.contents[0] as { text: string }).text, "<manifest");
});

Deno.test("a symlink out of the project is neither listed nor readable", async () => {
  await using world = await startWorld();
  const project = world.sim.projects["sample-kts"];
  const secret = `${world.home}/secret.xml`;
  await Deno.writeTextFile(secret, "<secret>token</secret>");
  const manifest = `${project}/app/src/main/AndroidManifest.xml`;
  await Deno.remove(manifest);
  await Deno.symlink(secret, manifest);
  await using s = await connect(world, ["--project", project]);
  const { resources } = await s.client.listResources();
  assert(!resources.some((r: { uri: string }) => r.uri === "android://manifest"), "not listed");
  const err = await readError(s, "android://manifest");
  assertEquals(err.code, -32600);
  assert(!err.message.includes("token"), "the secret never leaks");
  assertStringIncludes(err.message, "outside");
});

Deno.test("an oversized project file is cut at 512 KiB with a note", async () => {
  await using world = await startWorld();
  const project = world.sim.projects["sample-kts"];
  const path = `${project}/build.gradle.kts`;
  const line = "// padding padding padding padding padding padding padding padding\n";
  const big = line.repeat(Math.ceil((600 * 1024) / line.length));
  await Deno.writeTextFile(path, big);
  await using s = await connect(world, ["--project", project]);
  const r = await s.client.readResource({ uri: "android://build-gradle" });
  const text = (r.contents[0] as { text: string }).text;
  assertStringIncludes(
    text,
    `[truncated: the file is ${new TextEncoder().encode(big).length} bytes`,
  );
  assert(new TextEncoder().encode(text).length < 512 * 1024 + 200, "bounded");
});

Deno.test("unknown resource URIs are resource_not_found; no project means no project files", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const err = await readError(s, "android://secrets");
  assertEquals(err.code, -32002);
  const { resources } = await s.client.listResources();
  assertEquals(resources.map((r: { uri: string }) => r.uri).sort(), [
    "android://health",
    "android://project-info",
    "keynobi://skill",
  ]);
  const manifest = await readError(s, "android://manifest");
  assertEquals(manifest.code, -32002);
  assertStringIncludes(manifest.message, "no Android project is open");
});

Deno.test("resources/read android://manifest never returns an outside file while its folder is swapped (race loop)", async () => {
  await using world = await startWorld();
  const project = world.sim.projects["sample-kts"];
  const main = `${project}/app/src/main`;
  const outside = `${world.home}/outside-main`;
  await Deno.mkdir(outside, { recursive: true });
  await Deno.writeTextFile(`${outside}/AndroidManifest.xml`, "<manifest>OUTSIDE-SECRET</manifest>");
  await Deno.symlink(outside, `${main}.lnk`);
  await using s = await connect(world, ["--project", project]);
  const counts = { inside: 0, outside: 0, refused: 0 };
  // A fifth of the unit loops' rounds: each read here crosses the MCP wire.
  const rounds = Math.max(1, Math.floor(raceRounds() / 5));
  await withSwapper([
    [main, `${main}.real`],
    [`${main}.lnk`, main],
    [main, `${main}.lnk`],
    [`${main}.real`, main],
  ], async () => {
    for (let i = 0; i < rounds; i++) {
      try {
        const r = await s.client.readResource({ uri: "android://manifest" });
        const text = (r.contents[0] as { text: string }).text;
        if (text.includes("OUTSIDE-SECRET")) counts.outside++;
        else counts.inside++;
      } catch {
        counts.refused++;
      }
    }
  });
  assertEquals(counts.outside, 0, JSON.stringify(counts));
});
