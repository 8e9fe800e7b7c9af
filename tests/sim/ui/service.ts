/**
 * The "ui" device service: the sample app's screens through `uiautomator dump`, touches and keys
 * through `input`, the keyboard's state through `ime` and `dumpsys input_method`, window focus
 * through `dumpsys window`, pictures through `screencap`, and the ADB keyboard's broadcast.
 *
 * Test controls (`adb shell simctl …` or the methods):
 * - `simctl show-dump <host file>`: serve that dump as the screen until an action changes it: taps
 *   land on it (a checkable view toggles, a text field takes focus; `simctl ui-state` lists
 *   where they landed), BACK hides its keyboard window, `dumpsys input_method` follows its
 *   keyboard (tests/sim/ui/shown_dump.ts); HOME, BACK without a keyboard, and a new activity end
 *   it
 * - `simctl ui-busy <seconds>`: dumps fail with the "already registered" error for that long
 * - `simctl ui-tty on|off`: whether `uiautomator dump /dev/tty` prints the XML (exec:/raw shells
 *   on real devices disagree, PROTOCOLS.md 7)
 * - `simctl ui-windows all|active`: dump every window (app, dialog, status bar, keyboard) or only
 *   the active one, as AOSP's `uiautomator dump` does
 * - `simctl ui-spelling misspelled|corrected`: `UI hierchary dumped to:` or `UI hierarchy …`
 * - `simctl ui-dump-ms <ms>`: how long a dump takes
 * - `simctl ui-dump-error none|null-root|idle`: dumps print that error instead
 * - `simctl ui-adb-keyboard on|off`: the ADB keyboard IME installed and selected
 * - `simctl ui-ime-report follow|shown|hidden`: what `dumpsys input_method` says of the keyboard:
 *   the screen's state (default), or stuck at one answer, as `mInputShown` lags the window on
 *   real devices while it animates or after an app hid it itself
 * - `simctl ui-rotation 0|1|2|3`, `simctl ui-front app|launcher|stopped`, `simctl ui-state`
 *
 * What is in front comes from the apps service (tests/sim/apps/) when the device has one: the
 * sample app's screens while its activity is on top of the activity stack, the launcher for
 * anything else; a new process of the app starts it afresh. HOME, BACK at the app's root and the
 * launcher's icon change that stack through the apps service (so `am`, `dumpsys` and the log
 * agree). Without an apps service (unit tests) the service follows the activity manager's
 * START / Force-stop log lines instead.
 */
import { FrameLog, gfxinfoHeader, gfxinfoSection } from "./gfxinfo.ts";
import type { DeviceService, VirtualDevice } from "../device.ts";
import type { LogEntry } from "../device_log.ts";
import type { AppsService } from "../apps/service.ts";
import { activityRecord, windowId } from "../apps/dumpsys.ts";
import type { ShellRun, ShIo } from "../sh_exec.ts";
import type { SimWorld } from "../services.ts";
import {
  IME_ID,
  LONG_PRESS_MS,
  PAUSE_BEFORE_LIFT_MS,
  SAMPLE_ACTIVITY,
  SAMPLE_PACKAGE,
  SampleApp,
  TOUCH_SLOP_PX,
} from "./app.ts";
import { keyChar, keyCodeFromString, typeable, unescapeInputText } from "./keys.ts";
import { encodePng, type Paint, paintsFromDump, rasterize, rawScreencap } from "./render.ts";
import { type PlacedNode, serializeDump, walk } from "./xml.ts";
import { type DumpTap, hideKeyboard, keyboardWindow, tapDump } from "./shown_dump.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

export const DEFAULT_DUMP_FILE = "/sdcard/window_dump.xml";
export const ADB_KEYBOARD_ID = "com.android.adbkeyboard/.AdbIME";
/** Default time one `uiautomator dump` takes. */
export const DEFAULT_DUMP_MS = 40;
export const MAX_DUMP_MS = 10_000;
/** Longest `simctl ui-busy`. */
export const MAX_BUSY_SECONDS = 3600;
/** Largest host file `simctl show-dump` accepts. */
export const MAX_SHOW_DUMP_BYTES = 8 * 1024 * 1024;
/** Longest gesture (`input swipe` duration) the simulator waits out. */
export const MAX_GESTURE_MS = 60_000;
/** Default `input swipe` duration (InputShellCommand). */
export const DEFAULT_SWIPE_MS = 300;
/** Taps on a shown dump remembered for `simctl ui-state` (the oldest are dropped). */
export const MAX_DUMP_TAPS = 100;
/** Most key codes one `input keyevent` handles. */
export const MAX_KEYS_PER_EVENT = 1000;

export const DumpError = { none: "none", nullRoot: "null-root", idle: "idle" } as const;
export type DumpError = typeof DumpError[keyof typeof DumpError];

const INPUT_SOURCES = new Set([
  "keyboard",
  "mouse",
  "joystick",
  "touchnavigation",
  "touchpad",
  "trackball",
  "stylus",
  "dpad",
  "gesture",
  "touchscreen",
  "gamepad",
  "rotaryencoder",
]);

export interface UiClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

export const REAL_CLOCK: UiClock = { now: () => performance.now(), sleep: realSleep };

export interface UiSettings {
  tty: boolean;
  windows: "all" | "active";
  spelling: "misspelled" | "corrected";
  dumpMs: number;
  dumpError: DumpError;
  adbKeyboard: boolean;
  rotation: number;
  /** Newer dumpers add `drawing-order` and `hint`. */
  extendedAttrs: boolean;
  /** What `dumpsys input_method` reports: the screen's keyboard, or a stuck answer. */
  imeReport: "follow" | "shown" | "hidden";
  /** The sample app's usual frame time in ms (`dumpsys gfxinfo`); a slower build draws slower. */
  frameCostMs: number;
}

/** Frames the sample app renders for one change of its screen. */
export const FRAMES_PER_ACTION = 12;

interface Pointer {
  x0: number;
  y0: number;
  t0: number;
  x: number;
  y: number;
  t: number;
  px: number;
  py: number;
  pt: number;
  moved: boolean;
  longFired: boolean;
  scrolls: boolean;
}

class UsageError extends Error {}

function hex(n: number): string {
  return (n >>> 0).toString(16);
}

export class UiService implements DeviceService {
  readonly name = "ui";
  readonly app: SampleApp;
  readonly settings: UiSettings;
  /**
   * The device's clipboard (text). Only the emulator's gRPC `setClipboard` writes it, as the
   * emulator's clipboard sharing does; KEYCODE_PASTE pastes it into the focused field.
   */
  clipboard = "";
  /** A dump served instead of the app's screen until an action changes it. */
  shownDump: string | null = null;
  /** Where taps on the shown dump landed. */
  dumpTaps: DumpTap[] = [];
  private dumpPointer: { x: number; y: number; moved: boolean } | null = null;
  busyUntil = 0;
  /** `uiautomator dump` processes running now. */
  private dumping = 0;
  private pointer: Pointer | null = null;
  private appAlive = true;
  private currentIme = IME_ID;
  private unsubscribe: () => void;
  /** The sample app's pid when the apps service was last looked at (undefined: not yet). */
  private seenPid: number | null | undefined = undefined;
  private syncQueued = false;
  /** The sample app's rendered frames (`dumpsys gfxinfo`). */
  readonly frames = new FrameLog(() => Math.round(this.uptimeMs() * 1e6));

  constructor(readonly device: VirtualDevice, readonly clock: UiClock = REAL_CLOCK) {
    this.settings = {
      tty: true,
      windows: "all",
      spelling: "misspelled",
      dumpMs: DEFAULT_DUMP_MS,
      dumpError: DumpError.none,
      adbKeyboard: false,
      rotation: 0,
      extendedAttrs: device.api >= 34,
      imeReport: "follow",
      frameCostMs: 6,
    };
    this.app = new SampleApp(() => this.size());
    this.app.defects = () => this.apps()?.defectsOf(SAMPLE_PACKAGE) ?? [];
    this.app.batteryLevel = () => device.battery.level;
    this.unsubscribe = device.log.subscribe((e) => this.onLog(e));
  }

  /** The display as apps see it: override size/density, turned by the rotation. */
  size(): { width: number; height: number; density: number } {
    const d = this.device;
    const s = d.overrideSize ?? d.screen;
    const density = d.overrideDensity ?? d.screen.density;
    const turned = this.settings.rotation % 2 === 1;
    return { width: turned ? s.height : s.width, height: turned ? s.width : s.height, density };
  }

  close() {
    this.unsubscribe();
  }

  // ---- what the screen is now

  private tick(t: number) {
    this.sync(t);
    const p = this.pointer;
    if (p && !p.moved && !p.longFired && t - p.t0 >= LONG_PRESS_MS) {
      p.longFired = true;
      this.app.longPress(p.t0 + LONG_PRESS_MS, p.x0, p.y0);
    }
  }

  private windowsNow(t: number): { kind: string; placed: PlacedNode }[] {
    const all = this.app.placed(t);
    if (this.settings.windows === "all") return all;
    const order = ["dialog", "app", "launcher"];
    for (const k of order) {
      const w = all.filter((x) => x.kind === k);
      if (w.length) return [w[w.length - 1]];
    }
    return all.slice(0, 1);
  }

  /** The XML a dump taken now returns. */
  currentXml(compressed = false): string {
    const t = this.clock.now();
    this.tick(t);
    if (this.shownDump !== null) return this.shownDump;
    return serializeDump(this.windowsNow(t).map((w) => w.placed), {
      rotation: this.settings.rotation,
      compressed,
      extendedAttrs: this.settings.extendedAttrs,
    });
  }

  /** What `screencap` draws now. */
  currentPaints(): Paint[] {
    if (this.shownDump !== null) return paintsFromDump(this.shownDump);
    const t = this.clock.now();
    this.tick(t);
    const out: Paint[] = [];
    for (const w of this.app.placed(t)) {
      for (const p of walk([w.placed])) {
        out.push({
          cls: p.node.cls,
          pkg: p.node.pkg,
          text: p.node.text || p.node.desc || "",
          bounds: p.bounds,
          fill: p.node.fill,
        });
      }
    }
    return out;
  }

  /** Makes `xml` the screen until the next action. */
  showDump(xml: string) {
    this.shownDump = xml;
    this.dumpTaps = [];
    this.dumpPointer = null;
  }

  /** A tap on the shown dump. */
  private tapShownDump(x: number, y: number) {
    const r = tapDump(this.shownDump!, x, y);
    this.shownDump = r.xml;
    this.dumpTaps.push(r.tap);
    if (this.dumpTaps.length > MAX_DUMP_TAPS) this.dumpTaps.shift();
  }

  /**
   * A key on the shown dump: BACK / ESCAPE hide its keyboard; BACK without one leaves the screen
   * (the dump ends); HOME ends it and goes on to the device (false); other keys change nothing.
   * True when the dump took the key.
   */
  private keyOnShownDump(code: number): boolean {
    if (code === 4 || code === 111) {
      const hidden = hideKeyboard(this.shownDump!);
      if (hidden !== null) this.shownDump = hidden;
      else if (code === 4) this.acted();
      return true;
    }
    if (code === 3) {
      this.acted();
      return false;
    }
    return true;
  }

  private acted() {
    this.shownDump = null;
    if (this.app.front === "app") this.frames.render(FRAMES_PER_ACTION, this.settings.frameCostMs);
  }

  // ---- what is in front: the apps service, or the activity manager's log without one

  private apps(): AppsService | undefined {
    return this.device.service<AppsService>("apps");
  }

  /**
   * Takes what is in front from the apps service: the app's screens while its activity is on
   * top, the launcher otherwise; a process that died resets the app, a new one on top starts it
   * cold (the launch transition starting at `t`).
   */
  private sync(t: number) {
    const apps = this.apps();
    if (!apps) return;
    const onTop = apps.topActivity()?.pkg === SAMPLE_PACKAGE;
    const pid = apps.pidOf(SAMPLE_PACKAGE);
    const app = this.app;
    if (this.seenPid === undefined) {
      // The first look: the device was like this already, no transition.
      this.seenPid = pid;
      if (onTop) app.front = "app";
      else app.toLauncher();
      return;
    }
    if (pid !== this.seenPid) {
      const died = this.seenPid !== null;
      this.seenPid = pid;
      this.frames.restart();
      this.acted();
      if (died) app.stopped();
      if (onTop) {
        app.coldStart(t);
        return;
      }
    }
    if (onTop && app.front !== "app") {
      this.acted();
      app.bringToFront(t);
    } else if (!onTop && app.front === "app") {
      this.acted();
      app.toLauncher();
    }
  }

  /**
   * Tells the apps service what a touch or key did to the front: BACK at the app's root sent it
   * to the background; the launcher's icon starts it (cold when it was not running).
   */
  private pushFront(t: number) {
    const apps = this.apps();
    if (!apps) return;
    const onTop = apps.topActivity()?.pkg === SAMPLE_PACKAGE;
    const app = this.app;
    if (app.front === "launcher" && onTop) {
      apps.goHome();
      return;
    }
    if (app.front !== "app" || onTop) return;
    const at = app.launchAt ?? t;
    if (!apps.launch(SAMPLE_PACKAGE)) {
      // Not installed (or no launcher activity): the icon does nothing.
      app.toLauncher();
      return;
    }
    const pid = apps.pidOf(SAMPLE_PACKAGE);
    if (pid !== this.seenPid) {
      this.seenPid = pid;
      this.frames.restart();
      app.coldStart(at);
    }
  }

  private onLog(e: LogEntry) {
    const t = this.clock.now();
    if (this.apps()) {
      // The activity manager changed something: look once its command has finished.
      if (e.tag !== "ActivityManager" && e.tag !== "ActivityTaskManager") return;
      if (this.syncQueued) return;
      this.syncQueued = true;
      queueMicrotask(() => {
        this.syncQueued = false;
        this.sync(t);
      });
      return;
    }
    const message = e.message;
    if (message.startsWith("START u0 {")) {
      const m = /cmp=([^/\s}]+)\//.exec(message);
      if (!m) return;
      this.acted();
      if (m[1] === SAMPLE_PACKAGE) {
        if (this.appAlive) this.app.bringToFront(t);
        else this.app.coldStart(t);
        this.appAlive = true;
      } else this.app.toLauncher();
      return;
    }
    if (
      message.startsWith(`Force stopping ${SAMPLE_PACKAGE} `) ||
      message.includes(`:${SAMPLE_PACKAGE}/`) && message.startsWith("Killing ")
    ) {
      this.acted();
      this.appAlive = false;
      this.app.stopped();
    }
  }

  // ---- device commands

  async command(argv: string[], io: ShIo, shell: ShellRun): Promise<number | null> {
    try {
      switch (argv[0]) {
        case "uiautomator":
          return await this.uiautomator(argv.slice(1), io, shell);
        case "input":
          return await this.input(argv.slice(1), io, shell);
        case "screencap":
          return await this.screencap(argv.slice(1), io);
        case "ime":
          return this.ime(argv.slice(1), io);
        case "dumpsys":
          return this.dumpsys(argv.slice(1), io);
        case "am":
          return this.broadcast(argv.slice(1), io);
      }
    } catch (e) {
      if (e instanceof UsageError) {
        io.err(enc.encode(e.message));
        return 255;
      }
      throw e;
    }
    return null;
  }

  private dumpedLine(path: string): string {
    const word = this.settings.spelling === "misspelled" ? "hierchary" : "hierarchy";
    return `UI ${word} dumped to: ${path}\n`;
  }

  private async uiautomator(args: string[], io: ShIo, shell: ShellRun): Promise<number> {
    if (args[0] !== "dump") {
      io.err(enc.encode(
        "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n" +
          "help: displays help message\n\nruntest: executes UI automation tests\n\n" +
          "dump: creates an XML dump of current UI hierarchy\n    dump [--verbose][file]\n\n" +
          "events: prints out accessibility events until terminated\n",
      ));
      return 0;
    }
    const rest = args.slice(1);
    const compressed = rest.includes("--compressed");
    const file = rest.find((a) => !a.startsWith("-")) ?? DEFAULT_DUMP_FILE;
    const now = this.clock.now();
    if (now < this.busyUntil || this.dumping > 0) {
      io.err(enc.encode(alreadyRegistered(now)));
      return 1;
    }
    this.dumping++;
    try {
      await this.clock.sleep(this.settings.dumpMs, shell.signal);
    } finally {
      this.dumping--;
    }
    if (shell.signal?.aborted) return 137;
    if (this.settings.dumpError === DumpError.nullRoot) {
      io.err(enc.encode("ERROR: null root node returned by UiTestAutomationBridge.\n"));
      return 0;
    }
    if (this.settings.dumpError === DumpError.idle) {
      io.err(enc.encode("ERROR: could not get idle state.\n"));
      return 0;
    }
    const xml = this.currentXml(compressed);
    if (file === "/dev/tty") {
      if (this.settings.tty) io.out(enc.encode(xml));
      io.out(enc.encode(this.dumpedLine("/dev/tty")));
      return 0;
    }
    const path = this.device.resolve(file);
    this.device.writeFile(path, enc.encode(xml));
    io.out(enc.encode(this.dumpedLine(path)));
    return 0;
  }

  private async screencap(args: string[], io: ShIo): Promise<number> {
    let png = false;
    let file: string | null = null;
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      if (a === "-p") png = true;
      else if (a === "-d") k++;
      else if (a === "-h") {
        io.err(enc.encode("usage: screencap [-hp] [-d display-id] [FILENAME]\n"));
        return 0;
      } else if (!a.startsWith("-")) file = a;
    }
    if (file !== null && /\.png$/i.test(file)) png = true;
    const { width, height } = this.size();
    const px = rasterize(this.currentPaints(), width, height);
    const bytes = png ? await encodePng(px, width, height) : rawScreencap(px, width, height);
    if (file !== null) this.device.writeFile(this.device.resolve(file), bytes);
    else io.out(bytes);
    return 0;
  }

  // ---- input

  private async input(args: string[], io: ShIo, shell: ShellRun): Promise<number> {
    let k = 0;
    if (INPUT_SOURCES.has(args[k])) k++;
    if (args[k] === "-d") k += 2;
    const cmd = args[k];
    const rest = args.slice(k + 1);
    const int = (s: string | undefined, after: string) => {
      if (s === undefined) {
        throw javaError(
          cmd,
          `java.lang.IllegalArgumentException: Argument expected after "${after}"`,
        );
      }
      const v = Number(s);
      if (!/^-?\d+(\.\d+)?$/.test(s) || !Number.isFinite(v)) {
        throw javaError(cmd, `java.lang.NumberFormatException: For input string: "${s}"`);
      }
      return Math.round(v);
    };
    const t = this.clock.now();
    this.tick(t);
    switch (cmd) {
      case "tap": {
        const x = int(rest[0], cmd), y = int(rest[1], rest[0]);
        if (this.shownDump !== null) {
          this.tapShownDump(x, y);
          return 0;
        }
        this.acted();
        this.app.tap(t, x, y);
        this.pushFront(t);
        return 0;
      }
      case "swipe":
      case "draganddrop": {
        const x1 = int(rest[0], cmd), y1 = int(rest[1], rest[0]);
        const x2 = int(rest[2], rest[1]), y2 = int(rest[3], rest[2]);
        let ms = rest[4] === undefined ? DEFAULT_SWIPE_MS : int(rest[4], rest[3]);
        if (ms < 0) ms = DEFAULT_SWIPE_MS;
        ms = Math.min(ms, MAX_GESTURE_MS);
        if (this.shownDump !== null) {
          // A dump cannot scroll; a press in place is a tap (a long one changes nothing).
          const still = Math.hypot(x2 - x1, y2 - y1) < TOUCH_SLOP_PX;
          await this.clock.sleep(ms, shell.signal);
          if (still && ms < LONG_PRESS_MS && cmd === "swipe") this.tapShownDump(x1, y1);
          return 0;
        }
        this.acted();
        await this.gesture(cmd, t, x1, y1, x2, y2, ms, shell.signal);
        return 0;
      }
      case "text": {
        if (rest[0] === undefined) {
          throw javaError(
            cmd,
            'java.lang.IllegalArgumentException: Argument expected after "text"',
          );
        }
        const text = unescapeInputText(rest[0]);
        if (!typeable(text)) {
          throw javaError(
            cmd,
            "java.lang.NullPointerException: Attempt to get length of null array",
            "com.android.server.input.InputShellCommand.sendText",
          );
        }
        if (this.shownDump !== null) return 0;
        this.acted();
        for (const ch of text) {
          if (ch === "\n") this.key(66, t);
          else if (ch === "\t") this.key(61, t);
          else this.app.type(ch);
        }
        return 0;
      }
      case "keyevent": {
        const codes = rest.filter((a) => a !== "--longpress" && a !== "--doubletap");
        if (codes.length === 0) {
          throw javaError(
            cmd,
            'java.lang.IllegalArgumentException: Argument expected after "keyevent"',
          );
        }
        const parsed = codes.slice(0, MAX_KEYS_PER_EVENT).map((c) => {
          const code = keyCodeFromString(c);
          if (code === null) {
            throw javaError(cmd, `java.lang.IllegalArgumentException: Unknown keycode: ${c}`);
          }
          return code;
        });
        if (this.shownDump !== null) {
          let k = 0;
          while (k < parsed.length && this.shownDump !== null && this.keyOnShownDump(parsed[k])) {
            k++;
          }
          if (k === parsed.length) return 0;
          // The dump ended: the rest (HOME first) goes on to the app's screen.
          for (const code of parsed.slice(k)) this.key(code, t);
          this.pushFront(t);
          return 0;
        }
        this.acted();
        for (const code of parsed) this.key(code, t);
        this.pushFront(t);
        return 0;
      }
      case "motionevent": {
        const action = (rest[0] ?? "").toUpperCase();
        const x = int(rest[1], rest[0] ?? cmd), y = int(rest[2], rest[1]);
        if (!["DOWN", "MOVE", "UP", "CANCEL"].includes(action)) {
          throw javaError(cmd, `java.lang.IllegalArgumentException: Unknown action: ${rest[0]}`);
        }
        if (this.shownDump !== null) {
          this.motionOnShownDump(action, x, y);
          return 0;
        }
        this.acted();
        this.motion(action, t, x, y);
        this.pushFront(t);
        return 0;
      }
      case "press":
      case "roll":
      case "keycombination":
        this.acted();
        return 0;
    }
    io.err(enc.encode(
      "Error: Unknown command: " + (cmd ?? "") + "\n" +
        "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n",
    ));
    return 255;
  }

  private async gesture(
    cmd: string,
    t: number,
    x1: number,
    y1: number,
    x2: number,
    y2: number,
    ms: number,
    signal?: AbortSignal,
  ) {
    const dist = Math.hypot(x2 - x1, y2 - y1);
    const hold = cmd === "draganddrop" ? LONG_PRESS_MS : 0;
    if (dist < TOUCH_SLOP_PX) {
      if (ms + hold >= LONG_PRESS_MS) this.app.longPress(t + LONG_PRESS_MS, x1, y1);
      else this.app.tap(t + ms, x1, y1);
    } else if (this.app.scrollsList(t, x1, y1)) {
      const velocity = cmd === "draganddrop" || ms === 0 ? 0 : (y1 - y2) / ms * 1000;
      this.app.drag(t + hold, ms, y1 - y2, velocity);
    }
    this.pushFront(t);
    await this.clock.sleep(ms + hold, signal);
  }

  // ---- touches from the emulator's gRPC `sendTouch` (tests/sim/emulator/): the same model

  /** Fingers down through `touchPointer`, by identifier (first position and latest). */
  private fingers = new Map<number, { x0: number; y0: number; x: number; y: number }>();
  /** Whether the fingers now down ever were two (a pinch, not a tap or a drag). */
  private multiTouch = false;

  /**
   * One finger of a multi-touch event, in screen coordinates: down / move (`pressed`) or lift.
   * Finger 0 alone is exactly `input motionevent` DOWN / MOVE / UP; a second finger turns the
   * gesture into a pinch, reported to the app when the last finger lifts.
   */
  touchPointer(id: number, pressed: boolean, x: number, y: number) {
    const t = this.clock.now();
    this.tick(t);
    if (this.shownDump !== null && id === 0) {
      this.motionOnShownDump(pressed ? (this.dumpPointer ? "MOVE" : "DOWN") : "UP", x, y);
      return;
    }
    this.acted();
    const f = this.fingers.get(id);
    if (pressed) {
      if (!f) this.fingers.set(id, { x0: x, y0: y, x, y });
      else f.x = x, f.y = y;
      if (this.fingers.size > 1 && !this.multiTouch) {
        this.multiTouch = true;
        this.pointer = null;
      }
      if (!this.multiTouch) this.motion(f ? "MOVE" : "DOWN", t, x, y);
      return;
    }
    if (!f) return; // a lift for a finger that is not down: ignored, as the emulator does
    f.x = x, f.y = y;
    if (!this.multiTouch) {
      this.fingers.delete(id);
      this.motion("UP", t, x, y);
      this.pushFront(t);
      return;
    }
    if (this.fingers.size === 2) {
      const [a, b] = [...this.fingers.values()];
      const span0 = Math.hypot(a.x0 - b.x0, a.y0 - b.y0);
      const span1 = Math.hypot(a.x - b.x, a.y - b.y);
      if (span0 > 0) {
        this.app.pinch(t, (a.x0 + b.x0) / 2, (a.y0 + b.y0) / 2, span1 / span0);
      }
    }
    this.fingers.delete(id);
    if (this.fingers.size === 0) this.multiTouch = false;
  }

  /** A key from the emulator's `sendKey` (an Android key code), as `input keyevent` does it. */
  pressKey(code: number) {
    const t = this.clock.now();
    this.tick(t);
    if (this.shownDump !== null && this.keyOnShownDump(code)) return;
    this.acted();
    this.key(code, t);
    this.pushFront(t);
  }

  private motionOnShownDump(action: string, x: number, y: number) {
    const p = this.dumpPointer;
    if (action === "DOWN") this.dumpPointer = { x, y, moved: false };
    else if (p && action === "CANCEL") this.dumpPointer = null;
    else if (p) {
      if (Math.hypot(x - p.x, y - p.y) >= TOUCH_SLOP_PX) p.moved = true;
      if (action === "UP") {
        this.dumpPointer = null;
        if (!p.moved) this.tapShownDump(p.x, p.y);
      }
    }
  }

  private motion(action: string, t: number, x: number, y: number) {
    const p = this.pointer;
    if (action === "DOWN") {
      this.pointer = {
        x0: x,
        y0: y,
        t0: t,
        x,
        y,
        t,
        px: x,
        py: y,
        pt: t,
        moved: false,
        longFired: false,
        scrolls: this.app.scrollsList(t, x, y),
      };
      return;
    }
    if (!p) return;
    if (action === "CANCEL") {
      this.pointer = null;
      return;
    }
    if (!p.moved && Math.hypot(x - p.x0, y - p.y0) >= TOUCH_SLOP_PX && !p.longFired) p.moved = true;
    if (p.moved && p.scrolls) {
      const velocity = action === "UP" && t - p.t < PAUSE_BEFORE_LIFT_MS && t > p.t
        ? (p.y - y) / (t - p.t) * 1000
        : 0;
      this.app.drag(t, 0, p.y - y, velocity);
    }
    p.px = p.x, p.py = p.y, p.pt = p.t;
    p.x = x, p.y = y, p.t = t;
    if (action === "UP") {
      this.pointer = null;
      if (!p.moved && !p.longFired) this.app.tap(t, p.x0, p.y0);
      if (p.longFired && Math.hypot(x - p.x0, y - p.y0) >= TOUCH_SLOP_PX) {
        this.app.holdDrag(t, p.x0, p.y0, x, y);
      }
    }
  }

  private key(code: number, t: number) {
    const app = this.app;
    switch (code) {
      case 3:
        app.toLauncher();
        this.apps()?.goHome();
        return;
      case 4:
        app.back(t);
        return;
      case 111:
        if (app.keyboard.shown) app.keyboard = { shown: false, at: 0 };
        return;
      case 66:
        // Search fields ignore ENTER: only the keyboard's action key submits them.
        if (app.focus !== "query") app.editorAction(t);
        return;
      case 67:
        app.deleteBack();
        return;
      case 112:
        app.deleteForward();
        return;
      case 122:
        app.moveCursor("home");
        return;
      case 123:
        app.moveCursor("end");
        return;
      case 61:
        app.nextField();
        return;
      case 84:
        app.events.push("search-key");
        return;
      case 279:
        // KEYCODE_PASTE: the focused field takes the device's clipboard at its cursor.
        if (this.clipboard !== "") app.type(this.clipboard);
        return;
    }
    const ch = keyChar(code);
    if (ch !== null) app.type(ch);
  }

  // ---- input method and windows

  private ime(args: string[], io: ShIo): number {
    const out = (s: string) => io.out(enc.encode(s));
    const ids = [IME_ID, ...(this.settings.adbKeyboard ? [ADB_KEYBOARD_ID] : [])];
    switch (args[0]) {
      case "list":
        if (args.includes("-s")) out(ids.map((i) => i + "\n").join(""));
        else {
          out(ids.map((i) => `${i}:\n  mId=${i} mSettingsActivity=null\n`).join(""));
        }
        return 0;
      case "enable":
      case "disable":
        if (!ids.includes(args[1] ?? "")) {
          io.err(
            enc.encode(`Unknown input method ${args[1] ?? ""} cannot be enabled for user #0\n`),
          );
          return 255;
        }
        out(
          `Input method ${args[1]}: already ${
            args[0] === "enable" ? "enabled" : "disabled"
          } for user #0\n`,
        );
        return 0;
      case "set":
        if (!ids.includes(args[1] ?? "")) {
          io.err(
            enc.encode(`Unknown input method ${args[1] ?? ""} cannot be selected for user #0\n`),
          );
          return 255;
        }
        this.currentIme = args[1];
        out(`Input method ${args[1]} selected for user #0\n`);
        return 0;
      case "reset":
        this.currentIme = IME_ID;
        out(`Reset current and enabled IMEs for user #0\n  Selected: ${IME_ID}\n`);
        return 0;
    }
    io.err(
      enc.encode(
        "ime <command>:\n  list [-a] [-s]\n  enable [--user <USER_ID>] <ID>\n  disable [--user <USER_ID>] <ID>\n  set [--user <USER_ID>] <ID>\n  reset [--user <USER_ID>]\n",
      ),
    );
    return args.length === 0 ? 0 : 255;
  }

  /** `dumpsys input_method` (keyboard shown) and `dumpsys window` (focus, IME window). */
  /** Milliseconds since the device booted, as `dumpsys` prints uptime. */
  private uptimeMs(): number {
    const boot = this.apps()?.bootTime ?? this.bootedAt;
    return Date.now() - boot + 3_600_000;
  }
  private readonly bootedAt = Date.now();

  /** `dumpsys gfxinfo [<package>] [reset]`: the sample app's frames; others drew none. */
  private gfxinfo(args: string[], io: ShIo): number {
    const reset = args.includes("reset");
    const prefix = args.find((a) => !a.startsWith("-") && a !== "reset" && a !== "framestats");
    const apps = this.apps();
    let text = gfxinfoHeader(Math.round(this.uptimeMs()));
    const procs = apps
      ? [...apps.procs.values()].filter((p) => p.pkg && (!prefix || p.name.startsWith(prefix)))
      : [];
    for (const p of procs.sort((a, b) => a.pid - b.pid)) {
      if (p.name === SAMPLE_PACKAGE) {
        const top = apps?.topActivity();
        const component = top?.pkg === SAMPLE_PACKAGE
          ? `${top.pkg}/${top.cls}`
          : `${SAMPLE_PACKAGE}/com.example.keynobi.sample.MainActivity`;
        text += gfxinfoSection(this.frames.counters, this.device.api, p.pid, p.name, component);
        if (reset) this.frames.reset();
      } else {
        // A process that has not drawn with HWUI prints its header and no statistics.
        text += `** Graphics info for pid ${p.pid} [${p.name}] **\nProfile data in ms:\n\n`;
      }
    }
    io.out(enc.encode(text));
    return 0;
  }

  private dumpsys(args: string[], io: ShIo): number | null {
    if (args[0] === "gfxinfo") return this.gfxinfo(args.slice(1), io);
    const t = this.clock.now();
    this.tick(t);
    const app = this.app;
    const dumpKeyboard = this.shownDump !== null ? keyboardWindow(this.shownDump) !== null : null;
    const report = this.settings.imeReport;
    const shown = report === "follow"
      ? dumpKeyboard ?? (app.keyboard.shown && app.front === "app")
      : report === "shown";
    const visible = dumpKeyboard ?? app.keyboardVisible(t);
    // The focused window is the apps service's top activity when there is one.
    const top = this.apps()?.topActivity();
    const focus = top ? `${top.pkg}/${top.cls}` : app.focusedComponent();
    const win = top ? windowId(top) : "5f3b2c1";
    const task = top ? top.task : 12;
    const record = top ? activityRecord(top) : `ActivityRecord{e4f5a6b u0 ${focus} t12}`;
    if (args[0] === "input_method") {
      const lines = [
        "Current Input Method Manager state:",
        "  Input Methods: mMethodMapUpdateCount=2",
        `  InputMethod #0:`,
        `    mId=${IME_ID} mSettingsActivity=com.google.android.apps.inputmethod.latin.settings.SettingsActivity`,
        `  mCurMethodId=${this.currentIme}`,
        `  mCurFocusedWindowClient=ClientState{${hex(0x3c1a2b)} mUid=10150 mPid=4242}`,
        `  mCurClient=ClientState{${hex(0x3c1a2b)} mUid=10150 mPid=4242}`,
        `  mCurId=${this.currentIme} mHaveConnection=true mBoundToMethod=true mVisibleBound=${shown}`,
        `  mInputShown=${shown}`,
        `  mShowRequested=${shown} mShowExplicitlyRequested=false mShowForced=false`,
        `  mCurToken=android.os.Binder@${hex(0x5e1f00d)}`,
        "  mCurHostInputToken=null",
        `  mImeWindowVis=${shown ? "3" : "0"}`,
        "  Client:",
        `    mIsInputViewShown=${visible}`,
        `    mWindowVisible=${visible}`,
      ];
      io.out(enc.encode(lines.join("\n") + "\n"));
      return 0;
    }
    if (args[0] === "window" && (args.length === 1 || ["windows", "w", "-a"].includes(args[1]))) {
      const ime = "Window{a1b2c3d u0 InputMethod}";
      const lines = [
        "WINDOW MANAGER WINDOWS (dumpsys window windows)",
        "  Window #0 Window{7d3e8f1 u0 StatusBar}:",
        "    mDisplayId=0 rootTaskId=1 mSession=Session{b1c2d3e 1234:u0a10080} mClient=android.os.BinderProxy@8e7f6a5",
        "    isOnScreen=true",
        "    isVisible=true",
        `  Window #1 ${ime}:`,
        "    mDisplayId=0 rootTaskId=1 mSession=Session{c2d3e4f 3456:u0a10150} mClient=android.os.BinderProxy@9f8e7d6",
        `    isOnScreen=${visible}`,
        `    isVisible=${visible}`,
        `  Window #2 Window{${win} u0 ${focus}}:`,
        `    mDisplayId=0 rootTaskId=${task} mSession=Session{d3e4f5a 4242:u0a10150} mClient=android.os.BinderProxy@1a2b3c4`,
        "    isOnScreen=true",
        "    isVisible=true",
        "",
        `  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long port finger -keyb/v/h -nav/h winConfig={ mBounds=Rect(0, 0 - ${this.size().width}, ${this.size().height})} s.6}`,
        `  mCurrentFocus=Window{${win} u0 ${focus}}`,
        `  mFocusedApp=${record}`,
        `  mInputMethodWindow=${ime}`,
        `  mInputMethodTarget=${shown ? `Window{${win} u0 ${focus}}` : "null"}`,
      ];
      io.out(enc.encode(lines.join("\n") + "\n"));
      return 0;
    }
    return null;
  }

  /** `am broadcast -a ADB_INPUT_TEXT|ADB_INPUT_B64 --es msg <text>` (the ADB keyboard). */
  private broadcast(args: string[], io: ShIo): number | null {
    if (args[0] !== "broadcast") return null;
    const a = args.indexOf("-a");
    const action = a >= 0 ? args[a + 1] : undefined;
    if (action !== "ADB_INPUT_TEXT" && action !== "ADB_INPUT_B64") return null;
    const e = args.indexOf("--es");
    const msg = e >= 0 && args[e + 1] === "msg" ? args[e + 2] : undefined;
    io.out(enc.encode(
      `Broadcasting: Intent { act=${action} flg=0x400000${
        msg !== undefined ? " (has extras)" : ""
      } }\n` +
        "Broadcast completed: result=0\n",
    ));
    if (msg === undefined || !this.settings.adbKeyboard || this.currentIme !== ADB_KEYBOARD_ID) {
      return 0;
    }
    let text = msg;
    if (action === "ADB_INPUT_B64") {
      try {
        text = dec.decode(Uint8Array.from(atob(msg), (c) => c.charCodeAt(0)));
      } catch {
        return 0;
      }
    }
    this.tick(this.clock.now());
    this.acted();
    this.app.type(text);
    return 0;
  }

  // ---- simctl

  simctl(args: string[], io: ShIo): Promise<number | null> | number | null {
    const [sub, arg] = args;
    const fail = (msg: string) => {
      io.err(enc.encode(`simctl: ${msg}\n`));
      return 1;
    };
    const onOff = (v: string | undefined) => v === "on" ? true : v === "off" ? false : null;
    switch (sub) {
      case "show-dump":
        return this.simctlShowDump(arg, io);
      case "ui-busy": {
        const s = Number(arg);
        if (arg === undefined || !Number.isFinite(s) || s < 0 || s > MAX_BUSY_SECONDS) {
          return fail(`usage: simctl ui-busy <seconds 0..${MAX_BUSY_SECONDS}>`);
        }
        this.setBusy(s);
        return 0;
      }
      case "ui-tty": {
        const v = onOff(arg);
        if (v === null) return fail("usage: simctl ui-tty on|off");
        this.settings.tty = v;
        return 0;
      }
      case "ui-windows":
        if (arg !== "all" && arg !== "active") return fail("usage: simctl ui-windows all|active");
        this.settings.windows = arg;
        return 0;
      case "ui-spelling":
        if (arg !== "misspelled" && arg !== "corrected") {
          return fail("usage: simctl ui-spelling misspelled|corrected");
        }
        this.settings.spelling = arg;
        return 0;
      case "ui-dump-ms": {
        const ms = Number(arg);
        if (!/^\d+$/.test(arg ?? "") || ms > MAX_DUMP_MS) {
          return fail(`usage: simctl ui-dump-ms <0..${MAX_DUMP_MS}>`);
        }
        this.settings.dumpMs = ms;
        return 0;
      }
      case "ui-dump-error": {
        const v = Object.values(DumpError).find((x) => x === arg);
        if (!v) return fail(`usage: simctl ui-dump-error ${Object.values(DumpError).join("|")}`);
        this.settings.dumpError = v;
        return 0;
      }
      case "ui-adb-keyboard": {
        const v = onOff(arg);
        if (v === null) return fail("usage: simctl ui-adb-keyboard on|off");
        this.setAdbKeyboard(v);
        return 0;
      }
      case "ui-ime-report":
        if (arg !== "follow" && arg !== "shown" && arg !== "hidden") {
          return fail("usage: simctl ui-ime-report follow|shown|hidden");
        }
        this.settings.imeReport = arg;
        return 0;
      case "ui-rotation": {
        if (!/^[0-3]$/.test(arg ?? "")) return fail("usage: simctl ui-rotation 0|1|2|3");
        this.settings.rotation = Number(arg);
        return 0;
      }
      case "ui-front":
        if (this.apps()) return this.simctlFront(arg, io);
        if (arg === "app") this.app.bringToFront(this.clock.now());
        else if (arg === "launcher") this.app.toLauncher();
        else if (arg === "stopped") {
          this.appAlive = false;
          this.app.stopped();
        } else return fail("usage: simctl ui-front app|launcher|stopped");
        this.acted();
        return 0;
      case "ui-state":
        io.out(enc.encode(JSON.stringify(this.state()) + "\n"));
        return 0;
    }
    return null;
  }

  /** `simctl ui-front` on a device with an apps service: the change goes through it. */
  private simctlFront(arg: string | undefined, io: ShIo): number {
    const apps = this.apps()!;
    const t = this.clock.now();
    this.sync(t);
    if (arg === "app") {
      if (!apps.launch(SAMPLE_PACKAGE)) {
        io.err(enc.encode(`simctl: ui-front: ${SAMPLE_PACKAGE} is not installed\n`));
        return 1;
      }
    } else if (arg === "launcher") apps.goHome();
    else if (arg === "stopped") apps.forceStop(SAMPLE_PACKAGE);
    else {
      io.err(enc.encode("simctl: usage: simctl ui-front app|launcher|stopped\n"));
      return 1;
    }
    this.sync(t);
    return 0;
  }

  private async simctlShowDump(hostFile: string | undefined, io: ShIo): Promise<number> {
    if (hostFile === undefined) {
      io.err(enc.encode("simctl: usage: simctl show-dump <host file>\n"));
      return 1;
    }
    try {
      const info = await Deno.stat(hostFile);
      if (info.size > MAX_SHOW_DUMP_BYTES) {
        io.err(enc.encode(`simctl: ${hostFile} is over ${MAX_SHOW_DUMP_BYTES} bytes\n`));
        return 1;
      }
      this.showDump(await Deno.readTextFile(hostFile));
      return 0;
    } catch (e) {
      io.err(enc.encode(`simctl: cannot read ${hostFile}: ${(e as Error).message}\n`));
      return 1;
    }
  }

  setBusy(seconds: number) {
    this.busyUntil = this.clock.now() + Math.min(seconds, MAX_BUSY_SECONDS) * 1000;
  }

  /** As `ime set <id>` would (tests select another keyboard with it). */
  selectIme(id: string) {
    this.currentIme = id;
  }

  setAdbKeyboard(installed: boolean) {
    this.settings.adbKeyboard = installed;
    this.currentIme = installed ? ADB_KEYBOARD_ID : IME_ID;
  }

  /** A summary of the app's state for tests. */
  state() {
    const t = this.clock.now();
    this.tick(t);
    const a = this.app;
    return {
      front: a.front,
      screen: a.top().kind,
      focus: a.focus,
      fields: {
        email: a.fields.email.text,
        password: a.fields.password.text,
        query: a.fields.query.text,
      },
      keyboard: a.keyboard.shown,
      keyboardVisible: a.keyboardVisible(t),
      dialog: a.dialogVisible(t),
      loading: a.loading(t),
      scroll: a.scrollAt(t),
      selectedRow: a.selectedRow,
      searchResults: a.searchResults,
      showingDump: this.shownDump !== null,
      dumpTaps: this.dumpTaps,
      activity: `${SAMPLE_PACKAGE}/${SAMPLE_ACTIVITY}`,
    };
  }
}

function alreadyRegistered(now: number): string {
  const id = hex(0x4a5c3d2 + Math.floor(now) % 0xfff);
  return "java.lang.RuntimeException: Error while connecting UiAutomation@" + hex(0x8f1e2d3) +
    "[id=-1, flags=0]\n" +
    "\tat android.app.UiAutomation.connect(UiAutomation.java:340)\n" +
    "\tat android.app.UiAutomation.connect(UiAutomation.java:283)\n" +
    "\tat com.android.uiautomator.core.UiAutomationShellWrapper.connect(UiAutomationShellWrapper.java:32)\n" +
    "\tat com.android.commands.uiautomator.DumpCommand.run(DumpCommand.java:88)\n" +
    "\tat com.android.commands.uiautomator.Launcher.main(Launcher.java:83)\n" +
    "\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)\n" +
    "\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:355)\n" +
    "Caused by: java.lang.IllegalStateException: UiAutomationService " +
    `android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@${id}already registered!\n` +
    "\tat android.os.Parcel.createExceptionOrNull(Parcel.java:3069)\n" +
    "\tat android.os.Parcel.createException(Parcel.java:3053)\n" +
    "\tat android.os.Parcel.readException(Parcel.java:3036)\n" +
    "\tat android.app.UiAutomation.connect(UiAutomation.java:336)\n" +
    "\t... 6 more\n";
}

/** InputShellCommand's report of an exception while running a sub-command (exit 255). */
function javaError(
  cmd: string,
  exception: string,
  frame = "com.android.server.input.InputShellCommand.onCommand",
): UsageError {
  return new UsageError(
    `Exception occurred while executing '${cmd}':\n${exception}\n` +
      `\tat ${frame}(InputShellCommand.java:0)\n`,
  );
}

/** The factory tests/sim/services.ts lists. */
export function uiService(device: VirtualDevice, _world: SimWorld): UiService {
  return new UiService(device);
}
