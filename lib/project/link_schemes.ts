/**
 * The deep-link schemes a project's own apps handle: every `android:scheme` of a `<data>` element
 * inside an `<intent-filter>` of the application modules' manifests (each source set's
 * `src/<set>/AndroidManifest.xml`), read through the project-file checks. `open_deep_link` and a
 * run configuration's deep-link launch allow these and `http`/`https`, nothing else.
 */
import { ToolError } from "../core/errors.ts";
import { readProjectFile } from "../core/project_paths.ts";
import { readGradleProject } from "./build_files.ts";

/** A manifest is read up to this many bytes. */
const MAX_LINK_MANIFEST_BYTES = 1024 * 1024;
/** Source sets looked at per application module. */
const MAX_SOURCE_SETS = 64;
/** At most this many project schemes are kept. */
const MAX_PROJECT_SCHEMES = 64;

/** A scheme as RFC 3986 spells it (no placeholders like `${appAuthRedirectScheme}`). */
const SCHEME = /^[a-z][a-z0-9+.-]{0,63}$/;

/** The schemes declared in intent filters of one manifest's text. Pure. */
export function intentFilterSchemes(xml: string): string[] {
  const out: string[] = [];
  const filters = xml.replace(/<!--[\s\S]*?-->/g, "").matchAll(
    /<intent-filter\b[^>]*>([\s\S]*?)<\/intent-filter\s*>/g,
  );
  for (const f of filters) {
    for (const d of f[1].matchAll(/<data\b([^>]*)>/g)) {
      const m = /\bandroid:scheme\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(d[1]);
      const scheme = (m?.[1] ?? m?.[2] ?? "").trim().toLowerCase();
      if (SCHEME.test(scheme) && !out.includes(scheme)) out.push(scheme);
    }
  }
  return out;
}

async function sourceSets(root: string, moduleDir: string): Promise<string[]> {
  const src = `${moduleDir === "" ? "" : `${moduleDir}/`}src`;
  const sets: string[] = [];
  try {
    for await (const e of Deno.readDir(`${root}/${src}`)) {
      if (e.isDirectory && !e.isSymlink && sets.length < MAX_SOURCE_SETS) sets.push(e.name);
    }
  } catch {
    return [];
  }
  return sets.sort().map((s) => `${src}/${s}/AndroidManifest.xml`);
}

/** The schemes the project's application modules declare (see the module comment). */
export async function projectLinkSchemes(root: string): Promise<string[]> {
  const info = await readGradleProject(root);
  const out: string[] = [];
  for (const m of info.modules.filter((x) => x.application)) {
    for (const rel of await sourceSets(root, m.dir)) {
      let xml: string;
      try {
        xml = (await readProjectFile(root, rel, MAX_LINK_MANIFEST_BYTES)).text;
      } catch (e) {
        if (e instanceof ToolError) continue;
        throw e;
      }
      for (const s of intentFilterSchemes(xml)) {
        if (!out.includes(s) && out.length < MAX_PROJECT_SCHEMES) out.push(s);
      }
    }
  }
  return out;
}
