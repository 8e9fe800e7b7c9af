/**
 * lib/core/path.ts's POSIX functions give `node:path`'s POSIX answers, on every path built from a
 * set of awkward pieces (empty, `.`, `..`, repeated and trailing slashes, dot names) and on a few
 * real ones.
 */
import { assertEquals } from "../assert.ts";
import nodePath from "node:path";
import { posixPath } from "../../lib/core/path.ts";

const node = nodePath.posix;
const PIECES = ["", ".", "..", "...", "a", "bc", ".d", "e.f", "/", "//", "./", "../", "a/", "/a"];

/** Every path of up to three pieces, plus some real ones. */
function paths(): string[] {
  const out = new Set<string>();
  for (const a of PIECES) {
    out.add(a);
    for (const b of PIECES) {
      out.add(a + b);
      out.add(`${a}/${b}`);
      for (const c of PIECES) out.add(`${a}/${b}${c}`);
    }
  }
  for (
    const p of [
      "/home/u/.keynobi/mcp-sessions/123.json",
      "/src/app/../app/./build.gradle.kts",
      "relative/dir/",
      "///",
      "/a/b/c/../../..",
      "../../x",
    ]
  ) out.add(p);
  return [...out];
}

Deno.test("isAbsolute, normalize, dirname and basename answer as node:path's POSIX ones", () => {
  for (const p of paths()) {
    assertEquals(posixPath.isAbsolute(p), node.isAbsolute(p), `isAbsolute(${p})`);
    assertEquals(posixPath.normalize(p), node.normalize(p), `normalize(${p})`);
    assertEquals(posixPath.dirname(p), node.dirname(p), `dirname(${p})`);
    assertEquals(posixPath.basename(p), node.basename(p), `basename(${p})`);
    for (const ext of [".json", "c", "a", "bc", ".d", p, `x${p}`]) {
      assertEquals(posixPath.basename(p, ext), node.basename(p, ext), `basename(${p}, ${ext})`);
    }
  }
});

Deno.test("join, resolve and relative answer as node:path's POSIX ones", () => {
  const ps = paths();
  const some = ps.filter((_, i) => i % 31 === 0);
  for (const a of ps) {
    assertEquals(posixPath.join(a), node.join(a), `join(${a})`);
    assertEquals(posixPath.resolve(a), node.resolve(a), `resolve(${a})`);
    for (const b of some) {
      assertEquals(posixPath.join(a, b), node.join(a, b), `join(${a}, ${b})`);
      assertEquals(posixPath.join(a, b, a), node.join(a, b, a), `join(${a}, ${b}, ${a})`);
      assertEquals(posixPath.resolve(a, b), node.resolve(a, b), `resolve(${a}, ${b})`);
      assertEquals(posixPath.relative(a, b), node.relative(a, b), `relative(${a}, ${b})`);
      assertEquals(posixPath.relative(b, a), node.relative(b, a), `relative(${b}, ${a})`);
    }
  }
  assertEquals(posixPath.join(), node.join());
  assertEquals(posixPath.resolve(), node.resolve());
  assertEquals([posixPath.sep, posixPath.delimiter], [node.sep, node.delimiter]);
});

Deno.test("lib/ and workers/ take their paths from lib/core/path.ts alone", async () => {
  const root = new URL("../../", import.meta.url).pathname;
  const importers: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(root + dir)) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(rel);
      else if (e.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(root + rel);
        if (/["']node:path(?:\/posix)?["']/.test(text)) importers.push(rel);
      }
    }
  };
  await walk("lib");
  await walk("workers");
  assertEquals(importers, ["lib/core/path.ts"]);
});
