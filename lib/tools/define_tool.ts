/**
 * `defineTool` for keynobi's tools: the registry's tool shape (lib/mcp/tool_def.ts) bound once to
 * `ToolContext`, so a handler's `ctx` is typed without saying so and `args` is typed from `params`.
 * A tool that reads or acts on the open project says `needsProject: true`; the rest work without one.
 *
 * Every handler gets its arguments checked by its `params` first (the shared parameters carry
 * their validators, params.ts), whoever calls it, and once: the server's parse (before it looks at
 * the project) marks them, so the handler's check does not parse them again; and a tool that takes `allowForeignParam` gets its `package`'s scope checked
 * before its handler runs: no handler repeats either.
 */
import { z } from "zod";
import { invalidParams } from "../core/errors.ts";
import { argumentRefusal, parseToolArgs, type ToolDef, wereParsed } from "../mcp/tool_def.ts";
import type { ToolContext } from "./context.ts";
import { allowForeignParam, requireScope } from "./params.ts";

type Tool<Shape extends z.ZodRawShape = z.ZodRawShape> = ToolDef<ToolContext, Shape>;

export function defineTool<Shape extends z.ZodRawShape>(def: Tool<Shape>): Tool<Shape> {
  const scoped = def.params.allow_foreign_package === allowForeignParam;
  const run = def.run;
  return {
    ...def,
    async run(args, ctx) {
      let checked = args;
      if (!wereParsed(args)) {
        const parsed = parseToolArgs(def.params, args);
        if (!parsed.success) {
          const r = argumentRefusal(def.name, parsed.issues);
          throw invalidParams(r.message, r.data);
        }
        checked = parsed.data as typeof args;
      }
      if (scoped) {
        const a = checked as { package: string; allow_foreign_package?: boolean };
        await requireScope(ctx, a.package, a.allow_foreign_package);
      }
      return await run(checked, ctx);
    },
  };
}
