/**
 * What the page asks for on demand, each from the data directory or the app's memory: older
 * lines of a build's log, a debug session's timeline, a kept screen recording (as a download),
 * a device's last screenshot.
 */
import { buildLogPath } from "../build/shared/build_log.ts";
import { readSession } from "../sessions/session_store.ts";
import { sessionView, timelinePage } from "../sessions/session_query.ts";
import { openRegularNoFollow, SafeOpenError } from "../core/safe_open.ts";
import { join as joinPath } from "../core/path.ts";
import {
  isRecordingName,
  MAX_RECORDING_BYTES,
  recordingsDir,
} from "../android/screen_recording.ts";
import { DEFAULT_BACKWARD_LINES, MAX_BACKWARD_LINES, readLinesBefore } from "./file_window.ts";
import type { DashboardHost } from "./host.ts";
import { COMMON_HEADERS, intParam, json, text } from "./responses.ts";

/** Timeline events a debug session's view returns. */
export const TIMELINE_EVENTS = 200;

/** `lines` lines of build `id`'s log before `before` (the query's). */
export async function buildLogLines(dataDir: string, id: number, url: URL): Promise<Response> {
  const before = intParam(url, "before", 0, Number.MAX_SAFE_INTEGER);
  const lines = intParam(url, "lines", 1, MAX_BACKWARD_LINES) ?? DEFAULT_BACKWARD_LINES;
  try {
    const r = await readLinesBefore(buildLogPath(dataDir, id), before, lines);
    return json({ build_id: id, ...r });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return json({ error: `Build #${id} has no log (pruned or never written)` }, 404);
    }
    throw e;
  }
}

/** A debug session's view, the last TIMELINE_EVENTS of its timeline and its crashes. */
export async function debugSessionPage(dataDir: string, id: string): Promise<Response> {
  const s = await readSession(dataDir, id);
  if (!s) return json({ error: `No debug session ${id} (unknown or pruned)` }, 404);
  return json({
    session: sessionView(s, new Date()),
    ...timelinePage(s.events, TIMELINE_EVENTS),
    crashes: s.crashes.slice(-20).map(({ lines: _lines, ...c }) => c),
  });
}

/** A kept screen recording, as a download: a plain name in the recordings folder only. */
export async function recordingDownload(dataDir: string, name: string): Promise<Response> {
  if (!isRecordingName(name)) return text(404, "No such recording");
  let file;
  try {
    file = await openRegularNoFollow(joinPath(recordingsDir(dataDir), name));
  } catch (e) {
    if (e instanceof SafeOpenError) return text(404, "No such recording (removed or pruned)");
    throw e;
  }
  try {
    if (file.size > MAX_RECORDING_BYTES) return text(413, "Recording too large to serve");
    const bytes = new Uint8Array(file.size);
    let off = 0;
    while (off < bytes.length) {
      const n = await file.read(bytes.subarray(off), off);
      if (n === 0) break;
      off += n;
    }
    return new Response(bytes.subarray(0, off), {
      headers: {
        ...COMMON_HEADERS,
        "content-type": "video/mp4",
        "content-disposition": `attachment; filename="${name}"`,
      },
    });
  } finally {
    await file.close();
  }
}

/** The device's last screenshot the app kept. */
export function lastScreenshot(host: DashboardHost, serial: string): Response {
  const shot = host.ui.get(serial)?.screenshot;
  if (!shot?.image) return text(404, "No screenshot kept for this device");
  return new Response(shot.image.slice(), {
    headers: { ...COMMON_HEADERS, "content-type": shot.mime },
  });
}
