/**
 * Package scope (spec "Package Scope"): tools that stop an app, wipe its data or change its
 * permissions act only on the project's own packages unless the call passes
 * `allow_foreign_package: true`.
 *
 * The project's packages are each application module's `applicationId` (or namespace, or for old
 * projects the manifest package) and each product flavor's `applicationId` (the root build file's
 * when no application module is found), each followed by any combination of the parsed
 * `applicationIdSuffix` values (flavors' and build types', each used at most once, in that order),
 * plus the exact `applicationId` of every built variant (`output-metadata.json`), which covers
 * suffixes set outside the build file once that variant has been built.
 */
import { invalidParams, ToolError } from "../core/errors.ts";
import { readGradleProject } from "./build_files.ts";
import { type AndroidModel, type ModuleModel, readAndroidModel } from "./android_model.ts";
import { listBuiltApplicationIds } from "./apk_outputs.ts";
import { defaultApplicationId } from "./variants.ts";

/** At most this many base ids are kept. */
export const MAX_SCOPE_IDS = 256;
/** At most this many suffixes are kept (matching is linear in them, never exponential). */
export const MAX_SCOPE_SUFFIXES = 128;
/** A refusal names at most this many of the project's packages. */
export const MAX_SCOPE_IDS_IN_MESSAGE = 12;

export interface PackageScope {
  /** Application ids the suffixes extend. */
  application_ids: string[];
  /** Suffixes, each starting with a dot, in order: flavors' then build types'. */
  suffixes: string[];
  /** Exact ids from `output-metadata.json` files. */
  built_ids: string[];
}

const dotted = (s: string) => s.startsWith(".") ? s : `.${s}`;

function pushUnique(list: string[], value: string, max: number): void {
  if (!list.includes(value) && list.length < max) list.push(value);
}

/** Add one module's ids and suffixes to a scope. Pure. */
export function addModelToScope(scope: PackageScope, model: AndroidModel): void {
  const base = defaultApplicationId(model);
  if (base !== null) pushUnique(scope.application_ids, base, MAX_SCOPE_IDS);
  for (const f of model.product_flavors) {
    if (f.application_id !== null) {
      pushUnique(scope.application_ids, f.application_id, MAX_SCOPE_IDS);
    }
  }
  for (const f of model.product_flavors) {
    if (f.application_id_suffix) {
      pushUnique(scope.suffixes, dotted(f.application_id_suffix), MAX_SCOPE_SUFFIXES);
    }
  }
  for (const b of model.build_types) {
    if (b.application_id_suffix) {
      pushUnique(scope.suffixes, dotted(b.application_id_suffix), MAX_SCOPE_SUFFIXES);
    }
  }
}

/** A scope from models and built ids. Pure. */
export function buildPackageScope(models: AndroidModel[], builtIds: string[] = []): PackageScope {
  const scope: PackageScope = { application_ids: [], suffixes: [], built_ids: [] };
  for (const m of models) addModelToScope(scope, m);
  for (const id of builtIds) pushUnique(scope.built_ids, id, MAX_SCOPE_IDS);
  return scope;
}

/**
 * Whether `rest` is a concatenation of suffixes taken in order, each at most once. Dynamic
 * programming over (position, next suffix): O(len × suffixes), never exponential. Pure.
 */
export function matchesSuffixes(rest: string, suffixes: string[]): boolean {
  if (rest === "") return true;
  // reach[k] = the positions of `rest` reachable having considered suffixes[0..k).
  let reach = new Set<number>([0]);
  for (const s of suffixes) {
    const next = new Set(reach);
    for (const pos of reach) {
      if (rest.startsWith(s, pos)) next.add(pos + s.length);
    }
    reach = next;
    if (reach.has(rest.length)) return true;
  }
  return reach.has(rest.length);
}

/** Whether `pkg` belongs to the project. Pure. */
export function inPackageScope(scope: PackageScope, pkg: string): boolean {
  if (scope.built_ids.includes(pkg)) return true;
  return scope.application_ids.some((id) =>
    pkg.startsWith(id) && matchesSuffixes(pkg.slice(id.length), scope.suffixes)
  );
}

/** The project's ids as a message names them (bases, suffixes, built ids; bounded). Pure. */
export function describeScope(scope: PackageScope): string {
  const ids = [
    ...scope.application_ids,
    ...scope.built_ids.filter((b) => !scope.application_ids.includes(b)),
  ];
  const shown = ids.slice(0, MAX_SCOPE_IDS_IN_MESSAGE);
  let text = shown.join(", ");
  if (ids.length > shown.length) text += ` and ${ids.length - shown.length} more`;
  if (scope.suffixes.length > 0) {
    text += ` (with the suffixes ${scope.suffixes.slice(0, MAX_SCOPE_IDS_IN_MESSAGE).join(", ")})`;
  }
  return text;
}

/**
 * Refuse a package outside the project's scope with `invalid_params`, before anything runs.
 * `allowForeign` (the caller's `allow_foreign_package: true`) lets any package through.
 */
export function checkPackageScope(
  scope: PackageScope,
  pkg: string,
  allowForeign: boolean,
): void {
  if (allowForeign) return;
  const hasIds = scope.application_ids.length > 0 || scope.built_ids.length > 0;
  if (hasIds && inPackageScope(scope, pkg)) return;
  const retry = `pass allow_foreign_package: true only when the user asked to act on ${pkg}`;
  if (!hasIds) {
    throw invalidParams(
      `Package ${pkg} is refused: no application id was found in this project's build files ` +
        `or build outputs, so no package counts as the project's app; ${retry}`,
      { package: pkg, project_packages: [] },
    );
  }
  throw invalidParams(
    `Package ${pkg} is not this project's app: the project's packages are ` +
      `${describeScope(scope)}; ${retry}`,
    {
      package: pkg,
      project_packages: [...scope.application_ids, ...scope.built_ids].slice(
        0,
        MAX_SCOPE_IDS_IN_MESSAGE,
      ),
    },
  );
}

async function tryModel(root: string, module: string): Promise<ModuleModel | null> {
  try {
    return await readAndroidModel(root, module);
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}

/** The package scope of the project at `root` (canonical), read from its files; runs nothing. */
export async function projectPackageScope(root: string): Promise<PackageScope> {
  const info = await readGradleProject(root);
  const models: ModuleModel[] = [];
  for (const path of info.application_modules) {
    const m = await tryModel(root, path);
    if (m !== null) models.push(m);
  }
  if (info.application_modules.length === 0 && info.files["build-gradle"] !== null) {
    const m = await tryModel(root, ":");
    if (m !== null) models.push(m);
  }
  const dirs = info.modules.filter((m) => m.application).map((m) => ({ dir: m.dir }));
  const built = await listBuiltApplicationIds(root, dirs);
  return buildPackageScope(models, built);
}
