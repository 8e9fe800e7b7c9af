/**
 * Tool parameters shared across the tool files, each with the description the model reads, so
 * the same parameter reads the same everywhere. A parameter of one file's tools stays there.
 */
import { z } from "zod";
import { DEFAULT_MAX_ROWS, MAX_ROWS, MAX_WAIT_TIMEOUT_MS } from "../ui/limits.ts";
import {
  checkPackageScope,
  emptyPackageScope,
  projectPackageScope,
} from "../gradle/package_scope.ts";
import type { ToolContext } from "./context.ts";

// ── devices and apps ─────────────────────────────────────────────────────────────────────────

/** `device_serial` where one online device may be picked for the caller (see device_args.ts). */
export const serialParam = z.string().optional().describe(
  "Serial from list_devices; optional when exactly one device is online",
);
export const requiredSerialParam = z.string().describe("Serial from list_devices");
export const packageParam = z.string().describe("Application id, like com.example.app");
export const allowForeignParam = z.boolean().optional().describe(
  "Act on a package that is not this project's app; only when the user asked for that package",
);

// ── UI reading and acting ────────────────────────────────────────────────────────────────────

export const maxRowsParam = z.number().int().min(1).max(MAX_ROWS).optional().describe(
  `Rows of the element list to show (default ${DEFAULT_MAX_ROWS}, max ${MAX_ROWS})`,
);
export const targetParam = z.string().describe(
  "A handle from the latest element list (e7) or a tree path (0.1.2)",
);
export const expectHashParam = z.string().max(128).optional().describe(
  "Screen hash from the list you read; refused if the screen changed since",
);

export const selectorParam = z.object({
  text: z.string().optional().describe("Exact text (whitespace collapsed)"),
  text_contains: z.string().optional().describe("Text contains this, any case"),
  content_desc: z.string().optional().describe("Exact content description"),
  content_desc_contains: z.string().optional().describe("Content description contains this"),
  hint: z.string().optional().describe("Exact hint of a text field"),
  resource_id: z.string().optional().describe("Resource id, full or the part after :id/"),
  class: z.string().optional().describe("Class name, full or short (Button)"),
  package: z.string().optional().describe("Package of the node"),
  clickable: z.boolean().optional(),
  long_clickable: z.boolean().optional(),
  enabled: z.boolean().optional(),
  checkable: z.boolean().optional(),
  checked: z.boolean().optional(),
  focused: z.boolean().optional(),
  scrollable: z.boolean().optional(),
  selected: z.boolean().optional(),
  editable: z.boolean().optional().describe("A text field"),
}).strict().describe(
  "What to match; every key given must match; name at least one text-like key",
);

/** `timeout_ms` of a UI wait whose default is `def`. */
export function timeoutParam(def: number) {
  return z.number().int().min(0).max(MAX_WAIT_TIMEOUT_MS).optional().describe(
    `How long to wait in ms (default ${def}, max ${MAX_WAIT_TIMEOUT_MS})`,
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

export const observeAfterParam = z.boolean().optional().describe(
  "Wait for the screen to settle and return it (default true)",
);
