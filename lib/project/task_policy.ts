/**
 * Which Gradle tasks an agent may run (spec: `run_gradle_task` task policy).
 *
 * Always refused: an empty or overlong name, a name starting with `-` (a Gradle option),
 * whitespace (one task per call), and any character a task path never has (shell
 * metacharacters, quotes, slashes, control characters).
 *
 * Unless the user set `mcp.allow_unrestricted_gradle`, tasks whose last path segment matches
 * `publish*`, `promote*`, `upload*`, `uninstall*`, `closeAndRelease*`, `*ToMavenCentral` or
 * `*PlayStore*` are refused, and so is any name that Gradle could expand to one of them.
 *
 * How Gradle expands a name (its `NameMatcher`): an exact match wins; otherwise the name is split
 * into camel-case humps (`pRB` → p, R, B), each hump followed by `[lower|digit]*`, and a task
 * whose words those humps prefix matches (`publishReleaseBundle`); failing that, the same pattern
 * is tried case-insensitively and only against the start of the task name. We do not know the
 * project's task set, so we decide conservatively:
 *
 * - start patterns (`publish*`, …, `closeAndRelease*`): refused when the first hump and the
 *   pattern's first word(s) could be one another's prefix. `p`, `pu`, `pRB`, `pubRel`, `up`,
 *   `uninstAll`, `cl`, `closeAR` are refused; `processDebugResources`, `preBuild`, `clean`,
 *   `installDebug`, `updateLintBaseline` are not, since their first hump already differs.
 * - end and middle patterns (`*ToMavenCentral`, `*PlayStore*`): refused when the humps spell
 *   those words (each hump a prefix of its word, or a lower-case hump covering several words:
 *   `xTMC`, `fooToMavencentral`, `uploadtoplaystore`, `bPS`). A name that merely could be
 *   continued into them (`assembleP` → `assemblePlayStore…`) is allowed: by that reading every
 *   name would be refused.
 *
 * `aD` (→ assembleDebug) and other abbreviations of everyday tasks stay allowed.
 */
import { invalidParams } from "../core/errors.ts";

/** A task path longer than this is refused. */
export const MAX_GRADLE_TASK_LENGTH = 256;

interface BlockedTaskPattern {
  /** As the spec writes it. */
  glob: string;
  kind: "start" | "end" | "middle";
  /** Lower-case camel-case words of the fixed part. */
  words: readonly string[];
}

export const BLOCKED_TASK_PATTERNS: readonly BlockedTaskPattern[] = [
  { glob: "publish*", kind: "start", words: ["publish"] },
  { glob: "promote*", kind: "start", words: ["promote"] },
  { glob: "upload*", kind: "start", words: ["upload"] },
  { glob: "uninstall*", kind: "start", words: ["uninstall"] },
  { glob: "closeAndRelease*", kind: "start", words: ["close", "and", "release"] },
  { glob: "*ToMavenCentral", kind: "end", words: ["to", "maven", "central"] },
  { glob: "*PlayStore*", kind: "middle", words: ["play", "store"] },
];

/** The setting that lifts the restriction (settings.json `mcp.allow_unrestricted_gradle`). */
export const UNRESTRICTED_SETTING = "mcp.allow_unrestricted_gradle";

const SEGMENT_RE = /^[A-Za-z0-9_][A-Za-z0-9_.\-]*$/;

/**
 * Camel-case humps of a task name, lower-cased: `pubRel` → pub, rel; `PRB` → p, r, b;
 * `upload2Play` → upload2, play. Separators (`-`, `_`, `.`) end a hump. Pure.
 */
export function taskHumps(name: string): string[] {
  const humps: string[] = [];
  let cur = "";
  for (const c of name) {
    if (/[A-Z]/.test(c)) {
      if (cur !== "") humps.push(cur);
      cur = c.toLowerCase();
    } else if (/[a-z0-9]/.test(c)) cur += c;
    else {
      if (cur !== "") humps.push(cur);
      cur = "";
    }
  }
  if (cur !== "") humps.push(cur);
  return humps;
}

/**
 * Whether `humps` (the first starting at `words[0]`) spell `words`: each hump is a prefix of its
 * word, or covers whole words and then a prefix of the next. `anchoredEnd`: no hump may follow
 * the last word (the pattern ends the name). Pure.
 */
function spells(humps: string[], words: readonly string[], anchoredEnd: boolean): boolean {
  const go = (hi: number, wi: number): boolean => {
    if (wi === words.length) return !anchoredEnd || hi === humps.length;
    if (hi === humps.length) return false;
    let rest = humps[hi];
    let j = wi;
    while (j < words.length) {
      const w = words[j];
      if (rest.startsWith(w)) {
        rest = rest.slice(w.length);
        j++;
        if (rest === "") return go(hi + 1, j);
        continue;
      }
      return w.startsWith(rest) ? go(hi + 1, j + 1) : false;
    }
    // The hump runs past the last word: fine only when more may follow the pattern.
    return !anchoredEnd;
  };
  return go(0, 0);
}

/** Whether the humps could spell `words` starting anywhere (a hump's tail may begin them). */
function spellsSomewhere(humps: string[], words: readonly string[], anchoredEnd: boolean): boolean {
  for (let k = 0; k < humps.length; k++) {
    for (let s = 0; s < humps[k].length; s++) {
      if (spells([humps[k].slice(s), ...humps.slice(k + 1)], words, anchoredEnd)) return true;
    }
  }
  return false;
}

/** The blocked pattern a task name (last path segment) could run, or null. Pure. */
export function blockedPatternFor(name: string): BlockedTaskPattern | null {
  const humps = taskHumps(name);
  if (humps.length === 0) return null;
  for (const p of BLOCKED_TASK_PATTERNS) {
    if (p.kind === "start") {
      const fixed = p.words.join("");
      if (fixed.startsWith(humps[0]) || humps[0].startsWith(fixed)) return p;
      // `closeARepo`-style humps spelling the words are covered by the first hump check above,
      // since the first hump must begin the fixed part.
    } else if (spellsSomewhere(humps, p.words, p.kind === "end")) return p;
  }
  return null;
}

interface TaskPolicyOptions {
  /** `mcp.allow_unrestricted_gradle` from settings. */
  allowUnrestricted: boolean;
}

function show(task: string): string {
  return JSON.stringify(task.length > 60 ? `${task.slice(0, 57)}...` : task);
}

/**
 * Check a task an agent asked to run; returns it unchanged or throws `invalid_params` saying why
 * and what to do instead. Pure.
 */
export function checkGradleTask(task: string, options: TaskPolicyOptions): string {
  const example = "pass one task name like assembleDebug or :app:assembleDebug";
  if (typeof task !== "string" || task.trim() === "") {
    throw invalidParams(`Invalid task: it is empty; ${example}`);
  }
  if (task.length > MAX_GRADLE_TASK_LENGTH) {
    throw invalidParams(
      `Invalid task: ${task.length} characters, the limit is ${MAX_GRADLE_TASK_LENGTH}; ${example}`,
    );
  }
  if (task.startsWith("-")) {
    throw invalidParams(
      `Invalid task ${show(task)}: it starts with - and would be a Gradle option, which agents ` +
        `cannot pass; ${example}`,
    );
  }
  if (/\s/.test(task)) {
    throw invalidParams(
      `Invalid task ${show(task)}: it contains whitespace; run one task per call and ${example}`,
    );
  }
  const bad = /[^A-Za-z0-9_.:\-]/.exec(task);
  if (bad) {
    throw invalidParams(
      `Invalid task ${show(task)}: it contains ${JSON.stringify(bad[0])}, which a Gradle task ` +
        `path never has (letters, digits, _ . - and : only); ${example}`,
    );
  }
  const segments = (task.startsWith(":") ? task.slice(1) : task).split(":");
  if (!segments.every((s) => SEGMENT_RE.test(s))) {
    throw invalidParams(
      `Invalid task ${show(task)}: every part of a :project:task path must be a name ` +
        `(no empty part, none starting with - or .); ${example}`,
    );
  }
  if (options.allowUnrestricted) return task;
  const name = segments[segments.length - 1];
  const pattern = blockedPatternFor(name);
  if (pattern !== null) {
    const how = name.toLowerCase().startsWith(pattern.words.join("")) ||
        name.toLowerCase().includes(pattern.words.join(""))
      ? `it matches ${pattern.glob}`
      : `Gradle could expand the abbreviation ${show(name)} to a task matching ${pattern.glob}`;
    throw invalidParams(
      `Task ${show(task)} is refused: ${how}, and tasks that publish, promote, upload, release ` +
        "or uninstall are blocked for agents; run a build, test or install task instead, or, if " +
        `the user wants agents to run such tasks, the user can set ${UNRESTRICTED_SETTING}: ` +
        "true in keynobi's settings.json",
      { task, blocked_pattern: pattern.glob, setting: UNRESTRICTED_SETTING },
    );
  }
  return task;
}
