/**
 * The Android model of one module, read from its build file without running Gradle: namespace,
 * application id, SDK levels, versions, build types, flavor dimensions and product flavors.
 * Kotlin DSL and Groovy alike.
 *
 * Parsing is textual and never guesses: a value is reported when it is a literal, a top-level
 * `val`/`def` of a literal in the same file, a string template or `+` concatenation of those, or a
 * Gradle property read from `gradle.properties` (`project.property("X")`,
 * `providers.gradleProperty("X")`, `findProperty`, Groovy bare names). Anything computed is `null`
 * and its field is named in `unresolved`. Reading `gradle.properties` runs nothing, so it is read
 * for trusted and untrusted projects alike.
 *
 * The script's structure is read by gradle_script_scan.ts, its values by gradle_script_values.ts;
 * this file knows the Android DSL's names.
 */
import { join } from "../core/path.ts";
import { invalidParams, ToolError } from "../core/errors.ts";
import { readProjectFile } from "../core/project_paths.ts";
import {
  MAX_BUILD_FILE_BYTES,
  moduleDir,
  normalizeProjectPath,
  parseSettings,
  stripComments,
} from "./build_files.ts";
import { MAX_PROPERTIES_BYTES, parseProperties } from "../core/properties.ts";
import {
  blocksNamed,
  containerElements,
  maskStrings,
  type Scope,
  statements,
} from "./gradle_script_scan.ts";
import {
  collectVals,
  type Context,
  type FieldValue,
  lastBool,
  lastInt,
  lastString,
  listStrings,
  type ValueSource,
} from "./gradle_script_values.ts";

/** Text beyond this many characters of a build file is not parsed. */
const MAX_MODEL_SOURCE_CHARS = MAX_BUILD_FILE_BYTES;
/** At most this many build types are kept (the AGP defaults debug and release count). */
const MAX_BUILD_TYPES = 64;
/** At most this many product flavors are kept. */
export const MAX_PRODUCT_FLAVORS = 256;
/** At most this many flavor dimensions are kept. */
const MAX_FLAVOR_DIMENSIONS = 16;
/** A manifest read for its `package` attribute is read only up to this many bytes. */
const MAX_MANIFEST_BYTES = 256 * 1024;

const ApplicationIdSource = {
  literal: "literal",
  val: "val",
  property: "property",
  unresolved: "unresolved",
  /** No `applicationId` in the build file: AGP uses the namespace (or the manifest package). */
  none: "none",
} as const;
type ApplicationIdSource = typeof ApplicationIdSource[keyof typeof ApplicationIdSource];

interface BuildType {
  name: string;
  /** `null` when not set or not a literal (then `unresolved` names it); `""` when set empty. */
  application_id_suffix: string | null;
  minify_enabled?: boolean | null;
  /** Fields that are set to something this parser cannot evaluate. */
  unresolved: string[];
}

export interface ProductFlavor {
  name: string;
  dimension: string | null;
  application_id: string | null;
  application_id_suffix: string | null;
  unresolved: string[];
}

export interface AndroidModel {
  /** Gradle path of the module (`:app`, `:` for the root project). */
  module: string;
  namespace: string | null;
  application_id: string | null;
  application_id_source: ApplicationIdSource;
  min_sdk: number | null;
  target_sdk: number | null;
  compile_sdk: number | null;
  version_code: number | null;
  version_name: string | null;
  build_types: BuildType[];
  flavor_dimensions: string[];
  product_flavors: ProductFlavor[];
  /** `package` of `src/main/AndroidManifest.xml` (old projects without namespace); else null. */
  manifest_package: string | null;
  /** Top-level fields set to something this parser cannot evaluate (`version_name`, …). */
  unresolved: string[];
}

interface ParseOptions {
  module?: string;
  /** Gradle properties (root `gradle.properties`, then the module's). */
  properties?: Map<string, string>;
  /** Groovy resolves bare names as project properties; Kotlin does not. Default `kotlin`. */
  dialect?: "kotlin" | "groovy";
  manifestPackage?: string | null;
}

function flavorDimensions(scopes: Scope[], ctx: Context, unresolved: Set<string>): string[] {
  let dims: string[] = [];
  for (const s of scopes) {
    for (const st of statements(s, "flavorDimensions")) {
      const values = listStrings(st.value, ctx);
      if (values === null) {
        unresolved.add("flavor_dimensions");
        continue;
      }
      if (st.op === "=" || (st.op === "call" && !st.method) || st.op === "command") dims = values;
      else dims = dims.concat(values); // `+=`, `.add(…)`, `.addAll(…)`
    }
  }
  return [...new Set(dims)].slice(0, MAX_FLAVOR_DIMENSIONS);
}

const APPLICATION_ID = "applicationId";
const SUFFIX = "applicationIdSuffix";

function suffixOf(scopes: Scope[], ctx: Context, unresolved: string[]): string | null {
  const f = lastString(scopes, SUFFIX, ctx);
  if (f.set && f.value === null) unresolved.push("application_id_suffix");
  return f.value;
}

/** The top-level `android { }` blocks (and `configure<ApplicationExtension> { }`). */
function androidScopes(file: Scope): Scope[] {
  return blocksNamed(
    file,
    /^(?:android|(?:extensions\s*\.\s*)?configure\s*<\s*[\w.]*(?:Application|AppModule|Base)\w*Extension\s*>)$/,
  );
}

/** Parse a module build file (Kotlin DSL or Groovy) into its Android model. Pure. */
export function parseAndroidModel(text: string, options: ParseOptions = {}): AndroidModel {
  const src = stripComments(text.slice(0, MAX_MODEL_SOURCE_CHARS));
  const file: Scope = { src, mask: maskStrings(src), start: 0, end: src.length };
  const ctx: Context = {
    vals: new Map(),
    properties: options.properties ?? new Map(),
    dialect: options.dialect ?? "kotlin",
  };
  collectVals(file, ctx);
  const unresolved = new Set<string>();
  const androids = androidScopes(file);
  const defaults = readDefaultConfig(androids, ctx, unresolved);
  const buildTypes = readBuildTypes(androids, ctx);
  const dimensions = flavorDimensions(androids, ctx, unresolved);
  return {
    module: normalizeProjectPath(options.module ?? ":app"),
    ...defaults,
    build_types: buildTypes,
    flavor_dimensions: dimensions,
    product_flavors: readProductFlavors(androids, ctx, dimensions),
    manifest_package: options.manifestPackage ?? null,
    unresolved: [...unresolved],
  };
}

type DefaultConfig = Pick<
  AndroidModel,
  | "namespace"
  | "application_id"
  | "application_id_source"
  | "min_sdk"
  | "target_sdk"
  | "compile_sdk"
  | "version_code"
  | "version_name"
>;

/**
 * The module-wide fields, from `android { }` and its `defaultConfig { }` (either may set them,
 * also as `defaultConfig.x = …`); a field set to something computed is added to `unresolved`.
 */
function readDefaultConfig(
  androids: Scope[],
  ctx: Context,
  unresolved: Set<string>,
): DefaultConfig {
  const defaults = androids.flatMap((a) => blocksNamed(a, /^defaultConfig$/));
  const configScopes = [...androids, ...defaults];
  const note = <T>(f: FieldValue<T>, field: string): T | null => {
    if (f.set && f.value === null) unresolved.add(field);
    return f.value;
  };
  // `namespace` belongs to `android {}`; Tusky also sets it inside defaultConfig.
  const nsAndroid = lastString(androids, "namespace", ctx);
  const namespace = note(
    nsAndroid.set ? nsAndroid : lastString(defaults, "namespace", ctx),
    "namespace",
  );
  const appId = lastString(
    configScopes,
    `${APPLICATION_ID}|defaultConfig\\.${APPLICATION_ID}`,
    ctx,
  );
  let applicationIdSource: ApplicationIdSource = ApplicationIdSource.none;
  if (appId.set) {
    applicationIdSource = appId.value === null ? "unresolved" : appId.source as ValueSource;
    if (appId.value === null) unresolved.add("application_id");
  }
  // In this order, which is the order of `unresolved`.
  const compileSdk = readCompileSdk(androids, ctx, unresolved);
  const at = (names: string) => `${names}|defaultConfig\\.(?:${names})`;
  const minSdk = note(lastInt(configScopes, at("minSdk|minSdkVersion"), ctx), "min_sdk");
  const targetSdk = note(
    lastInt(configScopes, at("targetSdk|targetSdkVersion"), ctx),
    "target_sdk",
  );
  const versionCode = note(lastInt(configScopes, at("versionCode"), ctx), "version_code");
  const versionName = note(lastString(configScopes, at("versionName"), ctx), "version_name");
  return {
    namespace,
    application_id: appId.value,
    application_id_source: applicationIdSource,
    min_sdk: minSdk,
    target_sdk: targetSdk,
    compile_sdk: compileSdk,
    version_code: versionCode,
    version_name: versionName,
  };
}

/** `compileSdk = 34`, `compileSdkVersion 34`, or AGP 8.13+'s `compileSdk { version = release(36) }`. */
function readCompileSdk(androids: Scope[], ctx: Context, unresolved: Set<string>): number | null {
  const f = lastInt(androids, "compileSdk|compileSdkVersion", ctx);
  let compileSdk = f.value;
  if (f.set && f.value === null) unresolved.add("compile_sdk");
  for (const block of androids.flatMap((a) => blocksNamed(a, /^compileSdk$/))) {
    const m = /release\s*\(\s*(\d{1,4})\s*\)/.exec(block.src.slice(block.start, block.end));
    compileSdk = m ? Number(m[1]) : null;
    if (!m) unresolved.add("compile_sdk");
    else unresolved.delete("compile_sdk");
  }
  return compileSdk;
}

/** The build types: AGP's debug and release, then those `buildTypes { }` declares or configures. */
function readBuildTypes(androids: Scope[], ctx: Context): BuildType[] {
  const buildTypes: BuildType[] = [
    { name: "debug", application_id_suffix: null, unresolved: [] },
    { name: "release", application_id_suffix: null, unresolved: [] },
  ];
  for (
    const el of androids.flatMap((a) => blocksNamed(a, /^buildTypes$/)).flatMap(containerElements)
  ) {
    let bt = buildTypes.find((b) => b.name === el.name);
    if (!bt) {
      if (buildTypes.length >= MAX_BUILD_TYPES) continue;
      bt = { name: el.name, application_id_suffix: null, unresolved: [] };
      buildTypes.push(bt);
    }
    const unres: string[] = [];
    const suffix = suffixOf(el.scopes, ctx, unres);
    if (suffix !== null || unres.length > 0) bt.application_id_suffix = suffix;
    const minify = lastBool(el.scopes, "minifyEnabled|isMinifyEnabled");
    if (minify.set) {
      bt.minify_enabled = minify.value;
      if (minify.value === null) unres.push("minify_enabled");
    }
    bt.unresolved = [...new Set([...bt.unresolved, ...unres])];
  }
  return buildTypes;
}

/** The product flavors `productFlavors { }` declares, merged by name, at most MAX_PRODUCT_FLAVORS. */
function readProductFlavors(
  androids: Scope[],
  ctx: Context,
  dimensions: string[],
): ProductFlavor[] {
  const flavors: ProductFlavor[] = [];
  for (
    const el of androids.flatMap((a) => blocksNamed(a, /^productFlavors$/)).flatMap(
      containerElements,
    )
  ) {
    let fl = flavors.find((f) => f.name === el.name);
    if (!fl) {
      if (flavors.length >= MAX_PRODUCT_FLAVORS) continue;
      fl = {
        name: el.name,
        dimension: null,
        application_id: null,
        application_id_suffix: null,
        unresolved: [],
      };
      flavors.push(fl);
    }
    const unres: string[] = [];
    const dim = lastString(el.scopes, "dimension", ctx);
    if (dim.set) {
      fl.dimension = dim.value;
      if (dim.value === null) unres.push("dimension");
    }
    const id = lastString(el.scopes, APPLICATION_ID, ctx);
    if (id.set) {
      fl.application_id = id.value;
      if (id.value === null) unres.push("application_id");
    }
    const suffix = suffixOf(el.scopes, ctx, unres);
    if (suffix !== null || unres.includes("application_id_suffix")) {
      fl.application_id_suffix = suffix;
    }
    fl.unresolved = [...new Set([...fl.unresolved, ...unres])];
  }
  // With a single dimension AGP assigns it to every flavor that names none.
  if (dimensions.length === 1) {
    for (const f of flavors) {
      if (f.dimension === null && !f.unresolved.includes("dimension")) f.dimension = dimensions[0];
    }
  }
  return flavors;
}

/** The `package` attribute of a manifest's `<manifest>` element, or null. Pure. */
export function parseManifestPackage(xml: string): string | null {
  const m = /<manifest\b[^>]*?\bpackage\s*=\s*["']([A-Za-z][\w.]*)["']/s.exec(xml);
  return m ? m[1] : null;
}

// ---------------------------------------------------------------------------------------------
// I/O: every file goes through readProjectFile (inside the project, bounded).

async function readOptional(root: string, rel: string, max: number): Promise<string | null> {
  try {
    return (await readProjectFile(root, rel, max)).text;
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}

export interface ModuleModel extends AndroidModel {
  /** Folder relative to the root ("" for the root project). */
  dir: string;
  /** The build file read, relative to the root. */
  build_file: string;
}

/** Gradle properties: the root `gradle.properties`, then the module's own (which wins). */
async function readGradleProperties(
  root: string,
  dir = "",
): Promise<Map<string, string>> {
  const props = new Map<string, string>();
  const files = dir === ""
    ? ["gradle.properties"]
    : ["gradle.properties", `${dir}/gradle.properties`];
  for (const rel of files) {
    const text = await readOptional(root, rel, MAX_PROPERTIES_BYTES);
    if (text !== null) { for (const [k, v] of parseProperties(text)) props.set(k, v); }
  }
  return props;
}

/** The folder of a module path (`:app` → `app`, `:` → ""), honouring custom folders. */
async function moduleFolder(root: string, modulePath: string): Promise<string> {
  const path = normalizeProjectPath(modulePath);
  if (path === ":") return "";
  const settingsText = await readOptional(root, "settings.gradle.kts", MAX_BUILD_FILE_BYTES) ??
    await readOptional(root, "settings.gradle", MAX_BUILD_FILE_BYTES);
  const settings = settingsText === null ? null : parseSettings(settingsText);
  if (settings !== null && settings.modules.length > 0 && !settings.modules.includes(path)) {
    throw invalidParams(
      `Unknown module ${path}: the project's modules are ${settings.modules.join(", ")}; ` +
        "pass one of them",
    );
  }
  return moduleDir(path, settings?.projectDirs ?? {});
}

/** Read and parse the build file of `modulePath` (`:app`, `:` for the root project). */
export async function readAndroidModel(root: string, modulePath: string): Promise<ModuleModel> {
  const module = normalizeProjectPath(modulePath);
  const dir = await moduleFolder(root, module);
  const prefix = dir === "" ? "" : `${dir}/`;
  let buildFile: string | null = null;
  let text: string | null = null;
  for (const name of ["build.gradle.kts", "build.gradle"]) {
    text = await readOptional(root, `${prefix}${name}`, MAX_BUILD_FILE_BYTES);
    if (text !== null) {
      buildFile = `${prefix}${name}`;
      break;
    }
  }
  if (buildFile === null || text === null) {
    throw new ToolError(
      "not_found",
      `Cannot read the build file of module ${module}: no build.gradle.kts or build.gradle ` +
        `inside the project at ${join(root, dir)}; pass a module that has one`,
      { module },
    );
  }
  const properties = await readGradleProperties(root, dir);
  const manifest = await readOptional(
    root,
    `${prefix}src/main/AndroidManifest.xml`,
    MAX_MANIFEST_BYTES,
  );
  const model = parseAndroidModel(text, {
    module,
    properties,
    dialect: buildFile.endsWith(".kts") ? "kotlin" : "groovy",
    manifestPackage: manifest === null ? null : parseManifestPackage(manifest),
  });
  return { ...model, dir, build_file: buildFile };
}
