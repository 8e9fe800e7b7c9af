/**
 * An agent's UI actions of a debug session (the `flow_step` of its successful `agentAction`
 * events, flow_record.ts) written as a Maestro flow that run_ui_flow accepts: the session's app as
 * `appId`, a `launchApp` first unless the actions start with one (so the flow runs from a fresh
 * start), elements by the selector recorded on the screen they were acted on (id, then text, then
 * content description), a point only where nothing identified the element, said in a comment;
 * typed text kept, a password field's text as `${NAME}`. Pure.
 */
import { appendAll } from "../../../core/arrays.ts";
import type { FlowSelector } from "./flow_selector.ts";
import { maestroKey, type RecordedStep, type RecordedTarget } from "./flow_record.ts";

/** Steps one export writes at most (the oldest actions are kept; the rest are counted). */
const MAX_EXPORTED_STEPS = 500;

interface ExportedFlow {
  yaml: string;
  /** Flow steps written (launchApp included). */
  steps: number;
  /** Actions written as points (nothing else identified their element). */
  points: number;
  /** Variables the flow needs (`PASSWORD`): pass them to run_ui_flow's env. */
  variables: string[];
  /** Actions left out, with why. */
  skipped: { tool: string; why: string }[];
}

interface ExportAction {
  tool: string;
  step: RecordedStep | null;
}

const q = (s: string) => JSON.stringify(s);

function selectorLines(sel: FlowSelector, indent: string): string[] {
  const out: string[] = [];
  if (sel.id !== undefined) out.push(`${indent}id: ${q(sel.id)}`);
  if (sel.text !== undefined) out.push(`${indent}text: ${q(sel.text)}`);
  if (sel.index !== undefined) out.push(`${indent}index: ${sel.index}`);
  return out;
}

function targetLines(cmd: string, t: RecordedTarget): { lines: string[]; point: boolean } | null {
  if (t.selector) {
    return { lines: [`- ${cmd}:`, ...selectorLines(t.selector, "    ")], point: false };
  }
  if (t.x === null || t.y === null) return null;
  return {
    lines: [
      `# ${cmd} at (${t.x},${t.y}): no id, text or description identified the element`,
      `- ${cmd}:`,
      `    point: "${t.x}, ${t.y}"`,
    ],
    point: true,
  };
}

/** The flow for `actions` (oldest first) of app `appId`. */
// deno-lint-ignore house/long-function -- one case per recorded action kind, in order
export function exportFlow(
  appId: string,
  actions: readonly ExportAction[],
  header: string,
): ExportedFlow {
  const lines: string[] = [];
  const variables = new Set<string>();
  const skipped: ExportedFlow["skipped"] = [];
  let steps = 0;
  let points = 0;
  const push = (l: string[], n = 1) => {
    appendAll(lines, l);
    steps += n;
  };
  const first = actions.find((a) => a.step !== null)?.step;
  if (first?.do !== "launch") push(["- launchApp"]);
  for (const a of actions) {
    if (steps >= MAX_EXPORTED_STEPS) {
      skipped.push({ tool: a.tool, why: `past ${MAX_EXPORTED_STEPS} steps` });
      continue;
    }
    const s = a.step;
    if (!s) {
      skipped.push({ tool: a.tool, why: "not a UI step a flow replays" });
      continue;
    }
    switch (s.do) {
      case "tap":
      case "long_press": {
        const t = targetLines(s.do === "tap" ? "tapOn" : "longPressOn", s.target);
        if (!t) {
          skipped.push({ tool: a.tool, why: "no element or point was recorded" });
          break;
        }
        if (t.point) points++;
        push(t.lines);
        break;
      }
      case "type": {
        if (s.target) {
          const t = targetLines("tapOn", s.target);
          if (!t) {
            skipped.push({ tool: a.tool, why: "no field or point was recorded" });
            break;
          }
          if (t.point) points++;
          push(t.lines);
        }
        if (s.clear) push(["- eraseText"]);
        if (s.secret) {
          variables.add(s.secret);
          push([`- inputText: \${${s.secret}}`]);
        } else if (s.text) push([`- inputText: ${q(s.text)}`]);
        break;
      }
      case "key": {
        const name = maestroKey(s.key);
        if (name === "Back") push(["- back"]);
        else if (name) push([`- pressKey: ${name}`]);
        else skipped.push({ tool: a.tool, why: `key ${s.key} has no Maestro pressKey name` });
        break;
      }
      case "hide_keyboard":
        push(["- hideKeyboard"]);
        break;
      case "swipe":
        push([
          "- swipe:",
          `    start: "${s.from[0]}, ${s.from[1]}"`,
          `    end: "${s.to[0]}, ${s.to[1]}"`,
          ...(s.ms !== null ? [`    duration: ${s.ms}`] : []),
        ]);
        break;
      case "launch":
        push(
          s.package === appId && !s.clear ? ["- launchApp"] : [
            "- launchApp:",
            ...(s.package !== appId ? [`    appId: ${q(s.package)}`] : []),
            ...(s.clear ? ["    clearState: true"] : []),
          ],
        );
        break;
      case "stop":
        push([s.package === appId ? "- stopApp" : `- stopApp: ${q(s.package)}`]);
        break;
      case "open_link":
        push([`- openLink: ${q(s.uri)}`]);
        break;
    }
  }
  const yaml = [
    ...header.split("\n").map((l) => `# ${l}`),
    `appId: ${appId}`,
    "---",
    ...lines,
    "",
  ].join("\n");
  return { yaml, steps, points, variables: [...variables], skipped };
}
