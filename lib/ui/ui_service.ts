/**
 * The UI worker's service: captures through one lock set, and per device the latest element list
 * (what handles mean) and the latest capture (the baseline for settling). workers/ui.ts serves it
 * over the worker channel; tests call it directly with a fake ADB.
 */
import { ABORTED, delay, raceAbort } from "../core/abortable.ts";
import { UiAutomatorLocks } from "./automator_lock.ts";
import { type Capture, captureHierarchy, DumpFormMemory, type UiAdb } from "./capture.ts";
import { buildElementList, formatElementList } from "./element_list.ts";
import { type Foreground, formatActivity, readForeground } from "./foreground.ts";
import { HandleTable, nodeInfo, parseTarget, resolveTarget } from "./handles.ts";
import type { UiTree } from "./hierarchy.ts";
import type {
  CaptureInfo,
  CompareParams,
  CompareResult,
  FindParams,
  FindResult,
  FlowFindParams,
  FlowFindResult,
  Match,
  ObserveParams,
  ObserveResult,
  ResolveParams,
  ResolveResult,
  SettleParams,
  SettleResultMessage,
  TreeParams,
  TreeResult,
  WaitParams,
  WaitResult,
} from "./shared/protocol.ts";
import { hashOutside } from "./screen_hash.ts";
import { isLoading } from "./screen_parts.ts";
import { findNodes, validateSelector } from "./selectors.ts";
import { settle, SettleTracker } from "./settle.ts";
import type { ElementList } from "./shared/element_types.ts";
import { compareLists } from "./compare.ts";
import { FlowMatcher, selectorFor } from "./flows/flow_match.ts";
import { DEFAULT_COMPARE_RESULTS } from "./shared/limits.ts";
import { DEFAULT_WAIT_TIMEOUT_MS, MAX_WAIT_TIMEOUT_MS } from "./shared/limits.ts";

export { instrumentationBusyError } from "./shared/busy.ts";

/** Nodes `ui.tree` returns, at most. */
const MAX_TREE_RESULT_NODES = 5_000;
/** XML characters `ui.tree` returns, at most. */
const MAX_XML_RESULT_CHARS = 2 * 1024 * 1024;
/** Pause between captures while waiting. */
const DEFAULT_WAIT_POLL_MS = 250;
const MAX_WAIT_POLL_MS = 5_000;
/** Devices whose last capture is kept. */
const MAX_CAPTURED_DEVICES = 32;
/** Plain reads of one device asked within this many ms of each other share one capture. */
const CAPTURE_MERGE_MS = 25;

/** A capture plain reads share (see UiService.#readCapture). */
interface SharedCapture {
  at: number;
  ctl: AbortController;
  waiters: number;
  promise: Promise<Capture>;
}

interface UiServiceOptions {
  adb: UiAdb;
  dataDir: string;
  /** Shared lock set (tests give two services one to act as two processes' worth). */
  locks?: UiAutomatorLocks;
  now?: () => number;
  /**
   * A small frame's hash for `serial` (an emulator's gRPC frame), or null when it has none: the
   * cheap "did the pixels change" signal between captures while settling.
   */
  frameHash?: (serial: string, signal: AbortSignal) => Promise<string | null>;
}

export interface CallContext {
  signal: AbortSignal;
  progress?: (progress: number, total?: number, message?: string) => void;
}

function info(c: Capture): CaptureInfo {
  return {
    screenHash: c.hash,
    form: c.form,
    attempts: c.attempts,
    captureMs: c.captureMs,
    nodes: c.tree.nodes.length,
    truncated: c.tree.truncated,
    repairs: [...c.tree.repairs],
  };
}

export class UiService {
  readonly locks: UiAutomatorLocks;
  #adb: UiAdb;
  #forms = new DumpFormMemory();
  #handles = new HandleTable();
  #last = new Map<string, Capture>();
  #pending = new Map<string, SharedCapture>();
  /** Per device, the last list a tool showed the agent (what compare_ui_state compares with). */
  #shown = new Map<string, ElementList>();
  #frameHash: UiServiceOptions["frameHash"];

  constructor(opts: UiServiceOptions) {
    this.#adb = opts.adb;
    this.#frameHash = opts.frameHash;
    this.locks = opts.locks ?? new UiAutomatorLocks(opts.dataDir);
  }

  /** One capture; remembered as the device's latest. */
  async capture(serial: string, signal: AbortSignal): Promise<Capture> {
    const c = await captureHierarchy(this.#adb, serial, {
      locks: this.locks,
      forms: this.#forms,
      signal,
    });
    this.#last.delete(serial);
    this.#last.set(serial, { ...c, xml: "" });
    while (this.#last.size > MAX_CAPTURED_DEVICES) {
      const oldest = this.#last.keys().next().value;
      if (oldest === undefined) break;
      this.#last.delete(oldest);
    }
    return c;
  }

  /**
   * A capture for a plain read (observe, tree, find). Reads of one device that arrive within
   * CAPTURE_MERGE_MS of each other share one capture: the later ones join the pending one instead
   * of queueing a dump of the same screen behind it. Settling and waiting never share: they
   * exist to see a change.
   */
  async #readCapture(serial: string, signal: AbortSignal): Promise<Capture> {
    const now = performance.now();
    let shared = this.#pending.get(serial);
    if (shared === undefined || now - shared.at > CAPTURE_MERGE_MS) {
      const ctl = new AbortController();
      const entry: SharedCapture = { at: now, ctl, waiters: 0, promise: Promise.resolve(null!) };
      entry.promise = this.capture(serial, ctl.signal).finally(() => {
        if (this.#pending.get(serial) === entry) this.#pending.delete(serial);
      });
      this.#pending.set(serial, entry);
      shared = entry;
    }
    const mine = shared;
    mine.waiters++;
    let done = false;
    try {
      const got = await raceAbort(mine.promise, signal);
      done = true;
      if (got === ABORTED) throw signal.reason;
      return got;
    } finally {
      mine.waiters--;
      // The last one waiting gave up: stop the capture (as a single caller's cancel would).
      if (mine.waiters === 0 && !done) {
        if (this.#pending.get(serial) === mine) this.#pending.delete(serial);
        mine.ctl.abort(signal.reason);
      }
    }
  }

  async #list(
    serial: string,
    c: Capture,
    maxRows?: number,
    activity: boolean | Promise<Foreground | null> = true,
    signal?: AbortSignal,
  ) {
    const fg = activity === false
      ? null
      : activity === true
      ? await readForeground(this.#adb, serial, signal)
      : await activity;
    const list = buildElementList(c.tree, {
      maxRows,
      screenHash: c.hash,
      activity: fg ? formatActivity(fg) : null,
    });
    this.#handles.remember(serial, list);
    return list;
  }

  async observe(p: ObserveParams, ctx: CallContext): Promise<ObserveResult> {
    // The foreground activity is asked for beside the dump, not after it (it never fails: a
    // failure is "unknown").
    const activity = (p.activity ?? true) ? readForeground(this.#adb, p.serial, ctx.signal) : false;
    const c = await this.#readCapture(p.serial, ctx.signal);
    const list = await this.#list(p.serial, c, p.maxRows, activity, ctx.signal);
    if (!p.internal) this.#show(p.serial, list);
    return { list, text: formatElementList(list), capture: info(c) };
  }

  /** Remembers `list` as shown; returns the one shown before it. */
  #show(serial: string, list: ElementList): ElementList | null {
    const before = this.#shown.get(serial) ?? null;
    this.#shown.delete(serial);
    this.#shown.set(serial, list);
    while (this.#shown.size > MAX_CAPTURED_DEVICES) {
      const oldest = this.#shown.keys().next().value;
      if (oldest === undefined) break;
      this.#shown.delete(oldest);
    }
    return before;
  }

  /** compare_ui_state: the screen now against the last list shown for the device. */
  async compare(p: CompareParams, ctx: CallContext): Promise<CompareResult> {
    const activity = readForeground(this.#adb, p.serial, ctx.signal);
    const c = await this.#readCapture(p.serial, ctx.signal);
    const list = await this.#list(p.serial, c, p.maxRows, activity, ctx.signal);
    const before = this.#show(p.serial, list);
    return {
      list,
      text: formatElementList(list),
      beforeScreenHash: before?.screenHash ?? null,
      diff: before ? compareLists(before, list, p.limit ?? DEFAULT_COMPARE_RESULTS) : null,
    };
  }

  async tree(p: TreeParams, ctx: CallContext): Promise<TreeResult> {
    const c = await this.#readCapture(p.serial, ctx.signal);
    const max = Math.min(MAX_TREE_RESULT_NODES, Math.max(1, p.maxNodes ?? MAX_TREE_RESULT_NODES));
    return {
      screenHash: c.hash,
      rotation: c.tree.rotation,
      width: c.tree.width,
      height: c.tree.height,
      nodes: c.tree.nodes.slice(0, max).map((n) => nodeInfo(c.tree, n)),
      total: c.tree.nodes.length,
      xml: p.xml ? c.xml.slice(0, MAX_XML_RESULT_CHARS) : null,
      capture: info(c),
    };
  }

  #match(serial: string, tree: UiTree, hash: string, id: number): Match {
    const latest = this.#handles.latest(serial);
    const node = tree.nodes[id];
    const row = latest?.screenHash === hash ? latest.rows.find((r) => r.node === id) : undefined;
    // A listed node's point is its row's: where a tap lands on it, not its bounds' center.
    const at = row ? { x: row.x, y: row.y } : {};
    return { ...nodeInfo(tree, node), ...at, handle: row?.handle ?? null };
  }

  async find(p: FindParams, ctx: CallContext): Promise<FindResult> {
    const selector = validateSelector(p.selector);
    const c = await this.#readCapture(p.serial, ctx.signal);
    const found = findNodes(c.tree, selector, p.limit);
    return {
      screenHash: c.hash,
      matches: found.nodes.map((id) => this.#match(p.serial, c.tree, c.hash, id)),
      total: found.total,
      capture: info(c),
    };
  }

  async resolve(p: ResolveParams, ctx: CallContext): Promise<ResolveResult> {
    const target = parseTarget(p.target);
    const c = await this.capture(p.serial, ctx.signal);
    const r = resolveTarget(
      c.tree,
      c.hash,
      target,
      this.#handles.latest(p.serial),
      p.expectScreenHash,
    );
    return {
      screenHash: c.hash,
      node: this.#match(p.serial, c.tree, c.hash, r.node.id),
      x: r.x,
      y: r.y,
      tap: r.tap,
      coveredBy: r.coveredBy ? this.#match(p.serial, c.tree, c.hash, r.coveredBy.id) : null,
      flowSelector: selectorFor(c.tree, r.node.id),
      capture: info(c),
    };
  }

  async settle(p: SettleParams, ctx: CallContext): Promise<SettleResultMessage> {
    const touched = p.touched ?? null;
    const base = (p.baseline ?? "last") === "last" ? this.#last.get(p.serial) : undefined;
    const tracker = new SettleTracker(
      base ? hashOutside(base.tree, touched, base.statusBar) : null,
      p.options,
    );
    const frameHash = this.#frameHash;
    const result = await settle(tracker, {
      signal: ctx.signal,
      frames: frameHash ? { hash: (signal) => frameHash(p.serial, signal) } : null,
      capture: async (signal) => {
        const c = await this.capture(p.serial, signal);
        return {
          c,
          hash: c.hash,
          outsideHash: hashOutside(c.tree, touched, c.statusBar),
          loading: isLoading(c.tree, c.statusBar),
        };
      },
    });
    const c = result.capture.c;
    const list = await this.#list(p.serial, c, p.maxRows, p.activity ?? true, ctx.signal);
    if (!p.internal) this.#show(p.serial, list);
    return {
      list,
      text: formatElementList(list),
      capture: info(c),
      settleMs: result.settleMs,
      settled: result.settled,
      reason: result.reason,
      responded: result.responded,
      captures: result.captures,
      frames: result.frames,
      settledBy: result.settledBy,
    };
  }

  async wait(p: WaitParams, ctx: CallContext): Promise<WaitResult> {
    const selector = validateSelector(p.selector);
    const timeoutMs = Math.min(
      MAX_WAIT_TIMEOUT_MS,
      Math.max(0, p.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS),
    );
    const pollMs = Math.min(MAX_WAIT_POLL_MS, Math.max(0, p.pollMs ?? DEFAULT_WAIT_POLL_MS));
    const started = performance.now();
    let captures = 0;
    while (true) {
      const c = await this.capture(p.serial, ctx.signal);
      captures++;
      const found = findNodes(c.tree, selector, p.limit);
      const met = p.gone ? found.total === 0 : found.total > 0;
      const elapsedMs = Math.round(performance.now() - started);
      if (met || elapsedMs >= timeoutMs) {
        return {
          met,
          elapsedMs,
          captures,
          screenHash: c.hash,
          matches: found.nodes.map((id) => this.#match(p.serial, c.tree, c.hash, id)),
          total: found.total,
        };
      }
      ctx.progress?.(elapsedMs, timeoutMs, `waiting (${captures} captures)`);
      await delay(Math.min(pollMs, Math.max(0, timeoutMs - elapsedMs)), ctx.signal);
    }
  }

  /**
   * A flow step's element (lib/ui/flows/): capture until the selector's condition holds or the
   * timeout passes; the visibility and tap point are the element list's (occlusion.ts).
   */
  async flowFind(p: FlowFindParams, ctx: CallContext): Promise<FlowFindResult> {
    const timeoutMs = Math.min(MAX_WAIT_TIMEOUT_MS, Math.max(0, p.timeoutMs));
    const pollMs = Math.min(MAX_WAIT_POLL_MS, Math.max(0, p.pollMs ?? DEFAULT_WAIT_POLL_MS));
    const started = performance.now();
    let captures = 0;
    while (true) {
      const c = await this.capture(p.serial, ctx.signal);
      captures++;
      const m = new FlowMatcher(c.tree).match(p.selector);
      const visible = m.matches.filter((x) => x.tap.kind === "visible");
      const tappable = m.matches.find((x) => x.tap.kind !== "hidden");
      const met = p.want === "gone"
        ? visible.length === 0
        : p.want === "visible"
        ? visible.length > 0
        : tappable !== undefined;
      const elapsedMs = Math.round(performance.now() - started);
      if (met || elapsedMs >= timeoutMs) {
        const pick = (p.want === "tappable" ? tappable : visible[0]) ?? m.matches[0];
        const tap = pick?.tap ?? null;
        const by = tap?.kind === "hidden" && tap.by >= 0 ? tap.by : -1;
        const at = tap && tap.kind !== "hidden" ? { x: tap.x, y: tap.y } : null;
        const match = pick ? this.#match(p.serial, c.tree, c.hash, pick.node.id) : null;
        return {
          met,
          elapsedMs,
          captures,
          screenHash: c.hash,
          screen: { width: c.tree.width, height: c.tree.height, rotation: c.tree.rotation },
          match,
          x: at?.x ?? match?.x ?? 0,
          y: at?.y ?? match?.y ?? 0,
          tap: tap?.kind ?? null,
          coveredBy: by >= 0 ? this.#match(p.serial, c.tree, c.hash, by) : null,
          total: m.total,
          visible: visible.length,
        };
      }
      ctx.progress?.(elapsedMs, timeoutMs, `waiting (${captures} captures)`);
      await delay(Math.min(pollMs, Math.max(0, timeoutMs - elapsedMs)), ctx.signal);
    }
  }

  /**
   * The screen as the agent last saw it (rotation and rotated size of the latest capture); one
   * capture when there is none yet. What gestures map from.
   */
  async screen(serial: string, signal: AbortSignal) {
    const c = this.#last.get(serial) ?? await this.capture(serial, signal);
    return { rotation: c.tree.rotation, width: c.tree.width, height: c.tree.height };
  }

  /** The latest list of `serial` (what its handles mean), or `null`. */
  latestList(serial: string): ElementList | null {
    return this.#handles.latest(serial);
  }

  forget(serial: string): void {
    this.#handles.forget(serial);
    this.#shown.delete(serial);
    this.#last.delete(serial);
  }
}
