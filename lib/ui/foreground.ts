/**
 * The resumed activity, for the element list's header: `dumpsys activity activities`, whose
 * `mResumedActivity:` (Android ≤ 9), `topResumedActivity=` (10+) or `ResumedActivity:` (12+)
 * line names an `ActivityRecord{<hash> u<user> <package>/<activity> t<task>}`. Best effort: any
 * failure means "unknown", never a failed capture.
 */
import type { UiAdb } from "./capture.ts";

/** How long the query may take. */
const FOREGROUND_TIMEOUT_MS = 5_000;
/** `dumpsys activity activities` output read, at most. */
const MAX_FOREGROUND_OUTPUT_BYTES = 4 * 1024 * 1024;

export interface Foreground {
  package: string;
  /** As dumpsys writes it: `.MainActivity` or a full class name. */
  activity: string;
}

const RESUMED =
  /(?:mResumedActivity|topResumedActivity|ResumedActivity|mFocusedActivity)\s*[:=]\s*ActivityRecord\{[0-9a-f]+ u\d+ ([A-Za-z0-9_.]+)\/([A-Za-z0-9_.$]+)/;

/** The resumed activity in `dumpsys activity activities` output, or `null`. Pure. */
function parseResumedActivity(text: string): Foreground | null {
  const m = RESUMED.exec(text);
  return m ? { package: m[1], activity: m[2] } : null;
}

/** `com.example/.Main`, as `adb shell am start -n` takes it. */
export function formatActivity(f: Foreground): string {
  return `${f.package}/${f.activity}`;
}

/** The resumed activity of `serial`, or `null` when it cannot be told. */
export async function readForeground(
  adb: UiAdb,
  serial: string,
  signal?: AbortSignal,
): Promise<Foreground | null> {
  try {
    const r = await adb.shell(serial, ["dumpsys", "activity", "activities"], {
      signal,
      timeoutMs: FOREGROUND_TIMEOUT_MS,
      maxOutputBytes: MAX_FOREGROUND_OUTPUT_BYTES,
    });
    return parseResumedActivity(new TextDecoder().decode(r.stdout));
  } catch {
    return null;
  }
}
