/**
 * Maestro flow YAML → a checked flow (lib/ui/shared/flows/flow_types.ts), all of it before anything runs:
 * the header (`appId`, `name`, `tags`, `env`) and `---`, then the steps; every runFlow file read
 * and parsed too, `${VAR}`s replaced, every selector, text, key and bound checked. A step outside
 * the supported subset, an unknown key or variable, or a bound passed is `invalid_params` that
 * names the step (file and line) and what is supported. YAML is read by npm `yaml` (eemeli/yaml),
 * with its alias limit on.
 */
import { parseAllDocuments } from "yaml";
import { invalidParams } from "../../../core/errors.ts";
import { MAX_FLOW_BYTES } from "./flow_limits.ts";
import type { Flow } from "./flow_types.ts";
import { parseSteps } from "./flow_steps.ts";
import { checkEnv, type Ctx, PACKAGE_NAME_RE, type ParseFlowOptions, str } from "./flow_values.ts";

/** The byte length check every flow text goes through. */
function checkFlowSize(text: string, source: string): void {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_FLOW_BYTES) {
    throw invalidParams(`Flow ${source} is ${bytes} bytes, the limit is ${MAX_FLOW_BYTES}`);
  }
}

/** Parses and checks a whole flow (its runFlow files included). */
export async function parseFlow(text: string, opts: ParseFlowOptions): Promise<Flow> {
  const count = { steps: 0 };
  return await parseText(text, opts.source, opts.env ?? {}, opts, count, 0, true);
}

async function parseText(
  text: string,
  source: string,
  outer: Record<string, string>,
  opts: ParseFlowOptions,
  count: { steps: number },
  depth: number,
  callerWins: boolean,
): Promise<Flow> {
  checkFlowSize(text, source);
  const docs = parseAllDocuments(text, { uniqueKeys: true });
  if (!Array.isArray(docs)) throw invalidParams(`Flow ${source}: it is empty`);
  for (const d of docs) {
    const e = d.errors[0];
    if (e) {
      throw invalidParams(`Flow ${source} is not valid YAML: ${e.message.split("\n")[0]}`);
    }
  }
  const lineOf = lineFinder(text);
  let header: Record<string, unknown> = {};
  let stepsDoc;
  if (docs.length === 1) stepsDoc = docs[0];
  else if (docs.length === 2) {
    const h = docs[0].toJS({ maxAliasCount: 100 });
    if (h !== null && (typeof h !== "object" || Array.isArray(h))) {
      throw invalidParams(`Flow ${source}: the header (before ---) must be a map such as appId: …`);
    }
    header = h ?? {};
    stepsDoc = docs[1];
  } else {
    throw invalidParams(
      `Flow ${source} has ${docs.length} YAML documents: a flow is a header, ---, then the steps`,
    );
  }
  for (const k of Object.keys(header)) {
    if (!["appId", "name", "tags", "env"].includes(k)) {
      throw invalidParams(
        `Flow ${source}: header key ${JSON.stringify(k)} is not supported; use appId, name, ` +
          "tags, env",
      );
    }
  }
  const own = checkEnv(header.env, `Flow ${source}: env`);
  const vars = callerWins ? { ...own, ...outer } : { ...outer, ...own };
  const include = (text: string, path: string, vars: Record<string, string>, depth: number) =>
    parseText(text, path, vars, opts, count, depth, true);
  const ctx: Ctx = { source, vars, opts, count, depth, lineOf, include };
  const appId = header.appId === undefined ? null : str(ctx, header.appId, `header appId`, null);
  if (appId !== null && !PACKAGE_NAME_RE.test(appId)) {
    throw invalidParams(`Flow ${source}: appId ${JSON.stringify(appId)} is not a package name`);
  }
  const contents = stepsDoc.contents;
  const list = stepsDoc.toJS({ maxAliasCount: 100 });
  if (list === null || list === undefined) {
    throw invalidParams(`Flow ${source} has no steps: after the header and ---, list the steps`);
  }
  if (!Array.isArray(list)) {
    throw invalidParams(
      `Flow ${source}: the steps must be a list (- launchApp, - tapOn: …)` +
        (docs.length === 1 ? "; a header needs --- after it" : ""),
    );
  }
  const items = (contents as { items?: unknown[] } | null)?.items ?? [];
  const steps = await parseSteps(ctx, list, items, appId);
  return {
    appId,
    name: typeof header.name === "string" ? header.name : null,
    source,
    steps,
  };
}

/** The 1-based line a YAML node starts on, or null for a node without a range. */
function lineFinder(text: string): (node: unknown) => number | null {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") lineStarts.push(i + 1);
  return (node) => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    if (!range) return null;
    let lo = 0, hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= range[0]) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}
