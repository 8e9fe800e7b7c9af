/**
 * Real captures from public projects, read in place from `../shared/fixtures/real/<dir>/` beside
 * the repository (never copied into it). That folder is absent in some checkouts: tests that need
 * it pass `ignore: !fixtures.present`, and a note saying so is printed once per folder.
 */

const REAL_ROOT = new URL("../../shared/fixtures/real/", import.meta.url);

const noted = new Set<string>();

export interface RealFixtures {
  /** Whether the folder exists. */
  present: boolean;
  /** The URL of `name` (may contain `/`) inside the folder. */
  path(name: string): URL;
  text(name: string): string;
  bytes(name: string): Uint8Array;
  /** The names of the files directly in the folder, sorted; `[]` when it is absent. */
  names(): string[];
}

/** The real fixtures in `../shared/fixtures/real/<dir>/` (`dir` may contain `/`). */
export function realFixtures(dir: string): RealFixtures {
  const base = new URL(dir.endsWith("/") ? dir : `${dir}/`, REAL_ROOT);
  let present: boolean;
  try {
    present = Deno.statSync(base).isDirectory;
  } catch {
    present = false;
  }
  if (!present && !noted.has(base.href)) {
    noted.add(base.href);
    console.error(`skipping real fixtures: ../shared/fixtures/real/${dir} is absent`);
  }
  const path = (name: string) => new URL(name, base);
  return {
    present,
    path,
    text: (name) => Deno.readTextFileSync(path(name)),
    bytes: (name) => Deno.readFileSync(path(name)),
    names() {
      if (!present) return [];
      const out: string[] = [];
      for (const entry of Deno.readDirSync(base)) if (entry.isFile) out.push(entry.name);
      return out.sort();
    },
  };
}
