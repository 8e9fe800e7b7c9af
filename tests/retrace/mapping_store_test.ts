import { assert, assertEquals } from "../assert.ts";
import {
  findBuiltMappings,
  hasMapping,
  keepMapping,
  mappingsToDrop,
  MAX_KEPT_MAPPINGS,
} from "../../lib/retrace/shared/mapping_store.ts";

Deno.test("mappingsToDrop() keeps the newest within the count and byte bounds", () => {
  const files = Array.from({ length: MAX_KEPT_MAPPINGS + 3 }, (_, k) => ({
    name: `m${k}`,
    bytes: 10,
    mtimeMs: k,
  }));
  assertEquals(mappingsToDrop(files).sort(), ["m0", "m1", "m2"]);
  const big = [
    { name: "new", bytes: 60, mtimeMs: 3 },
    { name: "mid", bytes: 50, mtimeMs: 2 },
    { name: "old", bytes: 30, mtimeMs: 1 },
  ];
  assertEquals(mappingsToDrop(big, 10, 100), ["mid"], "the newest that fit are kept");
});

Deno.test("keepMapping() stores one file per content, names the map id, and finds what a build wrote", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const project = `${dir}/p`;
    const out = `${project}/app/build/outputs/mapping/release`;
    await Deno.mkdir(out, { recursive: true });
    const text = "# pg_map_id: 1234abc\na.B -> a:\n";
    await Deno.writeTextFile(`${out}/mapping.txt`, text);
    const found = await findBuiltMappings(project, ["app"], Date.now() - 60_000);
    assertEquals(found.map((f) => [f.module, f.variant]), [[":app", "release"]]);
    assertEquals(
      await findBuiltMappings(project, ["app"], Date.now() + 60_000),
      [],
      "older than the build",
    );
    const a = (await keepMapping(dir, found[0]))!;
    const b = (await keepMapping(dir, found[0]))!;
    assertEquals([a.map_id, a.sha256, a.bytes], ["1234abc", b.sha256, text.length]);
    assert(await hasMapping(dir, a.sha256));
    assertEquals([...Deno.readDirSync(`${dir}/mappings`)].length, 1, "same content, one file");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("keepMapping() keeps nothing from a build/outputs/mapping symlinked out of the project, nor a hard link", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const project = `${dir}/p`;
    const outside = `${dir}/outside/release`;
    await Deno.mkdir(outside, { recursive: true });
    await Deno.writeTextFile(`${outside}/mapping.txt`, "# pg_map_id: feed\nsecret.Outside -> a:\n");
    await Deno.mkdir(`${project}/app/build/outputs`, { recursive: true });
    await Deno.symlink(`${dir}/outside`, `${project}/app/build/outputs/mapping`);
    const found = await findBuiltMappings(project, ["app"], Date.now() - 60_000);
    for (const f of found) assertEquals(await keepMapping(dir, f), null);
    await Deno.remove(`${project}/app/build/outputs/mapping`);
    await Deno.mkdir(`${project}/app/build/outputs/mapping/release`, { recursive: true });
    await Deno.link(
      `${outside}/mapping.txt`,
      `${project}/app/build/outputs/mapping/release/mapping.txt`,
    );
    const linked = await findBuiltMappings(project, ["app"], Date.now() - 60_000);
    assertEquals(linked.length, 1);
    assertEquals(await keepMapping(dir, linked[0]), null);
    const kept = await Array.fromAsync(Deno.readDir(`${dir}/mappings`)).catch(() => []);
    assertEquals(kept, [], "no outside file is kept in the data directory");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
