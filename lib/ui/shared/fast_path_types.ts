/**
 * What the UI worker's fast paths answer and are asked (lib/ui/fast_paths.ts runs them): which
 * path ran, why ADB ran on an emulator, gesture results, screenshots and rotation. Plain data.
 */
import type { Fallback } from "../../emulator/shared/fallback.ts";
import type { PinchPlan } from "../../emulator/shared/pinch_plan.ts";

export interface ScreenshotResult {
  png: Uint8Array;
  /** The capture's size: the screen in its current rotation (the space ui_tap uses). */
  deviceWidth: number;
  deviceHeight: number;
  imageWidth: number;
  imageHeight: number;
  /** Device pixels per image pixel. */
  scale: number;
  /** The device's PNG returned as it came. */
  original: boolean;
  captureBytes: number;
}

type UiPath = "grpc" | "adb";

export interface GestureResult {
  path: UiPath;
  /** Why ADB ran on an emulator (null on gRPC, or on a device that is not an emulator). */
  fallback: Fallback | null;
  /** What ran: `sendTouch`, `input tap`, `motionevent`, `swipe`, `draganddrop`. */
  method: string;
  /** Touch events sent (gRPC) or input commands run (ADB). */
  events: number;
  durationMs: number;
  /** A pinch's fingers as sent (screen space). */
  pinch?: PinchPlan;
}

export interface FastScreenshotParams {
  serial: string;
  maxDimension?: number;
  fullSize?: boolean;
  format?: "png" | "jpeg";
  quality?: number;
}

export interface FastScreenshotResult extends ScreenshotResult {
  /** The encoded image (PNG or JPEG, per `mimeType`). */
  image: Uint8Array;
  mimeType: "image/png" | "image/jpeg";
  path: UiPath;
  fallback: Fallback | null;
  /** The emulator frame's rotation (0..3); null over ADB. */
  rotation: number | null;
  /** Milliseconds to get the pixels and to encode them. */
  captureMs: number;
  encodeMs: number;
}

export interface RotateParams {
  serial: string;
  /** 0 portrait, 1 landscape, 2 reverse portrait, 3 reverse landscape. */
  rotation: number;
}

export interface PathResult {
  path: UiPath;
  fallback: Fallback | null;
}
