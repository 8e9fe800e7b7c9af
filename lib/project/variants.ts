/**
 * Build variants as Gradle names them, and the active variant the user (or an agent) chose.
 *
 * A variant is one product flavor per dimension (in dimension order) and a build type, named in
 * camel case: `demoFreeDebug`. Gradle keeps build types and flavors in named containers, which
 * iterate by name, so variants are listed in that order (flavors by name within a dimension, then
 * build types by name), as the Build Variants list in Android Studio does.
 *
 * The active variant lives in `settings.json` under `active_variants[<canonical root>][<module>]`
 * and is changed through `updateSettings` (one lock across processes). When none is stored, or
 * the stored one no longer exists, the first debug variant is active.
 */
import { invalidParams } from "../core/errors.ts";
import { isRecord } from "../core/json.ts";
import { canonicalPathOrResolved } from "../core/project_paths.ts";
import { readSettings, updateSettings } from "../core/settings.ts";
import type { AndroidModel, ProductFlavor } from "./android_model.ts";

/** At most this many variants are listed (the product of flavors and build types can explode). */
export const MAX_VARIANTS = 1_000;
/** At most this many projects keep an active variant; the oldest entries are dropped. */
export const MAX_ACTIVE_VARIANT_PROJECTS = 200;
/** At most this many modules per project keep an active variant. */
const MAX_ACTIVE_VARIANT_MODULES = 100;
/** A refusal lists at most this many valid variants. */
const MAX_VARIANTS_IN_MESSAGE = 30;

export interface Variant {
  name: string;
  build_type: string;
  /** One flavor per dimension, in dimension order. */
  flavors: string[];
  /** `null` when a part of it is not known from the build file. */
  application_id: string | null;
  assemble_task: string;
  install_task: string;
  test_task: string;
  connected_test_task: string;
}

const capitalize = (s: string) => s === "" ? s : s[0].toUpperCase() + s.slice(1);

/** `["demo", "free"]`, `"debug"` → `demoFreeDebug`. Pure. */
export function variantName(flavors: string[], buildType: string): string {
  const parts = [...flavors, buildType];
  return parts[0] + parts.slice(1).map(capitalize).join("");
}

/** `:app` + `assemble` + `demoDebug` → `:app:assembleDemoDebug`; the root project is `:`. */
export function taskPath(module: string, verb: string, variant: string, tail = ""): string {
  const prefix = module === ":" || module === "" ? ":" : `${module}:`;
  return `${prefix}${verb}${capitalize(variant)}${tail}`;
}

/** AGP joins a suffix with a dot when it does not start with one; empty adds nothing. */
function suffixPart(suffix: string): string {
  return suffix === "" || suffix.startsWith(".") ? suffix : `.${suffix}`;
}

/** The default application id: `applicationId`, else the namespace, else the manifest package. */
function defaultApplicationId(model: AndroidModel): string | null {
  if (model.application_id_source !== "none") return model.application_id;
  if (model.namespace !== null) return model.namespace;
  if (model.unresolved.includes("namespace")) return null;
  return model.manifest_package;
}

/**
 * The variant's application id: the first flavor (in dimension order) that overrides
 * `applicationId`, else the default; then the flavors' suffixes in dimension order and the build
 * type's. `null` when any part is computed. Pure.
 */
function variantApplicationId(
  model: AndroidModel,
  flavors: ProductFlavor[],
  buildType: string,
): string | null {
  let base: string | null | undefined;
  for (const f of flavors) {
    if (f.unresolved.includes("application_id")) return null;
    if (f.application_id !== null) {
      base = f.application_id;
      break;
    }
  }
  if (base === undefined) base = defaultApplicationId(model);
  if (base === null) return null;
  let id = base;
  for (const f of flavors) {
    if (f.unresolved.includes("application_id_suffix")) return null;
    if (f.application_id_suffix !== null) id += suffixPart(f.application_id_suffix);
  }
  const bt = model.build_types.find((b) => b.name === buildType);
  if (bt) {
    if (bt.unresolved.includes("application_id_suffix")) return null;
    if (bt.application_id_suffix !== null) id += suffixPart(bt.application_id_suffix);
  }
  return id;
}

/** Flavors grouped by dimension, in dimension order; each group sorted by name. */
function flavorGroups(model: AndroidModel): ProductFlavor[][] {
  const dims = [...model.flavor_dimensions];
  // Flavors naming an undeclared dimension (or none while several exist) still form a group,
  // so nothing the build file declares is silently dropped.
  for (const f of model.product_flavors) {
    const d = f.dimension ?? "";
    if (!dims.includes(d)) dims.push(d);
  }
  const byName = (a: ProductFlavor, b: ProductFlavor) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  return dims
    .map((d) => model.product_flavors.filter((f) => (f.dimension ?? "") === d).sort(byName))
    .filter((g) => g.length > 0);
}

/** Every variant of the module, at most `MAX_VARIANTS`. Pure. */
export function listVariants(model: AndroidModel): Variant[] {
  const groups = flavorGroups(model);
  let combos: ProductFlavor[][] = [[]];
  for (const group of groups) {
    const next: ProductFlavor[][] = [];
    for (const combo of combos) {
      for (const f of group) {
        if (next.length >= MAX_VARIANTS) break;
        next.push([...combo, f]);
      }
    }
    combos = next;
  }
  const buildTypes = [...model.build_types].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0
  );
  const out: Variant[] = [];
  for (const combo of combos) {
    for (const bt of buildTypes) {
      if (out.length >= MAX_VARIANTS) return out;
      const flavors = combo.map((f) => f.name);
      const name = variantName(flavors, bt.name);
      out.push({
        name,
        build_type: bt.name,
        flavors,
        application_id: variantApplicationId(model, combo, bt.name),
        assemble_task: taskPath(model.module, "assemble", name),
        install_task: taskPath(model.module, "install", name),
        test_task: taskPath(model.module, "test", name, "UnitTest"),
        connected_test_task: taskPath(model.module, "connected", name, "AndroidTest"),
      });
    }
  }
  return out;
}

/** The first debug variant, else the first. Pure. */
export function defaultVariant(variants: Variant[]): Variant | null {
  return variants.find((v) => v.build_type === "debug") ?? variants[0] ?? null;
}

function listForMessage(variants: Variant[]): string {
  const names = variants.slice(0, MAX_VARIANTS_IN_MESSAGE).map((v) => v.name);
  const more = variants.length - names.length;
  return names.join(", ") + (more > 0 ? ` and ${more} more` : "");
}

/** The variant named exactly `name`; else `invalid_params` listing the valid ones. Pure. */
export function validateVariant(model: AndroidModel, name: string): Variant {
  const variants = listVariants(model);
  const found = variants.find((v) => v.name === name);
  if (found) return found;
  const near = variants.find((v) => v.name.toLowerCase() === name.toLowerCase());
  const hint = near ? ` (did you mean ${near.name}?)` : "";
  if (variants.length === 0) {
    throw invalidParams(`Unknown variant ${JSON.stringify(name)}: module ${model.module} has none`);
  }
  throw invalidParams(
    `Unknown variant ${JSON.stringify(name)} for module ${model.module}${hint}: ` +
      `pass one of ${listForMessage(variants)}`,
    { variants: variants.slice(0, MAX_VARIANTS_IN_MESSAGE).map((v) => v.name) },
  );
}

/** The key a project's active variants are stored under: its canonical path. */
export { canonicalPathOrResolved as canonicalRoot };

/** The stored variant name for a module, or null. Pure. */
export function storedVariant(
  activeVariants: Record<string, unknown> | undefined,
  root: string,
  module: string,
): string | null {
  const project = activeVariants?.[root];
  if (!isRecord(project)) return null;
  const v = project[module];
  return typeof v === "string" ? v : null;
}

interface ActiveVariant {
  variant: Variant | null;
  /** `settings` when the stored choice applies, else `default`. */
  source: "settings" | "default";
  /** A stored name that no longer exists in the build file. */
  stale_variant?: string;
}

/** The active variant of `model.module` in the project at `root`. */
export async function getActiveVariant(
  dataDir: string,
  root: string,
  model: AndroidModel,
): Promise<ActiveVariant> {
  const settings = await readSettings(dataDir);
  const key = await canonicalPathOrResolved(root);
  const stored = storedVariant(settings.active_variants, key, model.module);
  const variants = listVariants(model);
  const found = stored === null ? undefined : variants.find((v) => v.name === stored);
  if (found) return { variant: found, source: "settings" };
  const out: ActiveVariant = { variant: defaultVariant(variants), source: "default" };
  if (stored !== null) out.stale_variant = stored;
  return out;
}

/** Put `name` as the module's variant into an `active_variants` object (bounded). Pure. */
export function withActiveVariant(
  activeVariants: Record<string, unknown> | undefined,
  root: string,
  module: string,
  name: string,
): Record<string, unknown> {
  const all: Record<string, unknown> = isRecord(activeVariants) ? { ...activeVariants } : {};
  const project: Record<string, unknown> = isRecord(all[root]) ? { ...all[root] } : {};
  delete project[module];
  project[module] = name;
  const modules = Object.keys(project);
  for (const m of modules.slice(0, Math.max(0, modules.length - MAX_ACTIVE_VARIANT_MODULES))) {
    delete project[m];
  }
  // Re-insert so the most recently changed project is last; the oldest go first.
  delete all[root];
  all[root] = project;
  const roots = Object.keys(all);
  for (const r of roots.slice(0, Math.max(0, roots.length - MAX_ACTIVE_VARIANT_PROJECTS))) {
    delete all[r];
  }
  return all;
}

/** Make `name` the active variant of `model.module`; refuses an unknown one. */
export async function setActiveVariant(
  dataDir: string,
  root: string,
  model: AndroidModel,
  name: string,
): Promise<Variant> {
  const variant = validateVariant(model, name);
  const key = await canonicalPathOrResolved(root);
  await updateSettings(dataDir, (s) => {
    s.active_variants = withActiveVariant(s.active_variants, key, model.module, variant.name);
  });
  return variant;
}
