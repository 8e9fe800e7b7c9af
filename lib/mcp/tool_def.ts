/**
 * The shape of one tool in the registry. Everything the server serves about a tool —
 * `tools/list`, annotations, toolset hiding, `instructions`, the docs tables — derives from this.
 */
import { z } from "zod";
import { isToolError, type ToolErrorData } from "../core/errors.ts";
import type { ToolsetName } from "./toolsets.ts";

export { type ToolsetName, TOOLSETS } from "./toolsets.ts";

/** R read-only, W changes state, D destructive or hard to reverse, O runs project code. */
export type ToolKind = "R" | "W" | "D" | "O";

/** An image content item (MCP `ImageContent`): base64 data and its MIME type. */
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
}

/**
 * A tool's answer: `structured` becomes `structuredContent`, `text` the text content item, and
 * `content` (images) comes before that text item, which always stays last.
 */
export interface ToolOutput {
  structured: Record<string, unknown>;
  text: string;
  content?: ImageContent[];
}

export interface ToolDef<Ctx, Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  toolset: ToolsetName;
  kind: ToolKind;
  /** Written for the model: short and exact. */
  description: string;
  /**
   * Parameters, snake_case, each with `.describe()`. Unknown parameters are refused by the server
   * (naming the closest valid one), not by the listed schema.
   */
  params: Shape;
  /**
   * The marked case: the tool reads or acts on the open project, so it is refused (before its
   * handler runs) when the session has none. Left out, the tool works without a project.
   */
  needsProject?: true;
  run(args: z.infer<z.ZodObject<Shape>>, ctx: Ctx): Promise<ToolOutput>;
}

/** Where a validated parameter's refusal rides in its zod issue (`issue.params`). */
const REFUSAL_ISSUE_KEY = "keynobiRefusal";

/**
 * A parameter that carries its own check: `validate` (one of lib/core/validation.ts's, which
 * throw an invalid_params `ToolError`) runs when the arguments are parsed, before the handler,
 * and the parsed value is what it returns. A refusal is the validator's own message: the server
 * answers it as if the handler had thrown it.
 */
export function validated<T extends z.ZodType, R>(
  schema: T,
  validate: (value: z.output<T>) => R,
) {
  return schema.transform((value, ctx): R => {
    try {
      return validate(value);
    } catch (e) {
      if (!isToolError(e) || e.code !== "invalid_params") throw e;
      ctx.issues.push({
        code: "custom",
        message: e.message,
        input: value,
        params: { [REFUSAL_ISSUE_KEY]: e.toErrorData() },
      });
      return z.NEVER;
    }
  });
}

/**
 * The refusal for arguments that failed `params`: a validated parameter's own (its validator's
 * message and data), else zod's first issues, each named by where it is.
 */
export function argumentRefusal(
  tool: string,
  issues: readonly z.core.$ZodIssue[],
): { message: string; data?: Record<string, unknown> } {
  const own = refusalOf(issues);
  if (own) return own.data === undefined ? { message: own.message } : own;
  const described = issues.slice(0, 5).map((i) => {
    const where = i.path.length ? i.path.join(".") : "arguments";
    return `${where}: ${i.message}`;
  }).join("; ");
  return { message: `Invalid arguments for ${tool}: ${described}` };
}

/** The refusal a validated parameter raised, if one did, among a failed parse's issues. */
function refusalOf(issues: readonly z.core.$ZodIssue[]): ToolErrorData | null {
  for (const i of issues) {
    const data = i.code === "custom" ? i.params?.[REFUSAL_ISSUE_KEY] : undefined;
    if (data) return data as ToolErrorData;
  }
  return null;
}

/** Each tool's parameter object, built once (a `z.object` per call cost the server ~0.1 ms). */
const SCHEMAS = new WeakMap<z.ZodRawShape, z.ZodObject>();
/** Arguments `parseToolArgs` produced: a handler that meets them does not parse them again. */
const PARSED = new WeakSet<object>();

/** The object schema of a tool's `params`, built on first use and kept. */
export function paramsSchema(params: z.ZodRawShape): z.ZodObject {
  let schema = SCHEMAS.get(params);
  if (!schema) SCHEMAS.set(params, schema = z.object(params));
  return schema;
}

/**
 * Parses a call's arguments by the tool's `params`, once per call: the server parses before it
 * looks at the project, and the tool's own check (lib/tools/define_tool.ts) then sees these
 * arguments marked as parsed and does not parse them again.
 */
export function parseToolArgs(
  params: z.ZodRawShape,
  args: unknown,
): { success: true; data: Record<string, unknown> } | {
  success: false;
  issues: readonly z.core.$ZodIssue[];
} {
  const parsed = paramsSchema(params).safeParse(args);
  if (!parsed.success) return { success: false, issues: parsed.error.issues };
  PARSED.add(parsed.data);
  return { success: true, data: parsed.data };
}

/** Whether `args` came from `parseToolArgs` (and so are checked already). */
export function wereParsed(args: unknown): boolean {
  return typeof args === "object" && args !== null && PARSED.has(args);
}

/** Identity helper that keeps `args` typed from `params`. */
export function defineTool<Ctx, Shape extends z.ZodRawShape>(
  def: ToolDef<Ctx, Shape>,
): ToolDef<Ctx, Shape> {
  return def;
}

/**
 * The hints a kind states in `tools/list`: every tool declares all three (the reference spec's
 * rule), so a client that does not apply MCP's defaults reads the same kind as one that does.
 */
interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  openWorldHint: boolean;
}

export function annotationsFor(kind: ToolKind): Annotations {
  switch (kind) {
    case "R":
      return { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
    case "W":
      return { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
    case "D":
      return { readOnlyHint: false, destructiveHint: true, openWorldHint: false };
    case "O":
      return { readOnlyHint: false, destructiveHint: true, openWorldHint: true };
  }
}
