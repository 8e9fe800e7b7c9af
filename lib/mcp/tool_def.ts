/**
 * The shape of one tool in the registry. Everything the server serves about a tool —
 * `tools/list`, annotations, toolset hiding, `instructions`, the docs tables — derives from this.
 */
import type { z } from "zod";

/** R read-only, W changes state, D destructive or hard to reverse, O runs project code. */
export type ToolKind = "R" | "W" | "D" | "O";

export const TOOLSETS = ["core", "ui", "device-admin"] as const;
export type ToolsetName = typeof TOOLSETS[number];

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
  /** Human title shown by clients. */
  title: string;
  /** Written for the model: short and exact. */
  description: string;
  /** Parameters, snake_case, each with `.describe()`. Unknown parameters are refused. */
  params: Shape;
  /**
   * The marked case: the tool reads or acts on the open project, so it is refused (before its
   * handler runs) when the session has none. Left out, the tool works without a project.
   */
  needsProject?: true;
  run(args: z.infer<z.ZodObject<Shape>>, ctx: Ctx): Promise<ToolOutput>;
}

/** Identity helper that keeps `args` typed from `params`. */
export function defineTool<Ctx, Shape extends z.ZodRawShape>(
  def: ToolDef<Ctx, Shape>,
): ToolDef<Ctx, Shape> {
  return def;
}

/**
 * The hints a kind states in `tools/list`. MCP's defaults are readOnlyHint false, destructiveHint
 * true, openWorldHint true, and destructiveHint means nothing on a read-only tool; a hint is left
 * out only where its default already says it, except destructiveHint: true, which is always
 * written so a client that ignores the defaults still warns before a destructive tool.
 */
export interface Annotations {
  readOnlyHint?: true;
  destructiveHint?: boolean;
  openWorldHint?: false;
}

export function annotationsFor(kind: ToolKind): Annotations {
  switch (kind) {
    case "R":
      return { readOnlyHint: true, openWorldHint: false };
    case "W":
      return { destructiveHint: false, openWorldHint: false };
    case "D":
      return { destructiveHint: true, openWorldHint: false };
    case "O":
      return { destructiveHint: true };
  }
}
