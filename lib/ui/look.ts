/**
 * `get_ui_hierarchy screenshot: true` in the UI worker: the element list and a small image of the
 * same moment, in one request. The dump and the picture are taken at once (the picture while the
 * dump runs: a gRPC frame on an emulator, else `screencap`), and both carry the list's screen
 * hash. When the screen moved meanwhile (an emulator's small frames before and after differ), the
 * answer says so instead of pretending they match.
 */
import type { CallContext, UiService } from "./ui_service.ts";
import type { FastPaths } from "./fast_paths.ts";
import type { LookParams, LookResult } from "./shared/protocol.ts";
import { DEFAULT_LOOK_DIMENSION } from "./shared/limits.ts";

export async function look(
  service: UiService,
  fast: FastPaths,
  p: LookParams,
  ctx: CallContext,
): Promise<LookResult> {
  const before = await fast.frameHash(p.serial, ctx.signal);
  const [observed, image] = await Promise.all([
    service.observe({ serial: p.serial, maxRows: p.maxRows, activity: p.activity }, ctx),
    fast.screenshot({
      serial: p.serial,
      maxDimension: p.maxDimension ?? DEFAULT_LOOK_DIMENSION,
      format: "jpeg",
    }, ctx.signal),
  ]);
  let still: boolean | null = null;
  if (before.hash !== null) {
    const after = await fast.frameHash(p.serial, ctx.signal);
    still = after.hash === null ? null : after.hash === before.hash;
  }
  return { ...observed, image, still };
}
