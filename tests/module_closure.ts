/**
 * A module's value-import closure, for tests that check what the main thread loads: static, bare
 * and dynamic imports count; `import type` and `export type` (erased) do not. Workers are started
 * by URL, not imported, so their code is not followed.
 */

/**
 * Value import specifiers of a module's source (no `import type`, no `export type`); with
 * `dynamic: false`, only what loads with the module itself (no `import()`).
 */
export function valueImports(src: string, opts: { dynamic?: boolean } = {}): string[] {
  const out: string[] = [];
  const noComments = src.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const stat = /^\s*(import|export)\s+(?!type\b)([^;]*?)\s+from\s+"([^"]+)"/gm;
  for (const m of noComments.matchAll(stat)) out.push(m[3]);
  const bare = /^\s*import\s+"([^"]+)"/gm;
  for (const m of noComments.matchAll(bare)) out.push(m[1]);
  if (opts.dynamic === false) return out;
  const dyn = /\bimport\(\s*"([^"]+)"\s*\)/g;
  for (const m of noComments.matchAll(dyn)) out.push(m[1]);
  return out;
}

export async function closure(
  entry: URL,
  opts: { dynamic?: boolean } = {},
): Promise<Set<string>> {
  const seen = new Set<string>();
  const queue = [entry.href];
  while (queue.length) {
    const href = queue.pop()!;
    if (seen.has(href)) continue;
    seen.add(href);
    if (!href.startsWith("file:")) continue;
    const src = await Deno.readTextFile(new URL(href));
    for (const spec of valueImports(src, opts)) {
      if (spec.startsWith(".")) queue.push(new URL(spec, href).href);
      else seen.add(spec);
    }
  }
  return seen;
}
