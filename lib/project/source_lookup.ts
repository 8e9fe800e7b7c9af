/**
 * The project file of a class a diagnostic names (`com.x.ui.HomeViewModel(useCase)` from a Dagger
 * chain): `<module>/src/<source set>/{java,kotlin}/<package path>/<Class>.{kt,java}`. Modules are
 * looked for below the project root, a few levels deep, skipping build output and hidden folders;
 * both the number of folders read and the depth are bounded.
 */
import { join, relative } from "../core/path.ts";
import { isDirectory, isFile } from "../core/file_kind.ts";

/** Folders below the root a module (a folder with `src/`) may be in. */
const MAX_MODULE_DEPTH = 3;
/** Folders read while looking for modules and source sets, at most. */
const MAX_LOOKUP_DIRS = 500;

const SKIP = new Set(["build", "node_modules", "gradle", "buildSrc", "out"]);

/** `com.x.Outer.Inner.method(arg)` → the classes it may name, longest first (`Outer.Inner`, `Outer`). */
export function classCandidates(symbol: string): { pkg: string[]; cls: string }[] {
  const name = symbol.replace(/\(.*$/, "").trim();
  const parts = name.split(".").filter((p) => p !== "");
  const out: { pkg: string[]; cls: string }[] = [];
  // The file is named after the outermost class: the first part starting with a capital.
  const first = parts.findIndex((p) => /^[A-Z]/.test(p));
  if (first <= 0) return out;
  out.push({ pkg: parts.slice(0, first), cls: parts[first] });
  return out;
}

/** The modules (folders with `src/`) under `root`, breadth first, bounded. */
async function modules(root: string): Promise<string[]> {
  const out: string[] = [];
  let level = [root];
  let read = 0;
  for (let depth = 0; depth <= MAX_MODULE_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (read++ >= MAX_LOOKUP_DIRS) return out;
      if (await isDirectory(join(dir, "src"))) out.push(dir);
      try {
        for await (const e of Deno.readDir(dir)) {
          if (!e.isDirectory || e.name.startsWith(".") || SKIP.has(e.name) || e.name === "src") {
            continue;
          }
          next.push(join(dir, e.name));
        }
      } catch {
        // Unreadable: skipped.
      }
    }
    level = next;
  }
  return out;
}

/** The class's source file relative to `root`, or null when the project has none. */
export async function findClassSource(root: string, symbol: string): Promise<string | null> {
  const candidates = classCandidates(symbol);
  if (candidates.length === 0) return null;
  let read = 0;
  for (const m of await modules(root)) {
    let sets: string[] = [];
    try {
      for await (const e of Deno.readDir(join(m, "src"))) if (e.isDirectory) sets.push(e.name);
    } catch {
      continue;
    }
    sets = sets.sort((a, b) => (a === "main" ? -1 : b === "main" ? 1 : a.localeCompare(b)));
    for (const set of sets) {
      if (read++ >= MAX_LOOKUP_DIRS) return null;
      for (const lang of ["kotlin", "java"]) {
        for (const c of candidates) {
          for (const ext of ["kt", "java"]) {
            const file = join(m, "src", set, lang, ...c.pkg, `${c.cls}.${ext}`);
            if (await isFile(file)) return relative(root, file);
          }
        }
      }
    }
  }
  return null;
}
