/** A checked Maestro flow (flow_parse.ts makes it, flow_runner.ts runs it). Plain data. */
import type { FlowSelector } from "./flow_selector.ts";

/** The Maestro steps keynobi runs; anything else is refused before a flow runs. */
export const SUPPORTED_COMMANDS = [
  "launchApp",
  "stopApp",
  "clearState",
  "tapOn",
  "longPressOn",
  "inputText",
  "eraseText",
  "assertVisible",
  "assertNotVisible",
  "extendedWaitUntil",
  "scrollUntilVisible",
  "scroll",
  "swipe",
  "back",
  "pressKey",
  "hideKeyboard",
  "openLink",
  "waitForAnimationToEnd",
  "takeScreenshot",
  "runFlow",
  "repeat",
] as const;

export type SwipeDirection = "UP" | "DOWN" | "LEFT" | "RIGHT";

/** A point in device px, or in percent of the screen. */
export interface FlowPoint {
  x: number;
  y: number;
  percent: boolean;
}

export interface FlowCondition {
  visible: FlowSelector | null;
  notVisible: FlowSelector | null;
  /** `platform:` other than Android: the condition never holds. */
  never: boolean;
}

interface At {
  /** Line in `source` (null for steps inside inline `commands`). */
  line: number | null;
  /** The flow file (project-relative) or `inline`. */
  source: string;
}

export type FlowStep =
  & At
  & (
    | { cmd: "launchApp"; appId: string; clearState: boolean; stopApp: boolean }
    | { cmd: "stopApp" | "clearState"; appId: string }
    | {
      cmd: "tapOn";
      long: boolean;
      selector: FlowSelector | null;
      point: FlowPoint | null;
      optional: boolean;
      timeoutMs: number | null;
      label: string | null;
    }
    | { cmd: "inputText"; text: string }
    | { cmd: "eraseText"; count: number }
    | {
      cmd: "assertVisible" | "assertNotVisible";
      selector: FlowSelector;
      optional: boolean;
      timeoutMs: number | null;
    }
    | { cmd: "extendedWaitUntil"; visible: boolean; selector: FlowSelector; timeoutMs: number }
    | {
      cmd: "scrollUntilVisible";
      selector: FlowSelector;
      direction: SwipeDirection;
      timeoutMs: number;
    }
    | {
      cmd: "swipe";
      direction: SwipeDirection | null;
      start: FlowPoint | null;
      end: FlowPoint | null;
      durationMs: number;
      /** Maestro's `scroll` (a swipe up in the screen's middle). */
      scroll: boolean;
    }
    | { cmd: "back" | "hideKeyboard" }
    | { cmd: "pressKey"; key: string; name: string }
    | { cmd: "openLink"; link: string }
    | { cmd: "waitForAnimationToEnd"; timeoutMs: number }
    | { cmd: "takeScreenshot"; name: string }
    | { cmd: "runFlow"; name: string; when: FlowCondition | null; steps: FlowStep[] }
    | { cmd: "repeat"; times: number | null; while: FlowCondition | null; steps: FlowStep[] }
  );

export interface Flow {
  appId: string | null;
  name: string | null;
  source: string;
  steps: FlowStep[];
}

/** Every app id the flow's steps name (launchApp, stopApp, clearState), nested ones too. */
export function flowAppIds(steps: readonly FlowStep[], out = new Set<string>()): Set<string> {
  for (const s of steps) {
    if (s.cmd === "launchApp" || s.cmd === "stopApp" || s.cmd === "clearState") out.add(s.appId);
    if (s.cmd === "runFlow" || s.cmd === "repeat") flowAppIds(s.steps, out);
  }
  return out;
}
