/**
 * Exported ⇒ imported: every name a file of lib/ or workers/ exports is imported by some other
 * file (of lib/, workers/, main.ts, scripts/ or tests/). An export nobody imports is either dead
 * code or a name used only in its own file, which then should not be exported: either way the
 * file's surface says more than it is. Beside tests/layers_test.ts, which checks where imports
 * point; this checks that what is offered is taken.
 *
 * The reading is lexical, over deno-fmt-formatted sources: `import`/`export … from` lists (type
 * ones too), default and namespace imports, and dynamic `import()` whose names are destructured or
 * read off the awaited module. A module imported whole (a namespace or a dynamic import kept in a
 * variable) counts as using every name it exports.
 */
import { assert, assertEquals } from "./assert.ts";

const ROOT = new URL("../", import.meta.url);

/** The names a source exports itself (not re-exports, which are its imports too). */
export function exportedNames(src: string): string[] {
  const out = new Set<string>();
  const decl =
    /^export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
  for (const m of src.matchAll(decl)) out.add(m[1]);
  for (const m of src.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*(from\s*"[^"]*")?\s*;/gm)) {
    if (m[2]) continue; // a re-export: its names count as exported by the file they come from
    for (const n of names(m[1])) out.add(n.exported);
  }
  if (/^export\s+default\s/m.test(src)) out.add("default");
  return [...out];
}

/** `a, type B, c as d` → local (as written first) and exported (after `as`) names. */
function names(list: string): { imported: string; exported: string }[] {
  return list.split(",").map((s) => s.replace(/\/\/.*$/gm, "").trim()).filter(Boolean).map((s) => {
    const parts = s.replace(/^type\s+/, "").split(/\s+as\s+/);
    return { imported: parts[0].trim(), exported: (parts[1] ?? parts[0]).trim() };
  });
}

/** What one source takes from others: specifier → the names it imports (`*` for all). */
export function importedNames(src: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (spec: string, name: string) => {
    if (!out.has(spec)) out.set(spec, new Set());
    out.get(spec)!.add(name);
  };
  const lists =
    /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:([A-Za-z_$][\w$]*)\s*,\s*)?\{([^}]*)\}\s*from\s*"([^"]+)"/g;
  for (const m of src.matchAll(lists)) {
    if (m[1]) add(m[3], "default");
    for (const n of names(m[2])) add(m[3], n.imported);
  }
  for (
    const m of src.matchAll(
      /(?:^|\n)\s*import\s+(?:type\s+)?([A-Za-z_$][\w$]*)\s+from\s*"([^"]+)"/g,
    )
  ) {
    add(m[2], "default");
  }
  for (
    const m of src.matchAll(
      /(?:import|export)\s+(?:type\s+)?\*\s+(?:as\s+\w+\s+)?from\s*"([^"]+)"/g,
    )
  ) {
    add(m[1], "*");
  }
  const dynamic = /import\(\s*"([^"]+)"\s*\)/g;
  for (const m of src.matchAll(dynamic)) {
    const before = src.slice(Math.max(0, m.index! - 400), m.index!);
    const after = src.slice(m.index! + m[0].length, m.index! + m[0].length + 3);
    const destructured = before.match(/\{([^{}]*)\}\s*=\s*await\s*$/);
    const member = /^\)\./.test(after) && /\(\s*await\s*$/.test(before);
    if (destructured) {
      for (const n of names(destructured[1].replace(/:\s*[\w$]+/g, ""))) add(m[1], n.imported);
    } else if (member) {
      const name = src.slice(m.index! + m[0].length + 2).match(/^([A-Za-z_$][\w$]*)/);
      add(m[1], name ? name[1] : "*");
    } else add(m[1], "*");
  }
  return out;
}

async function tsFiles(dir: string, out: string[]): Promise<void> {
  for await (const e of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${e.name}`;
    if (e.isDirectory && e.name !== "fixtures") await tsFiles(`${path}/`, out);
    else if (e.isFile && e.name.endsWith(".ts")) out.push(path);
  }
}

/** Repository path an import specifier of `from` names, or `null` for a package. */
function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const url = new URL(spec, new URL(from, ROOT));
  return decodeURIComponent(url.href.slice(ROOT.href.length));
}

/** `file: name` for every export of lib/ and workers/ that no other file imports. */
export async function unimportedExports(): Promise<string[]> {
  const files: string[] = ["main.ts"];
  for (const d of ["lib/", "workers/", "scripts/", "tests/"]) await tsFiles(d, files);
  const taken = new Map<string, Set<string>>();
  for (const f of files) {
    for (const [spec, ns] of importedNames(await Deno.readTextFile(new URL(f, ROOT)))) {
      const to = resolve(f, spec);
      if (to === null || to === f) continue;
      if (!taken.has(to)) taken.set(to, new Set());
      for (const n of ns) taken.get(to)!.add(n);
    }
  }
  const out: string[] = [];
  for (const f of files.filter((f) => f.startsWith("lib/") || f.startsWith("workers/"))) {
    const used = taken.get(f) ?? new Set();
    if (used.has("*")) continue;
    for (const name of exportedNames(await Deno.readTextFile(new URL(f, ROOT)))) {
      if (!used.has(name)) out.push(`${f}: ${name}`);
    }
  }
  return out.sort();
}

Deno.test("exports: declarations, lists and defaults are read; re-exports are not the file's own", () => {
  const src = [
    "export function a() {}",
    "export async function b() {}",
    "export const c = 1;",
    "export interface D {}",
    "export type E = string;",
    "export class F {}",
    "const g = 1, h = 2;",
    "export { g, h as i };",
    'export { j } from "./j.ts";',
    "export default 3;",
  ].join("\n");
  assertEquals(exportedNames(src).sort(), ["D", "E", "F", "a", "b", "c", "default", "g", "i"]);
});

Deno.test("imports: lists, types, defaults, namespaces and dynamic imports are read", () => {
  const src = [
    'import { a, type B, c as d } from "./x.ts";',
    "import {",
    "  e,",
    "  f,",
    '} from "./y.ts";',
    'import type { G } from "./z.ts";',
    'import h from "./h.ts";',
    'import * as ns from "./ns.ts";',
    'export { k } from "./k.ts";',
    'const { m, n: o } = await import("./m.ts");',
    'const p = (await import("./p.ts")).run();',
    'const whole = await import("./w.ts");',
  ].join("\n");
  const got = Object.fromEntries(
    [...importedNames(src)].map(([k, v]) => [k, [...v].sort()]),
  );
  assertEquals(got, {
    "./x.ts": ["B", "a", "c"],
    "./y.ts": ["e", "f"],
    "./z.ts": ["G"],
    "./h.ts": ["default"],
    "./ns.ts": ["*"],
    "./k.ts": ["k"],
    "./m.ts": ["m", "n"],
    "./p.ts": ["run"],
    "./w.ts": ["*"],
  });
});

Deno.test("every export of lib/ and workers/ is imported by another file", async () => {
  const unused = await unimportedExports();
  assert(unused.length < 100_000, "the sources were read");
  assertEquals(unused, [], `\n${unused.join("\n")}\n`);
});
