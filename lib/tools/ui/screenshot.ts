/**
 * `screenshot`: the screen as an image (PNG or JPEG, optionally scaled), from the emulator's gRPC
 * endpoint when it has one, else `screencap` over ADB.
 */
import { z } from "zod";
import { invalidParams } from "../../core/errors.ts";
import { SMALL_FRAME_DIMENSION } from "../../emulator/shared/limits.ts";
import { defineTool } from "../define_tool.ts";
import { deviceFor } from "../device_args.ts";
import { serialParam } from "../params.ts";
import { pathFields } from "./paths.ts";
import {
  DEFAULT_JPEG_QUALITY,
  MAX_JPEG_QUALITY,
  MIN_JPEG_QUALITY,
} from "../../ui/shared/fast_path_limits.ts";
import { DEFAULT_MAX_DIMENSION, MAX_MAX_DIMENSION } from "../../ui/shared/limits.ts";

/** Base64 of `bytes` (chunked so large images do not overflow the argument list). */
export function encodeBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

const screenshot = defineTool({
  name: "screenshot",
  toolset: "ui",
  kind: "R",
  description: `The screen as PNG or JPEG (max_dimension ${SMALL_FRAME_DIMENSION} for a cheap ` +
    `look). Image pixels × scale = device pixels; tapping by handle cannot miss.`,
  params: {
    device_serial: serialParam,
    max_dimension: z.number().int().min(SMALL_FRAME_DIMENSION).max(MAX_MAX_DIMENSION).optional()
      .describe(`Long edge in pixels (default ${DEFAULT_MAX_DIMENSION}); not with full_size`),
    full_size: z.boolean().optional().describe("The capture unscaled"),
    format: z.enum(["png", "jpeg"]).optional().describe(
      "png (default, sharp text) or jpeg (fewer bytes)",
    ),
    quality: z.number().int().min(MIN_JPEG_QUALITY).max(MAX_JPEG_QUALITY).optional().describe(
      `Default ${DEFAULT_JPEG_QUALITY}; only with format jpeg`,
    ),
  },
  async run(args, ctx) {
    if (args.max_dimension !== undefined && args.full_size !== undefined) {
      throw invalidParams("Pass max_dimension or full_size, not both");
    }
    if (args.quality !== undefined && args.format !== "jpeg") {
      throw invalidParams('quality is for format: "jpeg"; PNG is lossless');
    }
    const md = args.max_dimension;
    const serial = await deviceFor(ctx, args.device_serial);
    const r = await ctx.ui.screenshot(
      {
        serial,
        maxDimension: md,
        fullSize: args.full_size ?? false,
        format: args.format ?? "png",
        quality: args.quality,
      },
      { signal: ctx.signal },
    );
    const info = {
      deviceWidth: r.deviceWidth,
      deviceHeight: r.deviceHeight,
      imageWidth: r.imageWidth,
      imageHeight: r.imageHeight,
      scale: r.scale,
      rotation: r.rotation,
      path: r.path,
      hint: r.scale === 1
        ? "Image pixels are device pixels; prefer ui_tap_element with a handle or tree path"
        : `Multiply image coordinates by scale (${r.scale}) for device pixels, or use ` +
          "ui_tap_element with a handle or tree path",
    };
    return {
      content: [{ type: "image", data: encodeBase64(r.image), mimeType: r.mimeType }],
      structured: {
        serial,
        ...info,
        ...pathFields(r),
        format: r.mimeType === "image/jpeg" ? "jpeg" : "png",
        bytes: r.image.length,
        original: r.original,
      },
      text: JSON.stringify({ ...info, ...(r.fallback ? { fallback: r.fallback.reason } : {}) }),
    };
  },
});

export const screenshotTools = [screenshot];
