/**
 * `.sim-gradle.json`: what the fake Gradle knows about a sample project without evaluating its
 * build scripts (modules, flavors, build types, application ids) and where in the sources its
 * failure scenarios point (anchors). Simulator data, kept beside the project it describes; a
 * test checks it against the real build file so the two cannot drift.
 */

export const MANIFEST_FILE = ".sim-gradle.json";
/** A manifest larger than this is refused. */
export const MAX_MANIFEST_BYTES = 64 * 1024;
/** At most this many modules, flavors or build types are read. */
export const MAX_MODEL_ITEMS = 16;

export interface Flavor {
  name: string;
  dimension: string;
  application_id_suffix?: string;
  version_name_suffix?: string;
}

export interface BuildType {
  name: string;
  application_id_suffix?: string;
  minify?: boolean;
}

/** A place in a source file: the first line containing `find`; the column is where `name` starts. */
export interface Anchor {
  file: string;
  find: string;
  name?: string;
}

export interface TestAnchor {
  file: string;
  class: string;
  tests: string[];
  /** The test that fails in the `test_failure` scenario and the line its assertion is on. */
  failing: { test: string; find: string; message: string };
}

export interface ModuleModel {
  path: string;
  dir: string;
  kotlin: boolean;
  application_id: string;
  version_code: number;
  version_name: string;
  min_sdk: number;
  /** Fully qualified launcher activity written into the APK's manifest. */
  launcher_activity: string;
  flavors: Flavor[];
  build_types: BuildType[];
  dependencies: string[];
}

export interface Anchors {
  kotlin_error?: Anchor[];
  kotlin_warning?: Anchor & { message: string };
  java_error?: Anchor;
  aapt_error?: Anchor;
  lint_error?: Anchor & { message: string; id: string };
  unit_test?: TestAnchor;
  android_test?: TestAnchor;
}

export interface ProjectModel {
  root_project: string;
  modules: ModuleModel[];
  anchors: Anchors;
}

export interface Variant {
  /** `demoDebug`, or `debug` without flavors. */
  name: string;
  /** `DemoDebug`: the part of task names. */
  cap: string;
  flavor: string | null;
  buildType: BuildType;
  applicationId: string;
  versionName: string;
}

export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Every variant of a module: flavors × build types, in declaration order. */
export function variantsOf(m: ModuleModel): Variant[] {
  const out: Variant[] = [];
  const flavors: (Flavor | null)[] = m.flavors.length ? m.flavors : [null];
  for (const f of flavors) {
    for (const bt of m.build_types) {
      const name = f ? f.name + capitalize(bt.name) : bt.name;
      out.push({
        name,
        cap: capitalize(name),
        flavor: f?.name ?? null,
        buildType: bt,
        applicationId: m.application_id + (f?.application_id_suffix ?? "") +
          (bt.application_id_suffix ?? ""),
        versionName: m.version_name + (f?.version_name_suffix ?? ""),
      });
    }
  }
  return out;
}

function fail(detail: string): never {
  throw new TypeError(`Cannot read ${MANIFEST_FILE}: ${detail}: fix the simulator's project data`);
}

function str(o: Record<string, unknown>, k: string, where: string): string {
  const v = o[k];
  if (typeof v !== "string" || v === "") fail(`${where}.${k} is not a non-empty string`);
  return v;
}

function list<T>(v: unknown, where: string, each: (x: Record<string, unknown>) => T): T[] {
  if (!Array.isArray(v)) fail(`${where} is not an array`);
  if (v.length > MAX_MODEL_ITEMS) fail(`${where} has more than ${MAX_MODEL_ITEMS} items`);
  return v.map((x) => {
    if (typeof x !== "object" || x === null) fail(`${where} holds a non-object`);
    return each(x as Record<string, unknown>);
  });
}

/** Parses and checks a manifest. Pure. */
export function parseManifest(text: string): ProjectModel {
  if (text.length > MAX_MANIFEST_BYTES) fail(`larger than ${MAX_MANIFEST_BYTES} bytes`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    fail(`not JSON (${(e as Error).message})`);
  }
  if (typeof raw !== "object" || raw === null) fail("not an object");
  const o = raw as Record<string, unknown>;
  const modules = list(o.modules, "modules", (m) => {
    const version = m.version_code;
    if (!Number.isInteger(version)) fail("modules[].version_code is not an integer");
    const mod: ModuleModel = {
      path: str(m, "path", "modules[]"),
      dir: str(m, "dir", "modules[]"),
      kotlin: m.kotlin === true,
      application_id: str(m, "application_id", "modules[]"),
      version_code: version as number,
      version_name: str(m, "version_name", "modules[]"),
      min_sdk: Number.isInteger(m.min_sdk) ? m.min_sdk as number : 21,
      launcher_activity: typeof m.launcher_activity === "string"
        ? m.launcher_activity
        : `${m.application_id}.MainActivity`,
      flavors: list(m.flavors ?? [], "modules[].flavors", (f) => f as unknown as Flavor),
      build_types: list(m.build_types, "modules[].build_types", (b) => b as unknown as BuildType),
      dependencies: Array.isArray(m.dependencies) ? m.dependencies.map(String) : [],
    };
    if (!mod.path.startsWith(":")) fail(`module path ${mod.path} does not start with ':'`);
    if (mod.build_types.length === 0) fail(`module ${mod.path} has no build types`);
    return mod;
  });
  if (modules.length === 0) fail("no modules");
  return {
    root_project: str(o, "root_project", "manifest"),
    modules,
    anchors: (o.anchors ?? {}) as Anchors,
  };
}

/** 1-based line and column of an anchor in `text`, or null when `find` is not in it. Pure. */
export function locate(
  text: string,
  a: Anchor,
): { line: number; col: number; text: string } | null {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const at = lines[i].indexOf(a.find);
    if (at < 0) continue;
    const inner = a.name ? Math.max(0, a.find.indexOf(a.name)) : 0;
    return { line: i + 1, col: at + inner + 1, text: lines[i].replace(/\r$/, "") };
  }
  return null;
}
