/**
 * What a UI capture, find and settle answer: the result types `ui.act` (lib/ui/shared/act_types.ts) and
 * the worker protocol (lib/ui/shared/protocol.ts) both name. A leaf, so those two import it and not
 * each other.
 */
import type { ElementList, ElementRow } from "./element_types.ts";
import type { NodeInfo } from "./node_types.ts";

/** How the hierarchy was dumped: to the terminal, or to a file read back. */
export type DumpForm = "tty" | "file";

/** Why settling ended. */
export type SettleReason = "stable" | "loading_timeout" | "timeout";

export interface CaptureInfo {
  screenHash: string;
  form: DumpForm;
  attempts: number;
  captureMs: number;
  /** Nodes in the capture's tree. */
  nodes: number;
  /** The tree was cut at MAX_TREE_NODES / MAX_TREE_DEPTH. */
  truncated: boolean;
  /** What the XML sanitizer repaired. */
  repairs: string[];
}

export interface ObserveResult {
  list: ElementList;
  /** The list as the agent reads it (header + rows). */
  text: string;
  capture: CaptureInfo;
}

export interface Match extends NodeInfo {
  /**
   * The row's handle when the latest list shows this node on this screen; then `x`, `y` are the
   * row's tap point (inside it, uncovered), else the bounds' center.
   */
  handle: string | null;
}

export interface SettleResultMessage extends ObserveResult {
  settleMs: number;
  settled: boolean;
  reason: SettleReason;
  responded: boolean;
  captures: number;
  /** Frame hashes taken between captures (an emulator's gRPC frames; 0 elsewhere). */
  frames?: number;
  /** What settled it: two equal captures or still frames after one (null when not settled). */
  settledBy?: "tree" | "frames" | null;
}

/** compare_ui_state's diff of two element lists (lib/ui/compare.ts). */
export interface CompareDiff {
  sameScreen: boolean;
  added: ElementRow[];
  removed: ElementRow[];
  changed: { row: ElementRow; before: ElementRow; what: string[] }[];
  totals: { added: number; removed: number; changed: number };
}
