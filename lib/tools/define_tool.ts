/**
 * `defineTool` for keynobi's tools: the registry's tool shape (lib/mcp/tool_def.ts) bound once to
 * `ToolContext`, so a handler's `ctx` is typed without saying so and `args` is typed from `params`.
 * A tool that reads or acts on the open project says `needsProject: true`; the rest work without one.
 */
import type { z } from "zod";
import type { ToolDef } from "../mcp/tool_def.ts";
import type { ToolContext } from "./context.ts";

export type Tool<Shape extends z.ZodRawShape = z.ZodRawShape> = ToolDef<ToolContext, Shape>;

export function defineTool<Shape extends z.ZodRawShape>(def: Tool<Shape>): Tool<Shape> {
  return def;
}
