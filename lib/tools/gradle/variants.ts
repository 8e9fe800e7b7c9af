/**
 * The project's build model read without running Gradle: `list_build_variants`,
 * `set_active_variant`, `find_apk_path`, `get_build_config`. Thin adapters over lib/project
 * (variants, build files, APK outputs).
 */
import { z } from "zod";
import { invalidParams, ToolError } from "../../core/errors.ts";
import { findApk } from "../../project/apk_outputs.ts";
import { getActiveVariant, listVariants, setActiveVariant } from "../../project/variants.ts";
import { defineTool } from "../define_tool.ts";
import { appModel, variantOfTask } from "../../build/shared/build_setup.ts";
import { projectRoot } from "../context.ts";

const listBuildVariants = defineTool({
  name: "list_build_variants",
  toolset: "core",
  kind: "R",
  description: "The app module's variants (flavors × build types) with their application ids and " +
    "tasks, and which one is active.",
  params: {
    module: z.string().max(200).optional().describe(
      "App module (:app); default the only one",
    ),
  },
  needsProject: true,
  async run(args, ctx) {
    const model = await appModel(projectRoot(ctx), args.module);
    const variants = listVariants(model);
    const active = await getActiveVariant(ctx.dataDir, projectRoot(ctx), model);
    const structured = {
      module: model.module,
      active: active.variant?.name ?? null,
      active_source: active.source,
      ...(active.stale_variant ? { stale_variant: active.stale_variant } : {}),
      variants,
    };
    const lines = [
      `${model.module}: ${variants.length} variant(s), active ${structured.active ?? "none"}`,
    ];
    for (const v of variants) {
      lines.push(
        `${v.name === structured.active ? "*" : " "} ${v.name}  ${
          v.application_id ?? "(id unknown)"
        }  ${v.assemble_task}`,
      );
    }
    return { structured, text: lines.join("\n") };
  },
});

const setActiveVariantTool = defineTool({
  name: "set_active_variant",
  toolset: "core",
  kind: "W",
  description: "Make a variant the app module's active one (saved, shared with other keynobi " +
    "processes); tests use it by default.",
  params: {
    variant: z.string().max(200).describe("A variant (demoDebug)"),
    module: z.string().max(200).optional().describe("App module; default the only one"),
  },
  needsProject: true,
  async run(args, ctx) {
    const model = await appModel(projectRoot(ctx), args.module);
    const v = await setActiveVariant(ctx.dataDir, projectRoot(ctx), model, args.variant);
    return {
      structured: { module: model.module, active: v.name, variant: v },
      text: `${model.module}: active variant is now ${v.name} (${
        v.application_id ?? "id unknown"
      })`,
    };
  },
});

const findApkPath = defineTool({
  name: "find_apk_path",
  toolset: "core",
  kind: "R",
  description:
    "The APK a build wrote for a variant, to pass to install_apk; found: false with the " +
    "reason when none or several match.",
  params: {
    variant: z.string().max(200).optional().describe(
      "Default: the active variant",
    ),
    module: z.string().max(300).optional().describe(
      "App module (:mobile) or its task (:mobile:assembleDebug)",
    ),
  },
  needsProject: true,
  async run(args, ctx) {
    const root = projectRoot(ctx);
    let model;
    try {
      model = await appModel(root, args.module);
    } catch (e) {
      if (e instanceof ToolError && e.code === "invalid_params" && args.module === undefined) {
        return {
          structured: { found: false, reason: e.message },
          text: `found: false — ${e.message}`,
        };
      }
      throw e;
    }
    // A task path names its variant (`:app:assembleFullDebug`): that one, not the active one.
    const fromTask = args.module !== undefined && args.module.trim().split(":").length > 2
      ? variantOfTask(args.module.trim(), listVariants(model).map((v) => v.name))
      : null;
    if (fromTask !== null && args.variant !== undefined && args.variant !== fromTask) {
      throw invalidParams(
        `module names the task of variant ${fromTask} but variant is ${args.variant}: pass one ` +
          "of them, or both for the same variant",
      );
    }
    const variant = args.variant ?? fromTask ??
      (await getActiveVariant(ctx.dataDir, root, model)).variant?.name;
    if (!variant) {
      return {
        structured: { found: false, reason: "the module has no variants" },
        text: "found: false — the module has no variants",
      };
    }
    const r = await findApk(root, { model, variant, module: model.module });
    return {
      structured: { module: model.module, ...r },
      text: r.found
        ? `${r.path} (${r.variant}${r.application_id ? `, ${r.application_id}` : ""})`
        : `found: false — ${r.reason}`,
    };
  },
});

const getBuildConfig = defineTool({
  name: "get_build_config",
  toolset: "core",
  kind: "R",
  description: "A module's Android configuration from its build file, without Gradle: namespace, " +
    "application id, SDK levels, version, build types, flavors, variants.",
  params: {
    module: z.string().max(200).optional().describe(
      "Module directory (app); default the app module",
    ),
  },
  needsProject: true,
  async run(args, ctx) {
    if (args.module !== undefined && /[\\/]|\.\./.test(args.module)) {
      throw new ToolError(
        "invalid_params",
        `Invalid module ${JSON.stringify(args.module)}: pass a module directory name like app`,
      );
    }
    const model = await appModel(projectRoot(ctx), args.module);
    const variants = listVariants(model);
    const structured = { ...model, variants: variants.map((v) => v.name) };
    const text = [
      `${model.module} (${model.build_file ?? "no build file"})`,
      `namespace ${model.namespace ?? "?"}, applicationId ${model.application_id ?? "?"}`,
      `SDK min ${model.min_sdk ?? "?"}, target ${model.target_sdk ?? "?"}, compile ${
        model.compile_sdk ?? "?"
      }`,
      `version ${model.version_name ?? "?"} (${model.version_code ?? "?"})`,
      `build types: ${model.build_types.map((b) => b.name).join(", ")}`,
      `flavors: ${model.product_flavors.map((f) => f.name).join(", ") || "none"}`,
      `variants: ${variants.map((v) => v.name).join(", ")}`,
      ...(model.unresolved.length
        ? [`not known without running Gradle: ${model.unresolved.join(", ")}`]
        : []),
    ].join("\n");
    return { structured, text };
  },
});

export const variantTools = [listBuildVariants, setActiveVariantTool, findApkPath, getBuildConfig];
