/**
 * Gradle's `* What went wrong:` blocks (and failures printed without that header): the lines kept
 * while one is read, the task it names, and what it comes to once it ends — its failed task, a
 * diagnostic per dependency that could not be resolved, or, when nothing located explains the
 * failure, one diagnostic of the whole block. Pure.
 */
import { appendAll } from "../core/arrays.ts";
import { DEPENDENCY_CAUSE_RE, type LineMatch } from "./build_parser_patterns.ts";
import { type DiagnosticSource, Severity } from "./shared/diagnostic.ts";

/** Lines of one `What went wrong` block kept for its diagnostic. */
export const MAX_BLOCK_LINES = 400;
/** Lines at the top of a block searched for the task it names (hard-wrapped consoles split it). */
const BLOCK_HEAD_LINES = 8;

/** A block being read. */
export interface Block {
  lines: string[];
  /** Diagnostics recognised inside the block (duplicates included). */
  found: number;
}

/** The build script `* Where:` names (`Build file '…' line: 12`). */
export interface Where {
  file: string;
  line: number | null;
}

/** The first line of a failure Gradle printed without its `* What went wrong:` header. */
export const IMPLICIT_BLOCK_RE =
  /^(?:Execution failed for task '|Could not determine the dependencies of task '|Could not resolve all (?:files|dependencies|task dependencies|artifacts) for configuration|A problem occurred (?:configuring|evaluating) |Configuration cache problems found in this build)/;
/** A block about dependency resolution (not `Could not find method …` in a build script). */
const DEPENDENCY_BLOCK_RE =
  /Could not resolve all |Could not (?:find|resolve) (?:project :|[\w.-]+:[\w.-]+)|Could not download /;

/** The task a `What went wrong` block names, read across console hard-wraps. */
export function blockTask(lines: string[]): string | undefined {
  return /(?:Execution failed for task|Could not determine the dependencies of task) '([^']+)'/
    .exec(blockHead(lines))?.[1];
}

function blockHead(lines: string[]): string {
  return lines.slice(0, BLOCK_HEAD_LINES).join(" ").replace(/\s+/g, " ");
}

/** What a block comes to once it ends. */
interface BlockEnd {
  /** The task whose execution failed (`Execution failed for task '…'`), when it says. */
  failedTask: string | undefined;
  /** The task the block names, for its diagnostics. */
  task: string | undefined;
  /** Diagnostics to add: one per dependency leaf, or one of the whole block, or none. */
  found: LineMatch[];
}

/**
 * The end of a block: a diagnostic per dependency leaf it names; else, when nothing was
 * recognised in it and `explained` (whether an error already recorded explains a failure of the
 * block's task) says no, one diagnostic of the whole block, placed at `where` when Gradle said.
 */
export function endBlock(
  block: Block,
  where: Where | null,
  explained: (task: string | undefined) => boolean,
): BlockEnd {
  const head = blockHead(block.lines);
  const failedTask = /Execution failed for task '([^']+)'/.exec(head)?.[1];
  const task = blockTask(block.lines);
  const leaves = dependencyLeaves(block.lines);
  if (block.found + leaves.length > 0 || explained(task)) {
    return { failedTask, task, found: leaves };
  }
  const message = block.lines.map((l) => l.trim().replace(/^> /, "")).filter((l) => l !== "")
    .join("\n");
  if (message === "") return { failedTask, task, found: [] };
  let source: DiagnosticSource = "gradle";
  if (DEPENDENCY_BLOCK_RE.test(head)) source = "dependency_resolution";
  else if (/configuration cache/i.test(head)) source = "configuration_cache";
  return { failedTask, task, found: [blockError(message, source, where)] };
}

function blockError(message: string, source: DiagnosticSource, where: Where | null): LineMatch {
  return {
    severity: Severity.error,
    file: where?.file ?? null,
    line: where?.line ?? null,
    column: null,
    message,
    source,
  };
}

/** Each dependency leaf with its nested causes (`Could not resolve project :x` > `No matching …`). */
function dependencyLeaves(lines: string[]): LineMatch[] {
  const nodes = causeNodes(lines);
  const out: LineMatch[] = [];
  for (let i = 0; i < nodes.length; i++) {
    if (!DEPENDENCY_CAUSE_RE.test(nodes[i].lines[0])) continue;
    const parts = [...nodes[i].lines];
    let j = i + 1;
    while (j < nodes.length && nodes[j].indent > nodes[i].indent) {
      appendAll(parts, nodes[j++].lines);
    }
    out.push(blockError(parts.join("\n"), "dependency_resolution", null));
    i = j - 1;
  }
  return out;
}

interface CauseNode {
  indent: number;
  lines: string[];
}

/** `> cause` lines of a block with their continuation lines (a blank line ends a cause). */
function causeNodes(lines: string[]): CauseNode[] {
  const out: CauseNode[] = [];
  let cur: CauseNode | null = null;
  for (const l of lines) {
    if (l.trim() === "") {
      cur = null;
      continue;
    }
    const m = /^(\s*)> (.*)$/.exec(l);
    if (m) {
      cur = { indent: m[1].length, lines: [m[2].trim()] };
      out.push(cur);
    } else if (cur) {
      cur.lines.push(l.trim());
    }
  }
  return out;
}
