/**
 * Input on the device: the `input` argv of taps, long presses, swipes, text and keys, the rules
 * for what `input text` can type, the pause-before-lift drag, the ADB keyboard snippet of
 * `ui_type_text_unicode`, and the minimum gap between actions on one device.
 *
 * The argv builders and text rules are pure. `runInput` and the gesture runners are the adapter:
 * every `input` command goes through `adb.shell` (each argv element quoted by the client) with an
 * `INPUT_TIMEOUT_MS` deadline.
 */
import { delay } from "../core/abortable.ts";
import { type Point, pointsAlong } from "../emulator/shared/points.ts";
import { ToolError } from "../core/errors.ts";
import type { DeviceShell } from "../adb/client.ts";
import { MAX_SWIPE_MS } from "./shared/gesture_limits.ts";
import { checkInputText, checkTextLength } from "./shared/text_rules.ts";
import { clampInterval } from "./shared/limits.ts";

/** Every `input` command's deadline (spec). */
export const INPUT_TIMEOUT_MS = 30_000;
/** Characters sent per `input text` command (each command has its own deadline). */
const INPUT_TEXT_CHUNK_CHARS = 200;
/** Devices whose last action time is kept. */
const MAX_PACED_DEVICES = 64;
/** A drag stops this long before lifting, so the list moves by the dragged distance, no fling. */
export const PAUSE_BEFORE_LIFT_MS = 150;
/** MOVE events between DOWN and the end point of a drag. */
const DRAG_STEPS = 4;
/** `input swipe` fallback (no motionevent): at least this many ms per 100 px, to limit a fling. */
const SLOW_SWIPE_MS_PER_100PX = 150;
/** Most DEL key events one clear sends (the field's text length, capped). */
const MAX_CLEAR_KEYS = 1_000;

export function tapArgv(p: Point): string[] {
  return ["input", "tap", String(p.x), String(p.y)];
}

/** A press held in place: `input swipe x y x y ms`. */
export function longPressArgv(p: Point, ms: number): string[] {
  return ["input", "swipe", String(p.x), String(p.y), String(p.x), String(p.y), String(ms)];
}

export function swipeArgv(from: Point, to: Point, ms: number): string[] {
  return ["input", "swipe", String(from.x), String(from.y), String(to.x), String(to.y), String(ms)];
}

export function motionArgv(action: "DOWN" | "MOVE" | "UP", p: Point): string[] {
  return ["input", "motionevent", action, String(p.x), String(p.y)];
}

export function keyeventArgv(keys: readonly string[]): string[] {
  return ["input", "keyevent", ...keys];
}

/** The points a drag passes through after DOWN (the last one is `to`). */
export function dragPath(from: Point, to: Point, steps = DRAG_STEPS): Point[] {
  return pointsAlong(from, to, steps);
}

/** `input swipe`'s duration when motion events are missing: slow enough to move, not fling. */
export function slowSwipeMs(from: Point, to: Point, requested: number): number {
  const dist = Math.hypot(to.x - from.x, to.y - from.y);
  return Math.min(
    MAX_SWIPE_MS,
    Math.max(requested, Math.ceil(dist / 100 * SLOW_SWIPE_MS_PER_100PX)),
  );
}

/**
 * The arguments of the `input text` commands that type `text` exactly. Spaces become `%s` (the
 * one escape `input text` knows); a literal `%s` in the text is split across two commands so the
 * device never reads it as a space. Characters `input text` cannot type are refused before
 * anything runs, pointing at ui_type_text_unicode.
 */
export function inputTextChunks(text: string, chunkChars = INPUT_TEXT_CHUNK_CHARS): string[] {
  checkInputText(text);
  const chunks: string[] = [];
  let cur = "";
  let curChars = 0;
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    // "%" followed by "s" would read as a space: end the command after the "%".
    const splitAfter = ch === "%" && chars[i + 1] === "s";
    cur += ch === " " ? "%s" : ch;
    curChars++;
    if (splitAfter || curChars >= chunkChars) {
      chunks.push(cur);
      cur = "";
      curChars = 0;
    }
  }
  if (cur) chunks.push(cur);
  return chunks;
}

/** `'` → `'"'"'`: the text as one single-quoted word of a `sh` snippet. */
export function singleQuoteForSnippet(text: string): string {
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}

/**
 * The `sh -c` snippet of ui_type_text_unicode: the ADB keyboard's `ADB_INPUT_TEXT` broadcast, and
 * when `am` fails, its `ADB_INPUT_B64` form (the keyboard's answer to `am` builds that mangle
 * UTF-8). The text is single-quoted inside the snippet (base64 needs no quoting but gets it too);
 * the caller passes the whole snippet as ONE argv element of `sh -c`, which the client quotes
 * again for the outer shell.
 */
export function unicodeTextSnippet(text: string): string {
  const b64 = btoa(String.fromCharCode(...new TextEncoder().encode(text)));
  return `am broadcast -a ADB_INPUT_TEXT --es msg ${singleQuoteForSnippet(text)} || ` +
    `am broadcast -a ADB_INPUT_B64 --es msg ${singleQuoteForSnippet(b64)}`;
}

/** The argv that runs `unicodeTextSnippet(text)`: the snippet is one element. */
export function unicodeTextArgv(text: string): string[] {
  checkTextLength(text);
  return ["sh", "-c", unicodeTextSnippet(text)];
}

/** The `input keyevent` codes that delete `chars` characters before the cursor, from the end. */
export function clearKeys(chars: number): string[] {
  const n = Math.min(MAX_CLEAR_KEYS, Math.max(0, Math.floor(chars)));
  return ["KEYCODE_MOVE_END", ...Array.from({ length: n }, () => "KEYCODE_DEL")];
}

const decoder = new TextDecoder();

/** A device `input` failure as InputShellCommand reports it (exit 255, or text without v2). */
export function inputFailure(r: { exitCode: number | null; stdout: string; stderr: string }) {
  const all = `${r.stdout}\n${r.stderr}`;
  const failed = (r.exitCode !== null && r.exitCode !== 0) ||
    /Exception occurred while executing|^Error: Unknown command|^Usage: input/m.test(all);
  if (!failed) return null;
  const lines = all.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  const line = lines.find((l) => l.startsWith("java.")) ??
    lines.find((l) => l.startsWith("Error")) ?? lines[0] ?? `exit status ${r.exitCode}`;
  return line.slice(0, 300);
}

/** Runs one `input …` argv on the device; a reported failure is `command_failed`. */
export async function runInput(
  adb: DeviceShell,
  serial: string,
  argv: readonly string[],
  signal?: AbortSignal,
): Promise<void> {
  const r = await adb.shell(serial, argv, { signal, timeoutMs: INPUT_TIMEOUT_MS });
  const failure = inputFailure({
    exitCode: r.exitCode,
    stdout: r.text(),
    stderr: decoder.decode(r.stderr),
  });
  if (failure !== null) {
    throw new ToolError(
      "command_failed",
      `The device refused ${argv.slice(0, 2).join(" ")}: ${failure}; read the screen again ` +
        "with get_ui_hierarchy and retry",
      { command: argv.slice(0, 2).join(" "), output: failure },
    );
  }
}

/** Where drag() reads the time and how it waits between events (tests pass a virtual one). */
export interface ActionClock {
  now(): number;
  delay(ms: number, signal?: AbortSignal): Promise<void>;
}

const SYSTEM_CLOCK: ActionClock = { now: () => performance.now(), delay };

interface DragResult {
  /** `motionevent` (DOWN, MOVEs, a pause, UP) or `swipe` (the fallback). */
  method: "motionevent" | "swipe";
  durationMs: number;
}

/**
 * A drag that lists follow by the dragged distance: DOWN, MOVEs spread over `ms`, a pause of
 * `PAUSE_BEFORE_LIFT_MS` so the lift has no velocity, UP. Devices without `input motionevent`
 * get a slow `input swipe` instead.
 */
export async function drag(
  adb: DeviceShell,
  serial: string,
  from: Point,
  to: Point,
  ms: number,
  signal?: AbortSignal,
  clock: ActionClock = SYSTEM_CLOCK,
): Promise<DragResult> {
  const { now, delay } = clock;
  const started = now();
  try {
    await runInput(adb, serial, motionArgv("DOWN", from), signal);
  } catch (e) {
    if (e instanceof ToolError && e.code === "command_failed") {
      const slow = slowSwipeMs(from, to, ms);
      await runInput(adb, serial, swipeArgv(from, to, slow), signal);
      return { method: "swipe", durationMs: Math.round(now() - started) };
    }
    throw e;
  }
  try {
    const path = dragPath(from, to);
    for (const p of path) {
      await delay(Math.max(0, Math.floor(ms / path.length)), signal);
      await runInput(adb, serial, motionArgv("MOVE", p), signal);
    }
    await delay(PAUSE_BEFORE_LIFT_MS, signal);
  } finally {
    // Always lift the finger, even when cancelled midway.
    await runInput(adb, serial, motionArgv("UP", to)).catch(() => {});
  }
  return { method: "motionevent", durationMs: Math.round(now() - started) };
}

/**
 * What this process remembers per device between UI calls: the minimum gap between actions
 * (`before()` waits until the gap since the device's last action has passed; `done()` records an
 * action's end) and the last element list a tool returned (what compare_ui_state compares with).
 */
export class ActionPacer<L = unknown> {
  #last = new Map<string, number>();
  #lists = new Map<string, L>();
  #intervalMs: () => Promise<number>;
  #now: () => number;

  /** `intervalMs` is asked on every action (a setting may change while the server runs). */
  constructor(intervalMs: () => Promise<number>, now: () => number = () => performance.now()) {
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  /** Milliseconds to wait before acting on `serial` now. */
  async waitFor(serial: string): Promise<number> {
    const last = this.#last.get(serial);
    if (last === undefined) return 0;
    const gap = clampInterval(await this.#intervalMs());
    return Math.max(0, Math.ceil(last + gap - this.#now()));
  }

  /** The minimum gap now (the flag or the setting, clamped). */
  async interval(): Promise<number> {
    return clampInterval(await this.#intervalMs());
  }

  async before(serial: string, signal?: AbortSignal): Promise<number> {
    const ms = await this.waitFor(serial);
    if (ms > 0) await delay(ms, signal);
    return ms;
  }

  done(serial: string): void {
    bounded(this.#last, serial, this.#now());
  }

  /** Remembers the list a tool just returned for `serial`; returns the one before it. */
  swapList(serial: string, list: L): L | null {
    const before = this.#lists.get(serial) ?? null;
    bounded(this.#lists, serial, list);
    return before;
  }

  lastList(serial: string): L | null {
    return this.#lists.get(serial) ?? null;
  }
}

function bounded<V>(m: Map<string, V>, key: string, value: V): void {
  m.delete(key);
  m.set(key, value);
  while (m.size > MAX_PACED_DEVICES) {
    const oldest = m.keys().next().value;
    if (oldest === undefined) break;
    m.delete(oldest);
  }
}
