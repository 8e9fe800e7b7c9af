/**
 * Tool parameters shared across the tool files, each with the description the model reads, so
 * the same parameter reads the same everywhere, and each carrying its own check (`validated`:
 * lib/core/validation.ts's validator runs when the arguments are parsed, before any handler), so
 * no handler repeats it. The package parameter's scope check runs in `defineTool`
 * (define_tool.ts) for every tool that takes `allowForeignParam`. A parameter of one file's
 * tools stays there.
 */
import { z } from "zod";
import { validated } from "../mcp/tool_def.ts";
import { validatePackage, validatePermission, validateSerial } from "../core/validation.ts";
import { validateSelector } from "../ui/shared/selector_rules.ts";
import { DEFAULT_MAX_ROWS, MAX_ROWS, MAX_WAIT_TIMEOUT_MS } from "../ui/shared/limits.ts";
import {
  checkPackageScope,
  emptyPackageScope,
  projectPackageScope,
} from "../build/shared/package_scope.ts";
import type { ToolContext } from "./context.ts";

// ── devices and apps ─────────────────────────────────────────────────────────────────────────

/** `device_serial` where one online device may be picked for the caller (see device_args.ts). */
/** A device serial, checked (validateSerial); `param` names it in a refusal. */
export function serialArg(param = "device_serial") {
  return validated(z.string(), (v) => validateSerial(v, param));
}
export const serialParam = serialArg().optional().describe("Default: sole online device");
export const requiredSerialParam = serialArg().describe("Device serial (list_devices)");
/** `device_serial` as a filter: only that device's entries, every device when left out. */
export function serialFilterParam(description: string) {
  return serialArg().optional().describe(description);
}

/** An application id, checked (validatePackage). */
const packageArg = validated(z.string(), (v) => validatePackage(v));
export const packageParam = packageArg.describe("App id (com.example.app)");
/** `package` as a filter or with a default of its own. */
export function optionalPackageParam(description: string) {
  return packageArg.optional().describe(description);
}
/**
 * `allow_foreign_package`: a tool that takes it (with `package`) has its package's scope (spec
 * "Package Scope") checked by `defineTool` before its handler runs.
 */
export const allowForeignParam = z.boolean().optional().describe(
  "Act on a package outside this project; only when the user asked for it",
);

export const permissionParam = validated(z.string(), (v) => validatePermission(v)).describe(
  "Like android.permission.CAMERA",
);

// ── UI reading and acting ────────────────────────────────────────────────────────────────────

export const maxRowsParam = z.number().int().min(1).max(MAX_ROWS).optional().describe(
  `Default ${DEFAULT_MAX_ROWS}`,
);
export const targetParam = z.string().describe(
  "Handle (e7) or tree path (0.1.2)",
);
export const expectHashParam = z.string().max(128).optional().describe(
  "Refuse if the screen hash differs",
);

/**
 * The UI selector, one schema for every tool that takes one. Its keys are listed with their types
 * only and their meaning is said once in its description: four tools list it, and per-key
 * descriptions would cost each of them 600 bytes more.
 */
export const selectorParam = validated(
  z.object({
    text: z.string().optional(),
    text_contains: z.string().optional(),
    content_desc: z.string().optional(),
    content_desc_contains: z.string().optional(),
    hint: z.string().optional(),
    resource_id: z.string().optional(),
    class: z.string().optional(),
    package: z.string().optional(),
    clickable: z.boolean().optional(),
    long_clickable: z.boolean().optional(),
    enabled: z.boolean().optional(),
    checkable: z.boolean().optional(),
    checked: z.boolean().optional(),
    focused: z.boolean().optional(),
    scrollable: z.boolean().optional(),
    selected: z.boolean().optional(),
    editable: z.boolean().optional(),
  }).strict(),
  (v) => validateSelector(v),
).describe(
  "Every key given must match; one at least text-like. text, content_desc, hint: exact " +
    "(whitespace collapsed); *_contains: substring, any case; resource_id: full or after :id/; " +
    "class: full or short (Button); package; flags (editable: a text field)",
);

/** `timeout_ms` of a UI wait whose default is `def`. */
export function timeoutParam(def: number) {
  return z.number().int().min(0).max(MAX_WAIT_TIMEOUT_MS).optional().describe(
    `Default ${def}`,
  );
}

/** Package scope (spec "Package Scope"): refused with invalid_params before any device command. */
export async function requireScope(ctx: ToolContext, pkg: string, allow: boolean | undefined) {
  if (allow === true) return;
  const scope = ctx.project
    ? await projectPackageScope(ctx.project.root, { dataDir: ctx.dataDir })
    : emptyPackageScope();
  checkPackageScope(scope, pkg, false);
}

export const observeAfterParam = z.boolean().optional().describe("Default true");
