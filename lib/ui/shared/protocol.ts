/**
 * The UI worker's messages (workers/ui.ts ↔ lib/ui/shared/client.ts). The worker owns UI Automator
 * captures, the per-device lock, each device's latest element list (what handles mean) and its
 * latest capture (the baseline for settling). Everything here is plain data.
 */
import type { Bounds } from "./bounds.ts";
import type { ElementList } from "./element_types.ts";
import type { ActParams, ActResult } from "./act_types.ts";
import type {
  CaptureInfo,
  CompareDiff,
  Match,
  ObserveResult,
  SettleResultMessage,
} from "./result_types.ts";
import type { NodeInfo, TapState } from "./node_types.ts";
import type { UiSelector } from "./selector_rules.ts";
import type { FlowSelector } from "./flows/flow_selector.ts";
import type {
  FastScreenshotParams,
  FastScreenshotResult,
  PathResult,
  RotateParams,
} from "./fast_path_types.ts";

export type { CaptureInfo, Match, ObserveResult, SettleResultMessage };

/** How long settling may take and what counts as quiet (lib/ui/settle.ts applies it). */
export interface SettleOptions {
  maxMs?: number;
  quietMs?: number;
  responseWaitMs?: number;
  loadingWaitMs?: number;
}

export interface ObserveParams {
  serial: string;
  /** Rows to show (default 80, max 500). */
  maxRows?: number;
  /** Ask the device for its resumed activity too (one more command). Default true. */
  activity?: boolean;
  /** A step of a longer tool: not remembered as the list shown to the agent. */
  internal?: boolean;
}

export interface TreeParams {
  serial: string;
  /** Nodes returned, at most (default and max MAX_TREE_RESULT_NODES). */
  maxNodes?: number;
  /** Include the parsed (sanitized) XML, cut at MAX_XML_RESULT_CHARS. */
  xml?: boolean;
}

export interface TreeResult {
  screenHash: string;
  rotation: number;
  width: number;
  height: number;
  /** In document order; `total` may be larger. */
  nodes: NodeInfo[];
  total: number;
  xml: string | null;
  capture: CaptureInfo;
}

export interface FindParams {
  serial: string;
  selector: UiSelector;
  /** Default 20, max 100. */
  limit?: number;
}

export interface FindResult {
  screenHash: string;
  matches: Match[];
  total: number;
  capture: CaptureInfo;
}

export interface ResolveParams {
  serial: string;
  /** A handle (`e7`) or a tree path (`0.1.2`). */
  target: string;
  expectScreenHash?: string | null;
}

export interface ResolveResult {
  screenHash: string;
  node: Match;
  /** Where a tap on it lands (see `tap`). */
  x: number;
  y: number;
  /** `visible`, `under-keyboard` (hide the keyboard first) or `hidden` (see lib/ui/handles.ts). */
  tap: TapState;
  /** What covers a hidden element, when something does. */
  coveredBy: Match | null;
  /** The Maestro selector that names this element on this screen (a flow's), or null. */
  flowSelector?: FlowSelector | null;
  capture: CaptureInfo;
}

export interface SettleParams {
  serial: string;
  /** The touched element's bounds: changes inside it do not count as the response. */
  touched?: Bounds | null;
  /** Compare against the device's last capture (default) or assume it responded already. */
  baseline?: "last" | "none";
  options?: SettleOptions;
  maxRows?: number;
  activity?: boolean;
  /** A step of a longer tool: not remembered as the list shown to the agent. */
  internal?: boolean;
}

export interface WaitParams {
  serial: string;
  selector: UiSelector;
  /** Default 15 s, max 30 s. */
  timeoutMs?: number;
  /** Wait until nothing matches instead. */
  gone?: boolean;
  /** Between captures; default 250 ms. */
  pollMs?: number;
  limit?: number;
}

export interface WaitResult {
  /** The condition held before the timeout. */
  met: boolean;
  elapsedMs: number;
  captures: number;
  screenHash: string;
  matches: Match[];
  total: number;
}

/** What `ui.flowFind` waits for (a Maestro selector, lib/ui/shared/flows/flow_selector.ts). */
type FlowWant =
  /** A match nothing covers. */
  | "visible"
  /** No match nothing covers. */
  | "gone"
  /** A match a tap can land on (uncovered, or only under the keyboard). */
  | "tappable";

export interface FlowFindParams {
  serial: string;
  selector: FlowSelector;
  want: FlowWant;
  /** 0: one capture. Max MAX_WAIT_TIMEOUT_MS. */
  timeoutMs: number;
  pollMs?: number;
}

export interface FlowFindResult {
  met: boolean;
  elapsedMs: number;
  captures: number;
  screenHash: string;
  screen: { width: number; height: number; rotation: number };
  /** The match the condition names (the first tappable or visible one), else the first one. */
  match: Match | null;
  /** Where a tap on `match` lands and whether it can. */
  x: number;
  y: number;
  tap: TapState | null;
  coveredBy: Match | null;
  /** Nodes that match; of them, those nothing covers. */
  total: number;
  visible: number;
}

export interface ScreenshotParams {
  serial: string;
  /** Long edge of the returned image (default 1,280); ignored with `fullSize`. */
  maxDimension?: number;
  fullSize?: boolean;
}

export interface CompareParams {
  serial: string;
  maxRows?: number;
  /** Changes listed per kind. */
  limit?: number;
}

export interface CompareResult {
  list: ElementList;
  text: string;
  /** The screen hash of the list shown before; null when there was none (this is the baseline). */
  beforeScreenHash: string | null;
  diff: CompareDiff | null;
}

export interface LookParams extends ObserveParams {
  /** The picture's long edge in pixels (default DEFAULT_LOOK_DIMENSION). */
  maxDimension?: number;
}

export interface LookResult extends ObserveResult {
  image: FastScreenshotResult;
  /**
   * True when an emulator's small frames before and after showed the same screen; false when
   * they differed (something moved during the look); null where there are no frames (ADB).
   */
  still: boolean | null;
}

export type UiMethods = {
  /** A whole UI action: check, pace, act, settle (lib/ui/act_service.ts). */
  "ui.act": { params: ActParams; result: ActResult };
  /** compare_ui_state: the screen now against the last list shown (remembered in the worker). */
  "ui.compare": { params: CompareParams; result: CompareResult };
  "ui.observe": { params: ObserveParams; result: ObserveResult };
  /** The element list and a small picture of the same moment (lib/ui/look.ts). */
  "ui.look": { params: LookParams; result: LookResult };
  "ui.tree": { params: TreeParams; result: TreeResult };
  "ui.find": { params: FindParams; result: FindResult };
  "ui.resolve": { params: ResolveParams; result: ResolveResult };
  "ui.settle": { params: SettleParams; result: SettleResultMessage };
  "ui.wait": { params: WaitParams; result: WaitResult };
  /** Capture until a Maestro selector is visible, gone or tappable, or the timeout (flows). */
  "ui.flowFind": { params: FlowFindParams; result: FlowFindResult };
  /**
   * An emulator's gRPC frame (lib/ui/fast_paths.ts), else `screencap -p` downscaled in the worker
   * when larger than asked (lib/ui/screenshot.ts); PNG or JPEG.
   */
  "ui.screenshot": {
    params: ScreenshotParams & FastScreenshotParams;
    result: FastScreenshotResult;
  };
  /** Turns an emulator's body (`setPhysicalModel` ROTATION); `path: "adb"` when it cannot. */
  "ui.rotateBody": { params: RotateParams; result: PathResult };
  /** Drop what the worker remembers of a device (it went away). */
  "ui.forget": { params: { serial: string }; result: null };
};
