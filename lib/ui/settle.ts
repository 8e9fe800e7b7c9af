/**
 * Settling after an action: has the screen responded, and has it stopped changing?
 *
 * `SettleTracker` is the pure core: it is fed successive captures (their time, the whole-screen
 * hash, the hash of everything outside the touched element, and whether something is loading)
 * and says when to stop. `settle()` is the driver that captures until the tracker is done.
 *
 * The rules (after droidpilot's, with hierarchy captures instead of frames):
 * - A change inside the touched element (a ripple, a pressed state) is not the response; the
 *   screen has responded once something outside it differs from the capture before the action.
 *   Some actions only change the touched element (a checkbox): after `responseWaitMs` without a
 *   response elsewhere, the screen is taken as it is once stable.
 * - Stable: two successive captures with the same hash, `quietMs` apart or more.
 * - A visible progress bar or spinner keeps it waiting for up to `loadingWaitMs` more once the
 *   screen is otherwise stable (pages keep bars up for resources that never arrive); the list
 *   still says `loading`.
 * - Never longer than `maxMs` from the action: the last capture is returned, `settled: false`.
 * - With frames (an emulator's small gRPC frame hashes, lib/ui/fast_paths.ts), the driver watches
 *   the pixels between captures: a frame that changes means the screen is moving (the capture's
 *   repeat does not count as quiet, and the tree is captured again at once), and frames that stay
 *   the same for `frameQuietMs` after a responded, not-loading capture settle it once one more
 *   capture shows the same tree (a change that is not drawn, a focus or selection state, is not
 *   missed), without the quiet period two captures alone need. A static screen settles sooner,
 *   an animating one (pixels moving in a tree that looks the same) later.
 */
import { delay } from "../core/abortable.ts";
import { boundedInt } from "../core/bounds.ts";
import { MAX_SETTLE_MAX_MS } from "./shared/limits.ts";
import type { SettleReason } from "./shared/result_types.ts";
import type { SettleOptions } from "./shared/protocol.ts";

/** Whole settle, default. */
const DEFAULT_SETTLE_MAX_MS = 5_000;
/** How long the screen must look the same. */
const DEFAULT_SETTLE_QUIET_MS = 300;
/** How long to wait for a response outside the touched element. */
const DEFAULT_RESPONSE_WAIT_MS = 1_000;
/** How long a visible progress bar keeps a stable screen from counting as settled. */
const DEFAULT_LOADING_WAIT_MS = 2_000;
/** Pause between captures (a capture itself takes 100 ms or more on a device). */
const SETTLE_POLL_MS = 50;
/** Captures one settle may take. */
const MAX_SETTLE_CAPTURES = 120;
/** With frames: how long the pixels must stay the same after a capture. */
const DEFAULT_FRAME_QUIET_MS = 100;
/** With frames: pause between two frame hashes. */
const FRAME_POLL_MS = 40;
/** Frame hashes one settle may take. */
const MAX_SETTLE_FRAMES = 120;
/**
 * With frames: how long moving pixels may hold settling back. Past it frames stop vetoing (a
 * blinking cursor or a looping animation never stops) and the tree rule alone decides.
 */
export const FRAME_MOTION_MAX_MS = 1_500;

interface SettleObservation {
  /** Milliseconds since the action ended (when the capture completed). */
  atMs: number;
  hash: string;
  /** Hash of the screen outside the touched element (equal to `hash` without one). */
  outsideHash: string;
  loading: boolean;
}

interface SettleDecision {
  done: boolean;
  /** When done: why. */
  reason: SettleReason | null;
  /** Something outside the touched element changed (or there was no baseline). */
  responded: boolean;
}

function clamp(v: number | undefined, def: number, max: number): number {
  return boundedInt(v, def, 0, max);
}

function resolveSettleOptions(o: SettleOptions = {}): Required<SettleOptions> {
  const maxMs = clamp(o.maxMs, DEFAULT_SETTLE_MAX_MS, MAX_SETTLE_MAX_MS);
  return {
    maxMs,
    quietMs: clamp(o.quietMs, DEFAULT_SETTLE_QUIET_MS, maxMs),
    responseWaitMs: clamp(o.responseWaitMs, DEFAULT_RESPONSE_WAIT_MS, maxMs),
    loadingWaitMs: clamp(o.loadingWaitMs, DEFAULT_LOADING_WAIT_MS, MAX_SETTLE_MAX_MS),
  };
}

/** The pure core: feed captures in order, stop when `observe` says done. */
export class SettleTracker {
  readonly options: Required<SettleOptions>;
  #baselineOutside: string | null;
  #responded: boolean;
  #lastHash: string | null = null;
  #stableSince = 0;
  #loadingSince: number | null = null;

  /** `baselineOutsideHash`: the outside hash before the action; `null` when unknown. */
  constructor(baselineOutsideHash: string | null, options: SettleOptions = {}) {
    this.options = resolveSettleOptions(options);
    this.#baselineOutside = baselineOutsideHash;
    this.#responded = baselineOutsideHash === null;
  }

  get responded(): boolean {
    return this.#responded;
  }

  observe(o: SettleObservation): SettleDecision {
    const { maxMs, quietMs, responseWaitMs, loadingWaitMs } = this.options;
    if (!this.#responded && o.outsideHash !== this.#baselineOutside) {
      this.#responded = true;
      // The response starts a new screen: stability counts from here.
      this.#lastHash = null;
    }
    const repeated = this.#lastHash === o.hash;
    if (!repeated) {
      this.#lastHash = o.hash;
      this.#stableSince = o.atMs;
      this.#loadingSince = null;
    }
    const waitedForResponse = this.#responded || o.atMs >= responseWaitMs;
    const stable = repeated && o.atMs - this.#stableSince >= quietMs;
    if (waitedForResponse && stable) {
      if (!o.loading) return this.#done("stable");
      this.#loadingSince ??= o.atMs;
      if (o.atMs - this.#loadingSince >= loadingWaitMs) return this.#done("loading_timeout");
    }
    if (o.atMs >= maxMs) return this.#done("timeout");
    return { done: false, reason: null, responded: this.#responded };
  }

  /**
   * Frames changed after the capture at `atMs`: the screen is moving, so a repeat of that
   * capture's hash starts the quiet period again.
   */
  framesMoved(atMs: number): void {
    this.#stableSince = atMs;
  }

  /**
   * Frames stayed the same from the last capture until `atMs`: the capture is the screen now.
   * Done (`stable`) when it responded (or the response wait is over) and nothing loads.
   */
  framesQuiet(atMs: number, loading: boolean): SettleDecision {
    const { maxMs, responseWaitMs } = this.options;
    if ((this.#responded || atMs >= responseWaitMs) && !loading) return this.#done("stable");
    if (atMs >= maxMs) return this.#done("timeout");
    return { done: false, reason: null, responded: this.#responded };
  }

  #done(reason: SettleReason): SettleDecision {
    return { done: true, reason, responded: this.#responded };
  }
}

export interface SettleCapture {
  hash: string;
  outsideHash: string;
  loading: boolean;
}

interface SettleResult<C> {
  capture: C;
  /** Frame hashes taken between captures (0 without frames). */
  frames: number;
  /** What settled it: two equal captures (`tree`) or still frames after a capture (`frames`). */
  settledBy: "tree" | "frames" | null;
  /** From the start of settling to the end of the settled capture. */
  settleMs: number;
  settled: boolean;
  reason: SettleReason;
  responded: boolean;
  captures: number;
}

interface SettleFrames {
  /** A small frame's hash now; null when frames are unavailable (the driver stops asking). */
  hash(signal: AbortSignal): Promise<string | null>;
  quietMs?: number;
  pollMs?: number;
}

interface SettleDriver<C extends SettleCapture> {
  capture(signal: AbortSignal): Promise<C>;
  /** An emulator's frames between captures (optional). */
  frames?: SettleFrames | null;
  signal?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Captures until the tracker is done; returns the last capture. */
// deno-lint-ignore house/long-function -- each capture decides the next wait, deadline and answer
export async function settle<C extends SettleCapture>(
  tracker: SettleTracker,
  driver: SettleDriver<C>,
): Promise<SettleResult<C>> {
  const now = driver.now ?? (() => performance.now());
  const sleep = driver.sleep ?? delay;
  const signal = driver.signal ?? new AbortController().signal;
  let frames = driver.frames ?? null;
  const frameQuietMs = Math.max(0, frames?.quietMs ?? DEFAULT_FRAME_QUIET_MS);
  const framePollMs = Math.max(1, frames?.pollMs ?? FRAME_POLL_MS);
  const start = now();
  let captures = 0, frameCount = 0;
  const result = (capture: C, atMs: number, d: SettleDecision, by: "tree" | "frames") => {
    const reason = d.reason ?? "timeout";
    return {
      capture,
      settleMs: atMs,
      settled: reason === "stable",
      reason,
      responded: d.responded,
      captures,
      frames: frameCount,
      settledBy: reason === "stable" ? by : null,
    };
  };
  while (true) {
    const capture = await driver.capture(signal);
    captures++;
    const atMs = Math.round(now() - start);
    const d = tracker.observe({ atMs, ...pick(capture) });
    if (d.done || captures >= MAX_SETTLE_CAPTURES) return result(capture, atMs, d, "tree");
    if (!frames) {
      await sleep(SETTLE_POLL_MS, signal);
      continue;
    }
    // Watch the pixels until they move (capture again now) or stay still long enough.
    const first = await frames.hash(signal);
    frameCount++;
    if (first === null) {
      frames = null;
      continue;
    }
    const watchStart = now();
    let moved = false;
    while (now() - watchStart < frameQuietMs && frameCount < MAX_SETTLE_FRAMES) {
      await sleep(framePollMs, signal);
      const h = await frames.hash(signal);
      frameCount++;
      if (h === null) {
        frames = null;
        break;
      }
      if (h !== first) {
        moved = true;
        break;
      }
    }
    const at = Math.round(now() - start);
    if (moved) {
      if (at < FRAME_MOTION_MAX_MS) tracker.framesMoved(at);
      else frames = null; // perpetual motion: the tree decides from here
      continue;
    }
    if (!frames) continue;
    const q = tracker.framesQuiet(at, capture.loading);
    if (q.done && q.reason === "stable") {
      // Still pixels say nothing moved; one more capture confirms the tree did not change in a
      // way that is not drawn (a focus or selection state). Same hash: settled, without the
      // quiet period two captures alone need.
      const confirm = await driver.capture(signal);
      captures++;
      const at2 = Math.round(now() - start);
      const d2 = tracker.observe({ atMs: at2, ...pick(confirm) });
      if (confirm.hash === capture.hash) {
        return result(
          confirm,
          at2,
          { done: true, reason: "stable", responded: d2.responded },
          "frames",
        );
      }
      if (d2.done || captures >= MAX_SETTLE_CAPTURES) return result(confirm, at2, d2, "tree");
      continue;
    }
    if (q.done) return result(capture, at, q, "frames");
    if (at >= tracker.options.maxMs) return result(capture, at, q, "frames");
  }
}

function pick(c: SettleCapture): SettleCapture {
  return { hash: c.hash, outsideHash: c.outsideHash, loading: c.loading };
}
