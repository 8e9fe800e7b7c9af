/**
 * The UI worker's emulator fast paths, each with its ADB fallback: screenshots (an RGB888 frame
 * from `getScreenshot`, encoded by lib/ui/png.ts, no PNG decode), gestures (`sendTouch`, with the
 * points mapped from the screen the agent saw to the display's natural orientation), the body's
 * rotation (`setPhysicalModel`) and keys (`sendKey` with an explicit event type). Every result
 * says which path ran and, when ADB ran on an emulator, why.
 */
import type { DeviceShell } from "../adb/client.ts";
import { delay } from "../core/abortable.ts";
import { ToolError } from "../core/errors.ts";
import type { EmulatorLink } from "../emulator/link.ts";
import type { Fallback } from "../emulator/shared/fallback.ts";
import { GrpcClientDied } from "../emulator/grpc_process.ts";
import type { EmulatorRpc, KeyboardEventMsg } from "../emulator/grpc_client.ts";
import {
  fitRgbFrame,
  frameHash,
  readRgbFrame,
  requestBounds,
  rgbToRgba,
  rotatedSize,
} from "../emulator/frames.ts";
import { SMALL_FRAME_DIMENSION } from "../emulator/shared/limits.ts";
import { FrameError } from "../emulator/frames.ts";
import {
  dragSteps,
  longPressSteps,
  mapSteps,
  pinchSteps,
  planPinch,
  type Point,
  swipeSteps,
  tapSteps,
  toNatural,
  type TouchStep,
} from "../emulator/touch.ts";
import type { PinchPlan } from "../emulator/shared/pinch_plan.ts";
import {
  drag as adbDrag,
  dragPath,
  longPressArgv,
  motionArgv,
  runInput,
  swipeArgv,
  tapArgv,
} from "./actions.ts";
import { encodePng } from "./png.ts";
import { encodeJpeg } from "./jpeg.ts";
import { captureScreenshot, DEFAULT_MAX_DIMENSION, type ScreenshotAdb } from "./screenshot.ts";

import {
  DEFAULT_JPEG_QUALITY,
  MAX_JPEG_QUALITY,
  MIN_JPEG_QUALITY,
} from "./shared/fast_path_limits.ts";
import type {
  FastScreenshotParams,
  FastScreenshotResult,
  GestureResult,
  PathResult,
  RotateParams,
} from "./shared/fast_path_types.ts";

export type Gesture =
  | { kind: "tap"; at: Point }
  | { kind: "long_press"; at: Point; ms: number }
  | { kind: "swipe"; from: Point; to: Point; ms: number; fling: boolean }
  | { kind: "pinch"; center: Point; scale: number; ms: number }
  | { kind: "drag"; path: Point[]; holdMs: number; moveMs: number; dwellMs: number };

interface GestureParams {
  serial: string;
  gesture: Gesture;
}

interface KeyParams {
  serial: string;
  /** KEYCODE_* name or a number, as validateKeyName returns it. */
  key: string;
}

/** What the fast paths need of the worker's UI service: the screen the agent last saw. */
interface ScreenSource {
  screen(serial: string, signal: AbortSignal): Promise<
    { rotation: number; width: number; height: number }
  >;
}

interface FastPathsOptions {
  link: EmulatorLink;
  adb: DeviceShell & ScreenshotAdb;
  screens: ScreenSource;
  /** Called when a fallback says the worker lacks a grant (the client restarts it). */
  onNotGranted?: (f: Fallback) => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Body rotation around z (degrees) for each quadrant (EMULATOR.md §4.2). */
const BODY_Z = [0, 90, 180, -90] as const;

/** Android key names → the DOM key names the emulator's `sendKey` takes (EMULATOR.md §4.5). */
const GRPC_KEY_NAMES: Record<string, string> = {
  KEYCODE_HOME: "GoHome",
  KEYCODE_BACK: "GoBack",
  KEYCODE_APP_SWITCH: "AppSwitch",
  KEYCODE_POWER: "Power",
  KEYCODE_ENTER: "Enter",
  KEYCODE_DEL: "Backspace",
  KEYCODE_FORWARD_DEL: "Delete",
  KEYCODE_TAB: "Tab",
  KEYCODE_ESCAPE: "Escape",
  KEYCODE_DPAD_UP: "ArrowUp",
  KEYCODE_DPAD_DOWN: "ArrowDown",
  KEYCODE_DPAD_LEFT: "ArrowLeft",
  KEYCODE_DPAD_RIGHT: "ArrowRight",
  KEYCODE_MOVE_HOME: "Home",
  KEYCODE_MOVE_END: "End",
  "3": "GoHome",
  "4": "GoBack",
  "66": "Enter",
  "67": "Backspace",
};

function pinchRefusal(serial: string, why: string): ToolError {
  return new ToolError(
    "invalid_request",
    `ui_pinch needs two fingers, and ${serial} has no multi-touch path: ${why}; ADB's input ` +
      "sends one pointer. Nothing was done: use the app's zoom controls, or an emulator",
    { serial },
  );
}

export class FastPaths {
  #o: FastPathsOptions;
  #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(o: FastPathsOptions) {
    this.#o = o;
    this.#sleep = o.sleep ?? delay;
  }

  #note(f: Fallback): Fallback {
    if (f.code === "not_granted") this.#o.onNotGranted?.(f);
    return f;
  }

  // ---- screenshots

  // deno-lint-ignore house/long-function -- the request, its checks, each fallback with its reason
  async screenshot(p: FastScreenshotParams, signal: AbortSignal): Promise<FastScreenshotResult> {
    const format = p.format ?? "png";
    const quality = Math.min(
      MAX_JPEG_QUALITY,
      Math.max(MIN_JPEG_QUALITY, Math.round(p.quality ?? DEFAULT_JPEG_QUALITY)),
    );
    const max = p.fullSize ? null : p.maxDimension ?? DEFAULT_MAX_DIMENSION;
    const started = performance.now();
    const r = await this.#o.link.run(p.serial, async (rpc) => {
      const natural = await this.#o.link.naturalSize(rpc, signal);
      const img = await rpc.getScreenshot(
        { format: "RGB888", ...requestBounds(max), display: 0 },
        { signal },
      );
      return { frame: readRgbFrame(img), natural };
    }, signal).catch((e) => {
      // A frame keynobi will not use (empty, malformed, over the bounds): ADB takes the picture.
      if (e instanceof FrameError) return { ok: false as const, fallback: frameFallback(e) };
      throw e;
    });
    if (r.ok) {
      const { natural } = r.value;
      // Never more than asked, nor than the display: an endpoint that answers a larger frame
      // than it was asked for is scaled down here.
      const limit = max ?? (natural ? Math.max(natural.width, natural.height) : null);
      const got = r.value.frame;
      const frame = limit === null ? got : fitRgbFrame(got, limit);
      const captureMs = performance.now() - started;
      const t1 = performance.now();
      const rgba = rgbToRgba(frame.rgb, frame.width, frame.height);
      const image = format === "jpeg"
        ? encodeJpeg({ width: frame.width, height: frame.height, data: rgba }, quality)
        : await encodePng({ width: frame.width, height: frame.height, data: rgba });
      const encodeMs = performance.now() - t1;
      const device = natural
        ? rotatedSize(natural, frame.rotation)
        : { width: got.width, height: got.height };
      const scale = Math.round(device.width / frame.width * 10_000) / 10_000;
      return {
        png: format === "png" ? image : new Uint8Array(0),
        image,
        mimeType: format === "jpeg" ? "image/jpeg" : "image/png",
        deviceWidth: device.width,
        deviceHeight: device.height,
        imageWidth: frame.width,
        imageHeight: frame.height,
        scale,
        original: false,
        captureBytes: got.rgb.length,
        path: "grpc",
        fallback: null,
        rotation: frame.rotation,
        captureMs: Math.round(captureMs * 10) / 10,
        encodeMs: Math.round(encodeMs * 10) / 10,
      };
    }
    const fallback = r.fallback.code === "not_emulator" ? null : this.#note(r.fallback);
    const shot = await captureScreenshot(this.#o.adb, p.serial, {
      maxDimension: p.maxDimension,
      fullSize: p.fullSize,
      signal,
    });
    const captureMs = performance.now() - started;
    let image = shot.png;
    let encodeMs = 0;
    if (format === "jpeg") {
      const t1 = performance.now();
      const { decodePng } = await import("./png.ts");
      image = encodeJpeg(await decodePng(shot.png), quality);
      encodeMs = performance.now() - t1;
    }
    return {
      ...shot,
      png: format === "png" ? shot.png : new Uint8Array(0),
      image,
      mimeType: format === "jpeg" ? "image/jpeg" : "image/png",
      path: "adb",
      fallback,
      rotation: null,
      captureMs: Math.round(captureMs * 10) / 10,
      encodeMs: Math.round(encodeMs * 10) / 10,
    };
  }

  /** A small frame's hash (gRPC only): the cheap "did anything change" signal for settling. */
  async frameHash(
    serial: string,
    signal: AbortSignal,
  ): Promise<{ hash: string; path: "grpc" } | { hash: null; fallback: Fallback }> {
    const r = await this.#o.link.run(serial, async (rpc) => {
      const img = await rpc.getScreenshot(
        { format: "RGB888", ...requestBounds(SMALL_FRAME_DIMENSION), display: 0 },
        { signal },
      );
      return frameHash(fitRgbFrame(readRgbFrame(img), SMALL_FRAME_DIMENSION));
    }, signal).catch((e) => {
      if (e instanceof FrameError) return { ok: false as const, fallback: frameFallback(e) };
      throw e;
    });
    return r.ok ? { hash: r.value, path: "grpc" } : { hash: null, fallback: r.fallback };
  }

  // ---- gestures

  async gesture(p: GestureParams, signal: AbortSignal): Promise<GestureResult> {
    const g = p.gesture;
    const started = performance.now();
    const r = await this.#o.link.run(p.serial, async (rpc) => {
      const screen = await this.#o.screens.screen(p.serial, signal);
      let pinch: PinchPlan | undefined;
      let steps: TouchStep[];
      switch (g.kind) {
        case "tap":
          steps = tapSteps(g.at);
          break;
        case "long_press":
          steps = longPressSteps(g.at, g.ms);
          break;
        case "swipe":
          steps = swipeSteps(g.from, g.to, g.ms, g.fling);
          break;
        case "pinch":
          pinch = planPinch(g.center, g.scale, screen);
          steps = pinchSteps(pinch, g.ms);
          break;
        case "drag":
          steps = dragSteps(g);
          break;
      }
      const natural = await this.#o.link.naturalSize(rpc, signal);
      const mapped = mapSteps(
        steps,
        (q) => toNatural(q, screen.rotation, screen.width, screen.height, natural),
      );
      await this.#runSteps(rpc, mapped, signal);
      return { events: mapped.length, pinch };
    }, signal);
    if (r.ok) {
      return {
        path: "grpc",
        fallback: null,
        method: "sendTouch",
        events: r.value.events,
        durationMs: Math.round(performance.now() - started),
        ...(r.value.pinch ? { pinch: r.value.pinch } : {}),
      };
    }
    const fallback = r.fallback.code === "not_emulator" ? null : this.#note(r.fallback);
    const adb = await this.#adbGesture(p.serial, g, fallback, signal);
    return { ...adb, path: "adb", fallback, durationMs: Math.round(performance.now() - started) };
  }

  /**
   * Sends the steps; the first failing before anything reached the device falls back (the
   * caller sees a GrpcFailure); a failure or cancellation midway lifts every finger first.
   */
  async #runSteps(rpc: EmulatorRpc, steps: TouchStep[], signal: AbortSignal): Promise<void> {
    let sent = 0;
    const down = new Map<number, { x: number; y: number }>();
    try {
      for (const s of steps) {
        try {
          await rpc.sendTouch(s.event, { signal });
        } catch (e) {
          // The client process died (it may or may not have sent the event): the next call runs
          // in a new one, and sending the same contact state twice is harmless (the same point
          // again for a finger that is down; an unknown finger's lift is ignored).
          if (!(e instanceof GrpcClientDied) || signal.aborted) throw e;
          await rpc.sendTouch(s.event, { signal });
        }
        sent++;
        for (const t of s.event.touches) {
          if (t.pressure > 0) down.set(t.identifier, { x: t.x, y: t.y });
          else down.delete(t.identifier);
        }
        if (s.afterMs > 0) await this.#sleep(s.afterMs, signal);
      }
    } catch (e) {
      if (sent === 0 && !signal.aborted) throw e;
      if (down.size > 0) {
        await rpc.sendTouch({
          touches: [...down].map(([id, q]) => ({ ...q, identifier: id, pressure: 0 })),
          display: 0,
        }).catch(() => {});
      }
      if (signal.aborted) throw signal.reason ?? e;
      throw new ToolError(
        "command_failed",
        `The gesture stopped after ${sent} of ${steps.length} touch events (${
          (e as Error).message
        }); the fingers were lifted. Read the screen again and retry`,
        { sent, total: steps.length },
      );
    }
  }

  async #adbGesture(
    serial: string,
    g: Gesture,
    fallback: Fallback | null,
    signal: AbortSignal,
  ): Promise<{ method: string; events: number }> {
    const adb = this.#o.adb;
    switch (g.kind) {
      case "tap":
        await runInput(adb, serial, tapArgv(g.at), signal);
        return { method: "input tap", events: 1 };
      case "long_press":
        await runInput(adb, serial, longPressArgv(g.at, g.ms), signal);
        return { method: "input swipe", events: 1 };
      case "swipe":
        if (g.fling) {
          await runInput(adb, serial, swipeArgv(g.from, g.to, g.ms), signal);
          return { method: "swipe", events: 1 };
        } else {
          const d = await adbDrag(adb, serial, g.from, g.to, g.ms, signal);
          return { method: d.method, events: d.method === "swipe" ? 1 : 6 };
        }
      case "pinch":
        throw pinchRefusal(serial, fallback ? fallback.reason : "it is not an emulator");
      case "drag":
        return await this.#adbHoldDrag(serial, g, signal);
    }
  }

  /**
   * Press, hold, move, dwell, lift with `input motionevent`; a device without motionevent gets
   * `input draganddrop` (its own long-press hold, straight line to the end) where it has one.
   */
  async #adbHoldDrag(
    serial: string,
    g: Extract<Gesture, { kind: "drag" }>,
    signal: AbortSignal,
  ): Promise<{ method: string; events: number }> {
    const adb = this.#o.adb;
    const first = g.path[0], last = g.path[g.path.length - 1];
    try {
      await runInput(adb, serial, motionArgv("DOWN", first), signal);
    } catch (e) {
      if (!(e instanceof ToolError && e.code === "command_failed")) throw e;
      try {
        await runInput(adb, serial, [
          "input",
          "draganddrop",
          String(first.x),
          String(first.y),
          String(last.x),
          String(last.y),
          String(Math.round(g.moveMs)),
        ], signal);
        return { method: "draganddrop", events: 1 };
      } catch (e2) {
        if (!(e2 instanceof ToolError && e2.code === "command_failed")) throw e2;
        throw new ToolError(
          "invalid_request",
          `${serial} has neither input motionevent nor input draganddrop (an older Android), ` +
            "so a press-hold-drag cannot be sent over ADB; nothing was done. Use ui_long_press " +
            "and the app's own move controls, or an emulator",
          { serial },
        );
      }
    }
    let events = 1;
    let at = first;
    try {
      await this.#sleep(g.holdMs, signal);
      const segments = g.path.length - 1;
      for (let i = 1; i < g.path.length; i++) {
        const pts = dragPath(g.path[i - 1], g.path[i]);
        for (const q of pts) {
          await this.#sleep(g.moveMs / segments / pts.length, signal);
          await runInput(adb, serial, motionArgv("MOVE", q), signal);
          at = q;
          events++;
        }
      }
      await this.#sleep(g.dwellMs, signal);
    } finally {
      await runInput(adb, serial, motionArgv("UP", at)).catch(() => {});
      events++;
    }
    return { method: "motionevent", events };
  }

  // ---- rotation and keys

  async rotateBody(p: RotateParams, signal: AbortSignal): Promise<PathResult> {
    const q = ((Math.round(p.rotation) % 4) + 4) % 4;
    const r = await this.#o.link.run(p.serial, async (rpc) => {
      await rpc.setPhysicalModel({ target: "ROTATION", value: { data: [0, 0, BODY_Z[q]] } }, {
        signal,
      });
    }, signal);
    if (r.ok) return { path: "grpc", fallback: null };
    return {
      path: "adb",
      fallback: r.fallback.code === "not_emulator" ? null : this.#note(r.fallback),
    };
  }

  // ---- the clipboard (typing any text on an emulator)

  /** Null when `serial` is an emulator whose gRPC endpoint this worker can use; else why not. */
  async grpcUnusable(serial: string): Promise<Fallback | null> {
    const e = await this.#o.link.endpoint(serial);
    return e.ok ? null : e.fallback;
  }

  /**
   * Puts `text` on the emulator's clipboard (which it shares with the device's) and returns the
   * text that was there, for the caller to put back; or why gRPC could not.
   */
  async swapClipboard(
    serial: string,
    text: string,
    signal: AbortSignal,
  ): Promise<{ ok: true; previous: string } | { ok: false; fallback: Fallback }> {
    const r = await this.#o.link.run(serial, async (rpc) => {
      const previous = (await rpc.getClipboard({ signal })).text ?? "";
      await rpc.setClipboard({ text }, { signal });
      return previous;
    }, signal);
    return r.ok ? { ok: true, previous: r.value } : { ok: false, fallback: this.#note(r.fallback) };
  }

  /** Puts the user's clipboard back (even after a cancel); false when the emulator refused. */
  async restoreClipboard(serial: string, text: string): Promise<boolean> {
    const r = await this.#o.link.run(serial, (rpc) => rpc.setClipboard({ text }))
      .catch(() => ({ ok: false as const }));
    return r.ok;
  }

  /** Presses a key through `sendKey` (keypress); `{sent: false}` when ADB must do it. */
  async key(p: KeyParams, signal: AbortSignal): Promise<PathResult & { sent: boolean }> {
    const name = GRPC_KEY_NAMES[p.key];
    if (name === undefined) {
      const e = await this.#o.link.endpoint(p.serial);
      return {
        path: "adb",
        sent: false,
        fallback: e.ok
          ? { code: "unimplemented", reason: `the emulator's sendKey has no name for ${p.key}` }
          : e.fallback.code === "not_emulator"
          ? null
          : e.fallback,
      };
    }
    const ev: KeyboardEventMsg = { eventType: "keypress", key: name };
    const r = await this.#o.link.run(p.serial, (rpc) => rpc.sendKey(ev, { signal }), signal);
    if (r.ok) return { path: "grpc", fallback: null, sent: true };
    return {
      path: "adb",
      sent: false,
      fallback: r.fallback.code === "not_emulator" ? null : this.#note(r.fallback),
    };
  }
}

function frameFallback(e: FrameError): Fallback {
  return { code: "bad_frame", reason: `${e.message}; ADB took the picture instead` };
}
