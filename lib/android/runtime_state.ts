/**
 * Whether an app runs and is in front: its processes from `ps -A -o PID,USER,NAME` (the main
 * process `<pkg>` and `<pkg>:<name>` ones), the resumed activity from `dumpsys activity
 * activities` and the focused window from `dumpsys window`. Pure parsers.
 */

/** Processes of one app kept. */
const MAX_APP_PROCESSES = 32;

export interface AppProcess {
  pid: number;
  user: string | null;
  name: string;
}

/** Whether `name` is one of `pkg`'s processes (`pkg` or `pkg:remote`). */
function isProcessOf(name: string, pkg: string): boolean {
  return name === pkg || name.startsWith(`${pkg}:`);
}

/**
 * The `ps` USER names of an app uid in any user (`u0_a123`, `u10_a123`), or `null` for a system
 * uid (below 10000), which many packages share.
 */
function appUserPattern(uid: number | null | undefined): RegExp | null {
  if (uid === null || uid === undefined || !Number.isInteger(uid) || uid < 0) return null;
  const appId = uid % 100_000;
  if (appId < 10_000 || appId > 19_999) return null;
  return new RegExp(`^u\\d+_a${appId - 10_000}$`);
}

/**
 * `ps -A -o PID,USER,NAME` (or plain `ps -A` / `ps`) rows of `pkg`'s processes: named `pkg` or
 * `pkg:<name>`, or, when the app's `uid` is known, running as its user (a process named
 * `pkg.persistent` belongs to it; `pkg.debug` is another app). Columns are found from the header
 * line, so either layout parses. Pure.
 */
export function parsePsForPackage(text: string, pkg: string, uid?: number | null): AppProcess[] {
  const userPattern = appUserPattern(uid);
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  if (lines.length === 0) return [];
  const header = lines[0].trim().split(/\s+/);
  const pidCol = header.indexOf("PID");
  const userCol = header.indexOf("USER");
  const nameCol = Math.max(header.indexOf("NAME"), header.indexOf("CMD"), header.indexOf("ARGS"));
  if (pidCol < 0) return [];
  const out: AppProcess[] = [];
  for (const line of lines.slice(1)) {
    const cells = line.trim().split(/\s+/);
    // NAME is the last column; in the full `ps -A` layout it follows a state column.
    const name = nameCol === header.length - 1 || nameCol < 0
      ? cells[cells.length - 1]
      : cells[nameCol];
    const pid = Number(cells[pidCol]);
    const user = userCol >= 0 ? cells[userCol] ?? null : null;
    const mine = name !== undefined &&
      (isProcessOf(name, pkg) || (userPattern !== null && user !== null && userPattern.test(user)));
    if (!Number.isSafeInteger(pid) || !mine) continue;
    out.push({ pid, user, name });
    if (out.length >= MAX_APP_PROCESSES) break;
  }
  return out;
}

/** `pidof` output: space-separated pids. Pure. */
export function parsePidof(text: string): number[] {
  return text.trim().split(/\s+/).filter((x) => /^\d+$/.test(x)).map(Number)
    .slice(0, MAX_APP_PROCESSES);
}

/**
 * The resumed (top) activity component from `dumpsys activity activities`:
 * `topResumedActivity=ActivityRecord{… u0 pkg/.Act t12}` (Android 10+) or
 * `mResumedActivity: ActivityRecord{… u0 pkg/.Act t12}`. Pure.
 */
export function parseResumedActivity(text: string): string | null {
  for (const key of ["topResumedActivity=", "mResumedActivity: ", "ResumedActivity: "]) {
    for (const line of text.split(/\r?\n/)) {
      const at = line.indexOf(key);
      if (at < 0) continue;
      const m = /ActivityRecord\{\S+ (?:u\d+ )?([A-Za-z][\w.]*\/[\w.$]+)/.exec(line.slice(at));
      if (m !== null) return m[1];
    }
  }
  return null;
}

/** `mCurrentFocus=Window{… u0 pkg/pkg.Act}` from `dumpsys window`; the window title. Pure. */
export function parseCurrentFocus(text: string): string | null {
  const m = /mCurrentFocus=Window\{\S+ (?:u\d+ )?([^}\s][^}]*)\}/.exec(text);
  return m === null ? null : m[1].trim();
}

/** The package of a `pkg/.Act` component or window title, else `null`. */
export function packageOfComponent(component: string | null): string | null {
  if (component === null) return null;
  const m = /^([A-Za-z][\w.]*)\//.exec(component);
  return m === null ? null : m[1];
}
