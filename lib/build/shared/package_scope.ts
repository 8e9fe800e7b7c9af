/**
 * Package scope (spec "Package Scope"): tools that stop an app, wipe its data or change its
 * permissions act only on the project's own packages unless the call passes
 * `allow_foreign_package: true`.
 *
 * The project's packages are exact ids, each with the source it came from:
 *
 * - **variants**: the application id of every variant the build file defines — build types × one
 *   flavor per dimension — computed as AGP does (the first flavor overriding `applicationId`, else
 *   the default; then the flavors' suffixes in dimension order and the build type's). Suffixes of
 *   two flavors of one dimension never combine, because no variant has both.
 * - **build outputs** (`output-metadata.json` under an application module's `build/outputs/apk/`),
 *   which cover ids set outside the build file — but only when keynobi's own build history
 *   recorded that very file (its SHA-256 is in a build record of this project), or when the
 *   project is trusted. A committed build output of an untrusted project widens nothing.
 */
import { invalidParams, ToolError } from "../../core/errors.ts";
import { isTrusted } from "../../project/trust.ts";
import { readGradleProject } from "../../project/build_files.ts";
import {
  type AndroidModel,
  type ModuleModel,
  readAndroidModel,
} from "../../project/android_model.ts";
import { listBuiltOutputs } from "../../project/apk_outputs.ts";
import { listVariants } from "../../project/variants.ts";
import { listBuildRecords, MAX_BUILD_RECORDS } from "./build_history.ts";

/** At most this many ids are kept. */
const MAX_SCOPE_IDS = 256;
/** A refusal names at most this many of the project's packages. */
const MAX_SCOPE_IDS_IN_MESSAGE = 12;

/** Where a scoped id came from. */
type ScopeSourceKind = "variant" | "recorded_build_output" | "trusted_build_output";

interface ScopedId {
  id: string;
  kind: ScopeSourceKind;
  /** Said to the model: `variant :app demoDebug`, `app/build/…/output-metadata.json (build #12)`. */
  source: string;
}

export interface PackageScope {
  ids: ScopedId[];
  /** Variants whose id the build file computes (not a literal), so they add no id. */
  unresolved_variants: string[];
}

export const emptyPackageScope = (): PackageScope => ({ ids: [], unresolved_variants: [] });

function pushId(scope: PackageScope, entry: ScopedId): void {
  if (scope.ids.length >= MAX_SCOPE_IDS) return;
  if (scope.ids.some((e) => e.id === entry.id)) return;
  scope.ids.push(entry);
}

/** Add one module's variant ids to a scope. Pure. */
function addModelToScope(scope: PackageScope, model: AndroidModel): void {
  const module = model.module === "" ? ":" : model.module;
  for (const v of listVariants(model)) {
    if (v.application_id === null) {
      if (scope.unresolved_variants.length < MAX_SCOPE_IDS) {
        scope.unresolved_variants.push(`${module} ${v.name}`);
      }
      continue;
    }
    pushId(scope, { id: v.application_id, kind: "variant", source: `variant ${module} ${v.name}` });
  }
}

/** A scope from models and already-vetted build outputs. Pure. */
export function buildPackageScope(
  models: AndroidModel[],
  outputs: readonly ScopedId[] = [],
): PackageScope {
  const scope = emptyPackageScope();
  for (const m of models) addModelToScope(scope, m);
  for (const o of outputs) pushId(scope, o);
  return scope;
}

/** The entry that puts `pkg` in scope, or `null`. Pure. */
function scopeEntryFor(scope: PackageScope, pkg: string): ScopedId | null {
  return scope.ids.find((e) => e.id === pkg) ?? null;
}

/** Whether `pkg` belongs to the project. Pure. */
export function inPackageScope(scope: PackageScope, pkg: string): boolean {
  return scopeEntryFor(scope, pkg) !== null;
}

/** The project's ids as a message names them, each with its source (bounded). Pure. */
function describeScope(scope: PackageScope): string {
  const shown = scope.ids.slice(0, MAX_SCOPE_IDS_IN_MESSAGE);
  let text = shown.map((e) => `${e.id} (${e.source})`).join(", ");
  if (scope.ids.length > shown.length) text += ` and ${scope.ids.length - shown.length} more`;
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
  if (inPackageScope(scope, pkg)) return;
  const retry = `pass allow_foreign_package: true only when the user asked to act on ${pkg}`;
  const unresolved = scope.unresolved_variants.length > 0
    ? ` (the build file computes the id of ${
      scope.unresolved_variants.slice(0, MAX_SCOPE_IDS_IN_MESSAGE).join(", ")
    }; build it with keynobi to add its id)`
    : "";
  if (scope.ids.length === 0) {
    throw invalidParams(
      `Package ${pkg} is refused: no application id was found in this project's variants or ` +
        `in build outputs keynobi recorded, so no package counts as the project's app${unresolved}; ` +
        retry,
      { package: pkg, project_packages: [] },
    );
  }
  throw invalidParams(
    `Package ${pkg} is not this project's app: the project's packages are ` +
      `${describeScope(scope)}${unresolved}; ${retry}`,
    {
      package: pkg,
      project_packages: scope.ids.slice(0, MAX_SCOPE_IDS_IN_MESSAGE).map((e) => ({
        id: e.id,
        source: e.source,
      })),
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

interface ScopeOptions {
  /** Where keynobi's build history and settings (trust) live. */
  dataDir: string;
}

/**
 * The SHA-256 of every `output-metadata.json` keynobi's builds of `root` recorded, with the
 * build's id. Pure over the records.
 */
async function recordedMetadataHashes(dataDir: string, root: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const records = await listBuildRecords(dataDir, { project: root, limit: MAX_BUILD_RECORDS });
  for (const r of records) {
    for (const a of r.apks) {
      if (a.metadata_sha256 && !out.has(a.metadata_sha256)) out.set(a.metadata_sha256, r.id);
    }
  }
  return out;
}

/** The package scope of the project at `root` (canonical), read from its files; runs nothing. */
export async function projectPackageScope(
  root: string,
  options: ScopeOptions,
): Promise<PackageScope> {
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
  const outputs = await listBuiltOutputs(root, dirs);
  const vetted: ScopedId[] = [];
  if (outputs.length > 0) {
    const trusted = await isTrusted(options.dataDir, root);
    const recorded = trusted ? new Map() : await recordedMetadataHashes(options.dataDir, root);
    for (const o of outputs) {
      if (trusted) {
        vetted.push({
          id: o.application_id,
          kind: "trusted_build_output",
          source: `${o.path} of the trusted project`,
        });
        continue;
      }
      const build = recorded.get(o.sha256);
      if (build !== undefined) {
        vetted.push({
          id: o.application_id,
          kind: "recorded_build_output",
          source: `${o.path} written by keynobi build #${build}`,
        });
      }
    }
  }
  return buildPackageScope(models, vetted);
}
