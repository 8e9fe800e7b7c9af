/**
 * "Keynobi Sample": the small app every simulated device shows, its launcher, the status bar and
 * the soft keyboard, as accessibility node trees. Everything is a pure function of the state and a
 * time: an action records when it happened, and a capture at time `t` sees where the transition,
 * ripple, spinner, fling or keyboard is at `t`. Nothing here reads the clock.
 */
import { contains, offset, place, type PlacedNode, type Rect, type UiNode, walk } from "./xml.ts";

export const SAMPLE_PACKAGE = "com.example.keynobi.sample.demo.debug";
export const SAMPLE_ACTIVITY = "com.example.keynobi.sample.MainActivity";
export const LAUNCHER_PACKAGE = "com.google.android.apps.nexuslauncher";
export const LAUNCHER_ACTIVITY = "com.google.android.apps.nexuslauncher.NexusLauncherActivity";
export const IME_PACKAGE = "com.google.android.inputmethod.latin";
export const IME_ID = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME";
export const SYSTEMUI_PACKAGE = "com.android.systemui";
/** The class of a key node in the keyboard's accessibility tree. */
export const KEY_CLASS = "com.android.inputmethod.keyboard.Key";

/** How long the tapped element's ripple state lasts. */
export const RIPPLE_MS = 250;
/** From a tap to the start of the screen's response (navigation, dialog). */
export const RESPONSE_DELAY_MS = 300;
/** A screen transition: bounds move over this long. */
export const TRANSITION_MS = 500;
/** How long the indeterminate ProgressBar stays up. */
export const SPINNER_MS = 1000;
/** From focusing a field to the keyboard's window appearing. */
export const KEYBOARD_DELAY_MS = 150;
/** How long a fling keeps the list moving after the finger lifts. */
export const FLING_MS = 600;
/** A press held this long without moving is a long press. */
export const LONG_PRESS_MS = 400;
/** Movement below this is still a tap (ViewConfiguration's touch slop, roughly). */
export const TOUCH_SLOP_PX = 24;
/** A lift faster than this flings; slower (or after a pause) moves exactly the dragged distance. */
export const FLING_MIN_VELOCITY_PX_S = 1000;
/** Extra fling distance = lift velocity (px/s) × this. */
export const FLING_SECONDS = 0.25;
/** A lift this long after the last move has no velocity (the finger paused). */
export const PAUSE_BEFORE_LIFT_MS = 100;
/** Rows in the home list. */
export const LIST_ITEMS = 40;
/** Longest text a field keeps (more typing is dropped). */
export const MAX_FIELD_CHARS = 5000;

const P = SAMPLE_PACKAGE;
const IME_OBF = `${IME_PACKAGE}:id/0_resource_name_obfuscated`;

export type Screen =
  | { kind: "home" }
  | { kind: "form" }
  | { kind: "search" }
  | { kind: "detail"; item: number }
  | { kind: "data" };

export type FieldKey = "email" | "password" | "query";

export interface Field {
  text: string;
  cursor: number;
}

export interface WindowTree {
  kind: "app" | "dialog" | "launcher" | "status" | "ime";
  pkg: string;
  root: UiNode;
}

interface Transition {
  dir: "in" | "out";
  moving: Screen;
  start: number;
}

interface ScrollMotion {
  t0: number;
  dragMs: number;
  s0: number;
  s1: number;
  s2: number;
}

/** What one row of the home list shows and opens. */
export function listItem(k: number): { title: string; subtitle: string; act: string } {
  switch (k) {
    case 0:
      return { title: "Sign in", subtitle: "A form with text fields", act: "nav:form" };
    case 1:
      return { title: "Search", subtitle: "Find items by name", act: "nav:search" };
    case 2:
      return { title: "Show dialog", subtitle: "Ask before deleting", act: "dialog:open" };
    case 3:
      return { title: "Load data", subtitle: "Shows a spinner for a second", act: "nav:data" };
  }
  return { title: `Item ${k + 1}`, subtitle: `Details for item ${k + 1}`, act: `nav:detail:${k}` };
}

const easeOut = (p: number) => 1 - (1 - p) ** 3;
const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

interface Metrics {
  w: number;
  h: number;
  dp: (v: number) => number;
  sb: number;
  tb: number;
  row: number;
}

function node(
  cls: string,
  pkg: string,
  bounds: Rect,
  props: Partial<UiNode> = {},
  children: UiNode[] = [],
): UiNode {
  return { cls, pkg, bounds, ...props, children };
}

function rect(l: number, t: number, r: number, b: number): Rect {
  return { l, t, r, b };
}

/** Moves a subtree (a sliding screen). */
function shift(n: UiNode, dx: number, dy: number): UiNode {
  return {
    ...n,
    bounds: offset(n.bounds, dx, dy),
    children: (n.children ?? []).map((c) => shift(c, dx, dy)),
  };
}

export class SampleApp {
  front: "app" | "launcher" = "app";
  stack: Screen[] = [{ kind: "home" }];
  transition: Transition | null = null;
  /** When the app's window starts sliding in over the launcher (a launch). */
  launchAt: number | null = null;
  ripple: { act: string; start: number } | null = null;
  dialogAt: number | null = null;
  focus: FieldKey | null = null;
  fields: Record<FieldKey, Field> = {
    email: { text: "", cursor: 0 },
    password: { text: "", cursor: 0 },
    query: { text: "", cursor: 0 },
  };
  remember = false;
  keyboard: { shown: boolean; at: number } = { shown: false, at: 0 };
  scroll: ScrollMotion = { t0: 0, dragMs: 0, s0: 0, s1: 0, s2: 0 };
  selectedRow: number | null = null;
  searchResults: string[] | null = null;
  signInAt: number | null = null;
  signedInAs = "";
  dataLoadAt = 0;
  shared = false;
  /**
   * What is broken in the installed build (the apps service reads it from the APK the fake Gradle
   * wrote): `sign_in` makes SIGN IN fail with valid input, as a regression in that build would.
   */
  defects: () => readonly string[] = () => [];
  /** Every action the app received, newest last (bounded), for tests. */
  readonly events: string[] = [];

  constructor(private readonly size: () => { width: number; height: number; density: number }) {}

  private log(e: string) {
    this.events.push(e);
    if (this.events.length > 200) this.events.shift();
  }

  metrics(): Metrics {
    const { width, height, density } = this.size();
    const dp = (v: number) => Math.round(v * density / 160);
    return { w: width, h: height, dp, sb: dp(24), tb: dp(56), row: dp(72) };
  }

  // ---- state queries

  top(): Screen {
    return this.stack[this.stack.length - 1];
  }

  keyboardVisible(t: number): boolean {
    return this.front === "app" && this.keyboard.shown && t >= this.keyboard.at + KEYBOARD_DELAY_MS;
  }

  dialogVisible(t: number): boolean {
    return this.front === "app" && this.dialogAt !== null && t >= this.dialogAt;
  }

  scrollAt(t: number): number {
    const m = this.scroll;
    if (t < m.t0) return m.s0;
    if (t < m.t0 + m.dragMs) return Math.round(m.s0 + (m.s1 - m.s0) * (t - m.t0) / m.dragMs);
    const f = t - m.t0 - m.dragMs;
    if (f < FLING_MS && m.s2 !== m.s1) {
      return Math.round(m.s1 + (m.s2 - m.s1) * easeOut(f / FLING_MS));
    }
    return m.s2;
  }

  maxScroll(): number {
    const m = this.metrics();
    return Math.max(0, m.tb + LIST_ITEMS * m.row - (m.h - m.sb));
  }

  loading(t: number): boolean {
    if (this.front !== "app") return false;
    const s = this.top();
    if (s.kind === "data") return t < this.dataLoadAt;
    if (s.kind === "form" && this.signInAt !== null) return t < this.signInAt + SPINNER_MS;
    return false;
  }

  /** The focused activity's component, as `dumpsys window` names it. */
  focusedComponent(): string {
    return this.front === "app"
      ? `${SAMPLE_PACKAGE}/${SAMPLE_ACTIVITY}`
      : `${LAUNCHER_PACKAGE}/${LAUNCHER_ACTIVITY}`;
  }

  actionLabel(): string {
    switch (this.focus) {
      case "query":
        return "Search";
      case "email":
        return "Next";
      case "password":
        return "Done";
    }
    return "Enter";
  }

  // ---- lifecycle

  /** A cold start (`am start` of a stopped app): fresh state, the window slides in. */
  coldStart(t: number) {
    const keep = { events: this.events, batteryLevel: this.batteryLevel, defects: this.defects };
    Object.assign(this, new SampleApp(this.size), keep);
    this.front = "app";
    this.launchAt = t;
    this.log("cold-start");
  }

  /** Brings the app to the front as it was (warm start), or keeps it there. */
  bringToFront(t: number) {
    if (this.front === "app") return;
    this.front = "app";
    this.launchAt = t;
    this.log("to-front");
  }

  /** The app's process died (force-stop, crash): the launcher shows. */
  stopped() {
    this.toLauncher();
    this.stack = [{ kind: "home" }];
    this.log("stopped");
  }

  toLauncher() {
    this.front = "launcher";
    this.keyboard = { shown: false, at: 0 };
    this.focus = null;
    this.dialogAt = null;
    this.transition = null;
    this.launchAt = null;
  }

  // ---- windows at time t

  windows(t: number): WindowTree[] {
    const m = this.metrics();
    const out: WindowTree[] = [];
    const launching = this.launchAt !== null && t < this.launchAt + TRANSITION_MS;
    if (this.front === "launcher" || launching) {
      out.push({ kind: "launcher", pkg: LAUNCHER_PACKAGE, root: this.launcherWindow(m) });
    }
    if (this.front === "app" && !(this.launchAt !== null && t < this.launchAt)) {
      let root = this.appWindow(m, t);
      if (launching) {
        const p = easeOut((t - this.launchAt!) / TRANSITION_MS);
        root = shift(root, 0, Math.round((m.h - m.sb) * (1 - p)));
      }
      out.push({ kind: "app", pkg: P, root });
      if (this.dialogVisible(t)) out.push({ kind: "dialog", pkg: P, root: this.dialogWindow(m) });
    }
    out.push({ kind: "status", pkg: SYSTEMUI_PACKAGE, root: this.statusBar(m) });
    if (this.keyboardVisible(t)) {
      out.push({ kind: "ime", pkg: IME_PACKAGE, root: this.imeWindow(m) });
    }
    if (this.ripple && t >= this.ripple.start && t < this.ripple.start + RIPPLE_MS) {
      for (const w of out) applyRipple(w.root, this.ripple.act);
    }
    return out;
  }

  /** The windows clipped to the screen, ready to dump or draw. */
  placed(t: number): { kind: WindowTree["kind"]; placed: PlacedNode }[] {
    const m = this.metrics();
    const screen = rect(0, 0, m.w, m.h);
    const out = [];
    for (const w of this.windows(t)) {
      const p = place(w.root, screen);
      if (p) out.push({ kind: w.kind, placed: p });
    }
    return out;
  }

  /** Keyboard area top (y), for `dumpsys` and tests. */
  imeTop(): number {
    const m = this.metrics();
    return m.h - Math.round(m.h * 0.37);
  }

  private statusBar(m: Metrics): UiNode {
    const S = SYSTEMUI_PACKAGE;
    const bar = rect(0, 0, m.w, m.sb);
    const icon = (k: number, desc: string, id: string) =>
      node(
        "android.widget.ImageView",
        S,
        rect(
          m.w - m.dp(16) - (k + 1) * m.dp(20),
          m.dp(4),
          m.w - m.dp(16) - k * m.dp(20),
          m.sb - m.dp(4),
        ),
        {
          id: `${S}:id/${id}`,
          desc,
        },
      );
    const level = this.batteryLevel();
    return node("android.widget.FrameLayout", S, bar, {}, [
      node("android.widget.FrameLayout", S, bar, { id: `${S}:id/status_bar` }, [
        node("android.widget.TextView", S, rect(m.dp(16), 0, m.dp(64), m.sb), {
          id: `${S}:id/clock`,
          text: "12:00",
          desc: "12:00",
        }),
        node("android.widget.LinearLayout", S, rect(m.w - m.dp(76), 0, m.w - m.dp(16), m.sb), {
          id: `${S}:id/system_icons`,
          layout: true,
        }, [
          icon(0, `Battery ${level} percent.`, "battery"),
          icon(1, "Wifi signal full.", "wifi_signal"),
        ]),
      ]),
    ]);
  }

  batteryLevel: () => number = () => 100;

  private appWindow(m: Metrics, t: number): UiNode {
    const full = rect(0, 0, m.w, m.h);
    const content = rect(0, m.sb, m.w, m.h);
    const screens: UiNode[] = [];
    const tr = this.transition;
    const active = tr && t >= tr.start && t < tr.start + TRANSITION_MS ? tr : null;
    const pending = tr && t < tr.start ? tr : null;
    if (pending && pending.dir === "in") {
      // Before the response: the screen under the new one is still alone.
      screens.push(this.screen(this.stack[this.stack.length - 2], m, t));
    } else if (active) {
      const p = easeOut((t - active.start) / TRANSITION_MS);
      if (active.dir === "in") {
        screens.push(this.screen(this.stack[this.stack.length - 2], m, t));
        screens.push(shift(this.screen(active.moving, m, t), Math.round(m.w * (1 - p)), 0));
      } else {
        screens.push(this.screen(this.top(), m, t));
        screens.push(shift(this.screen(active.moving, m, t), Math.round(m.w * p), 0));
      }
    } else if (pending && pending.dir === "out") {
      screens.push(this.screen(pending.moving, m, t));
    } else {
      screens.push(this.screen(this.top(), m, t));
    }
    return node("android.widget.FrameLayout", P, full, {}, [
      node("android.widget.LinearLayout", P, full, { layout: true }, [
        node("android.widget.FrameLayout", P, content, { id: "android:id/content" }, screens),
      ]),
    ]);
  }

  private toolbar(m: Metrics, title: string, back: boolean, extra: UiNode[] = []): UiNode {
    const bar = rect(0, m.sb, m.w, m.sb + m.tb);
    const kids: UiNode[] = [];
    let x = m.dp(16);
    if (back) {
      kids.push(
        node("android.widget.ImageButton", P, rect(0, m.sb, m.tb, m.sb + m.tb), {
          desc: "Navigate up",
          clickable: true,
          focusable: true,
          act: "back",
        }),
      );
      x = m.tb + m.dp(16);
    }
    if (title !== "") {
      kids.push(
        node(
          "android.widget.TextView",
          P,
          rect(x, m.sb + m.dp(14), x + m.dp(180), m.sb + m.tb - m.dp(14)),
          {
            text: title,
          },
        ),
      );
    }
    kids.push(...extra);
    return node("android.view.ViewGroup", P, bar, { id: `${P}:id/toolbar` }, kids);
  }

  private editText(key: FieldKey, bounds: Rect, hint: string, password = false): UiNode {
    const f = this.fields[key];
    const shown = f.text === "" ? hint : password ? "•".repeat([...f.text].length) : f.text;
    const id = key === "query" ? "search_src_text" : key;
    return node("android.widget.EditText", P, bounds, {
      id: `${P}:id/${id}`,
      text: shown,
      hint,
      clickable: true,
      focusable: true,
      focused: this.focus === key,
      longClickable: true,
      password,
      act: `field:${key}`,
    });
  }

  private spinner(m: Metrics): UiNode {
    const s = m.dp(48);
    const cx = Math.round(m.w / 2);
    const cy = Math.round((m.sb + m.tb + m.h) / 2);
    return node("android.widget.ProgressBar", P, rect(cx - s, cy - s, cx + s, cy + s), {
      id: `${P}:id/progress`,
    });
  }

  private screen(s: Screen, m: Metrics, t: number): UiNode {
    const body = rect(0, m.sb, m.w, m.h);
    const under = m.sb + m.tb;
    const pad = m.dp(16);
    const kids: UiNode[] = [];
    switch (s.kind) {
      case "home": {
        const scroll = this.scrollAt(t);
        const rows: UiNode[] = [];
        for (let k = 0; k < LIST_ITEMS; k++) {
          const top = under - scroll + k * m.row;
          if (top + m.row <= m.sb || top >= m.h) continue;
          const it = listItem(k);
          const r = rect(0, top, m.w, top + m.row);
          rows.push(
            node("android.widget.LinearLayout", P, r, {
              id: `${P}:id/row`,
              clickable: true,
              focusable: true,
              longClickable: true,
              selected: this.selectedRow === k,
              act: it.act,
              longAct: `select:${k}`,
            }, [
              node(
                "android.widget.TextView",
                P,
                rect(pad, top + m.dp(12), m.w - pad, top + m.dp(40)),
                {
                  id: `${P}:id/title`,
                  text: it.title,
                },
              ),
              node(
                "android.widget.TextView",
                P,
                rect(pad, top + m.dp(40), m.w - pad, top + m.dp(62)),
                {
                  id: `${P}:id/subtitle`,
                  text: it.subtitle,
                },
              ),
            ]),
          );
        }
        kids.push(
          node("androidx.recyclerview.widget.RecyclerView", P, body, {
            id: `${P}:id/list`,
            focusable: true,
            scrollable: true,
          }, rows),
        );
        const title = this.selectedRow !== null ? "1 selected" : "Keynobi Sample";
        kids.push(this.toolbar(m, title, false, [
          node("android.widget.Button", P, rect(m.w - 2 * m.tb, m.sb, m.w - m.tb, under), {
            id: `${P}:id/action_search`,
            desc: "Search",
            clickable: true,
            focusable: true,
            longClickable: true,
            act: "nav:search",
          }),
          node("android.widget.ImageView", P, rect(m.w - m.tb, m.sb, m.w, under), {
            desc: "More options",
            clickable: true,
            focusable: true,
            act: "noop:more",
          }),
        ]));
        const f = m.dp(56);
        kids.push(
          node(
            "android.widget.ImageButton",
            P,
            rect(m.w - pad - f, m.h - pad - f, m.w - pad, m.h - pad),
            { id: `${P}:id/fab`, clickable: true, focusable: true, act: "dialog:open" },
          ),
        );
        break;
      }
      case "form": {
        kids.push(this.toolbar(m, "Sign in", true));
        const fh = m.dp(56);
        let y = under + pad;
        const form: UiNode[] = [];
        form.push(this.editText("email", rect(pad, y, m.w - pad, y + fh), "Email"));
        y += fh + pad;
        form.push(this.editText("password", rect(pad, y, m.w - pad, y + fh), "Password", true));
        y += fh + pad;
        form.push(
          node("android.widget.CheckBox", P, rect(pad, y, m.w - pad, y + m.dp(48)), {
            id: `${P}:id/remember`,
            text: "Remember me",
            checkable: true,
            checked: this.remember,
            clickable: true,
            focusable: true,
            act: "check:remember",
          }),
        );
        y += m.dp(48) + pad;
        form.push(
          node("android.widget.Button", P, rect(pad, y, m.w - pad, y + fh), {
            id: `${P}:id/sign_in`,
            text: "SIGN IN",
            clickable: true,
            focusable: true,
            act: "signin",
          }),
        );
        y += fh + pad;
        if (this.signInAt !== null && t >= this.signInAt + SPINNER_MS && this.signedInAs !== "") {
          form.push(
            node("android.widget.TextView", P, rect(pad, y, m.w - pad, y + m.dp(24)), {
              id: `${P}:id/status`,
              text: this.signedInAs,
            }),
          );
        }
        kids.push(node("android.widget.LinearLayout", P, rect(0, under, m.w, m.h), {
          id: `${P}:id/form`,
        }, form));
        if (this.loading(t)) kids.push(this.spinner(m));
        break;
      }
      case "search": {
        const field = this.editText(
          "query",
          rect(m.tb, m.sb + m.dp(8), m.w - pad, under - m.dp(8)),
          "Search items",
        );
        kids.push(this.toolbar(m, "", true, [field]));
        let y = under + pad;
        const results = this.searchResults;
        const label = results === null
          ? "Type a name and press Search"
          : `${results.length} result${results.length === 1 ? "" : "s"}`;
        kids.push(
          node("android.widget.TextView", P, rect(pad, y, m.w - pad, y + m.dp(24)), {
            id: `${P}:id/result_count`,
            text: label,
          }),
        );
        y += m.dp(24) + pad;
        const rows = (results ?? []).map((title, k) => {
          const top = y + k * m.row;
          return node("android.widget.TextView", P, rect(0, top, m.w, top + m.row), {
            id: `${P}:id/result`,
            text: title,
            clickable: true,
            focusable: true,
            act: "noop:result",
          });
        });
        kids.push(
          node("androidx.recyclerview.widget.RecyclerView", P, rect(0, y, m.w, m.h), {
            id: `${P}:id/results`,
            focusable: true,
            scrollable: rows.length * m.row > m.h - y,
          }, rows),
        );
        break;
      }
      case "detail": {
        const it = listItem(s.item);
        kids.push(this.toolbar(m, it.title, true));
        kids.push(
          node("android.widget.TextView", P, rect(pad, under + pad, m.w - pad, under + m.dp(64)), {
            id: `${P}:id/body`,
            text: it.subtitle,
          }),
        );
        kids.push(
          node(
            "android.widget.Button",
            P,
            rect(pad, under + m.dp(80), m.dp(160), under + m.dp(128)),
            {
              id: `${P}:id/share`,
              text: this.shared ? "SHARED" : "SHARE",
              clickable: true,
              focusable: true,
              act: "share",
            },
          ),
        );
        break;
      }
      case "data": {
        kids.push(this.toolbar(m, "Data", true));
        if (this.loading(t)) {
          kids.push(this.spinner(m));
        } else {
          for (let k = 0; k < 3; k++) {
            const top = under + pad + k * m.dp(48);
            kids.push(
              node("android.widget.TextView", P, rect(pad, top, m.w - pad, top + m.dp(40)), {
                id: `${P}:id/result`,
                text: `Result ${k + 1}`,
              }),
            );
          }
          const top = under + pad + 3 * m.dp(48);
          kids.push(
            node("android.widget.Button", P, rect(pad, top, m.dp(160), top + m.dp(48)), {
              id: `${P}:id/reload`,
              text: "RELOAD",
              clickable: true,
              focusable: true,
              act: "reload",
            }),
          );
        }
        break;
      }
    }
    return node("android.widget.FrameLayout", P, body, { layout: true }, kids);
  }

  private dialogWindow(m: Metrics): UiNode {
    const dw = Math.round(m.w * 0.84);
    const dh = m.dp(180);
    const l = Math.round((m.w - dw) / 2);
    const t = Math.round((m.h - dh) / 2);
    const box = rect(l, t, l + dw, t + dh);
    const pad = m.dp(24);
    const bh = m.dp(48);
    const btnTop = box.b - m.dp(8) - bh;
    return node("android.widget.FrameLayout", P, box, {}, [
      node("android.widget.FrameLayout", P, box, { id: "android:id/content" }, [
        node("android.widget.LinearLayout", P, box, { id: "android:id/parentPanel" }, [
          node("android.widget.TextView", P, rect(l + pad, t + pad, box.r - pad, t + m.dp(56)), {
            id: "android:id/alertTitle",
            text: "Delete item?",
          }),
          node(
            "android.widget.TextView",
            P,
            rect(l + pad, t + m.dp(64), box.r - pad, t + m.dp(112)),
            {
              id: "android:id/message",
              text: "This cannot be undone.",
            },
          ),
          node("android.widget.ScrollView", P, rect(l, btnTop, box.r, btnTop + bh), {
            id: "android:id/buttonPanel",
          }, [
            node(
              "android.widget.Button",
              P,
              rect(box.r - m.dp(200), btnTop, box.r - m.dp(108), btnTop + bh),
              {
                id: "android:id/button2",
                text: "CANCEL",
                clickable: true,
                focusable: true,
                act: "dialog:cancel",
              },
            ),
            node(
              "android.widget.Button",
              P,
              rect(box.r - m.dp(100), btnTop, box.r - m.dp(8), btnTop + bh),
              {
                id: "android:id/button1",
                text: "DELETE",
                clickable: true,
                focusable: true,
                act: "dialog:ok",
              },
            ),
          ]),
        ]),
      ]),
    ]);
  }

  private launcherWindow(m: Metrics): UiNode {
    const L = LAUNCHER_PACKAGE;
    const full = rect(0, 0, m.w, m.h);
    const apps = ["Phone", "Chrome", "Settings", "Keynobi Sample"];
    const cell = Math.floor(m.w / 4);
    const top = m.h - m.dp(200);
    const icons = apps.map((label, k) =>
      node("android.widget.TextView", L, rect(k * cell, top, (k + 1) * cell, top + m.dp(96)), {
        text: label,
        desc: label,
        clickable: true,
        focusable: true,
        longClickable: true,
        act: label === "Keynobi Sample" ? "launch" : `noop:${label}`,
      })
    );
    return node("android.widget.FrameLayout", L, full, {}, [
      node("android.widget.FrameLayout", L, full, { id: `${L}:id/launcher` }, [
        node("android.view.ViewGroup", L, rect(0, top, m.w, top + m.dp(96)), {
          id: `${L}:id/hotseat`,
        }, icons),
      ]),
    ]);
  }

  /** The keyboard rows, top to bottom: [label, relative width] pairs. */
  static keyRows(action: string): [string, number][][] {
    const letters = (s: string) => [...s].map((c) => [c, 1] as [string, number]);
    return [
      letters("qwertyuiop"),
      [["", 0.5], ...letters("asdfghjkl"), ["", 0.5]],
      [["Shift", 1.5], ...letters("zxcvbnm"), ["Delete", 1.5]],
      [["Symbols", 1.5], [",", 1], ["Emoji", 1], ["Space", 4], [".", 1], [action, 1.5]],
    ];
  }

  private imeWindow(m: Metrics): UiNode {
    const I = IME_PACKAGE;
    const top = this.imeTop();
    const area = rect(0, top, m.w, m.h);
    const strip = m.dp(48);
    const navGap = m.dp(24);
    const rowH = Math.floor((m.h - top - strip - navGap) / 4);
    const action = this.actionLabel();
    const keys: UiNode[] = [];
    SampleApp.keyRows(action).forEach((row, r) => {
      const total = 10;
      let x = 0;
      const y = top + strip + r * rowH;
      for (const [label, units] of row) {
        const w = Math.round(m.w * units / total);
        if (label !== "") {
          keys.push(
            node(KEY_CLASS, I, rect(x, y, x + w, y + rowH), {
              desc: label === "Space" ? "Space" : label,
              clickable: true,
              act: label === action && r === 3 ? "key:action" : `key:${label}`,
            }),
          );
        }
        x += w;
      }
    });
    return node("android.widget.FrameLayout", I, area, {}, [
      node("android.widget.LinearLayout", I, area, { id: IME_OBF, layout: true }, [
        node("android.widget.FrameLayout", I, rect(0, top, m.w, top + strip), { id: IME_OBF }, [
          node("android.widget.ImageView", I, rect(0, top, m.dp(56), top + strip), {
            desc: "Open features menu",
            clickable: true,
            act: "noop:features",
          }),
        ]),
        node("android.widget.FrameLayout", I, rect(0, top + strip, m.w, m.h - navGap), {
          id: `${I}:id/keyboard_view`,
        }, keys),
      ]),
    ]);
  }

  // ---- actions

  /** The node a touch at (x, y) lands on, top window first: its action keys. */
  hit(t: number, x: number, y: number): { act?: string; longAct?: string; window: string } | null {
    const wins = this.placed(t).reverse();
    for (const w of wins) {
      if (w.kind === "status") continue;
      if (!contains(w.placed.bounds, x, y)) {
        if (w.kind === "dialog") return { act: "dialog:outside", window: "dialog" };
        continue;
      }
      let best: PlacedNode | null = null;
      for (const p of walk([w.placed])) {
        if ((p.node.act || p.node.longAct) && contains(p.bounds, x, y)) best = p;
      }
      return { act: best?.node.act, longAct: best?.node.longAct, window: w.kind };
    }
    return null;
  }

  tap(t: number, x: number, y: number) {
    const h = this.hit(t, x, y);
    this.log(`tap ${x} ${y} -> ${h?.act ?? "nothing"}`);
    if (!h?.act) return;
    this.perform(h.act, t);
  }

  longPress(t: number, x: number, y: number) {
    const h = this.hit(t, x, y);
    this.log(`long-press ${x} ${y} -> ${h?.longAct ?? "nothing"}`);
    if (!h?.longAct) return;
    const m = /^select:(\d+)$/.exec(h.longAct);
    if (m) this.selectedRow = Number(m[1]);
  }

  /** Two fingers moved apart (scale > 1) or together around (x, y), then lifted. */
  pinch(_t: number, x: number, y: number, scale: number) {
    this.log(`pinch ${Math.round(x)} ${Math.round(y)} x${scale.toFixed(2)}`);
  }

  /**
   * A finger that long-pressed at (x0, y0), moved while held and lifted at (x, y): a
   * long-press-to-reorder drop.
   */
  holdDrag(t: number, x0: number, y0: number, x: number, y: number) {
    const from = this.hit(t, x0, y0);
    this.log(`hold-drag ${x0} ${y0} -> ${x} ${y} (${from?.longAct ?? "nothing"})`);
  }

  private navigate(to: Screen, t: number) {
    this.stack.push(to);
    this.transition = { dir: "in", moving: to, start: t + RESPONSE_DELAY_MS };
    this.focus = null;
    this.keyboard = { shown: false, at: 0 };
    const arrive = t + RESPONSE_DELAY_MS + TRANSITION_MS;
    if (to.kind === "data") this.dataLoadAt = arrive + SPINNER_MS;
    if (to.kind === "search") {
      this.fields.query = { text: "", cursor: 0 };
      this.searchResults = null;
      this.focus = "query";
      this.keyboard = { shown: true, at: arrive };
    }
    if (to.kind === "detail") this.shared = false;
  }

  /** Pops the top screen (back); at the bottom of the stack the app goes to the background. */
  back(t: number) {
    if (this.front !== "app") return;
    if (this.keyboard.shown) {
      this.keyboard = { shown: false, at: 0 };
      return;
    }
    if (this.dialogAt !== null) {
      this.dialogAt = null;
      return;
    }
    if (this.selectedRow !== null) {
      this.selectedRow = null;
      return;
    }
    if (this.stack.length > 1) {
      const moving = this.stack.pop()!;
      this.transition = { dir: "out", moving, start: t };
      this.focus = null;
      return;
    }
    this.toLauncher();
  }

  perform(act: string, t: number) {
    const [kind, arg, arg2] = act.split(":");
    if (kind !== "key" && kind !== "field") this.ripple = { act, start: t };
    switch (kind) {
      case "nav":
        if (arg === "detail") this.navigate({ kind: "detail", item: Number(arg2) }, t);
        else this.navigate({ kind: arg } as Screen, t);
        return;
      case "back":
        this.back(t);
        return;
      case "dialog":
        if (arg === "open") this.dialogAt = t + RESPONSE_DELAY_MS;
        else this.dialogAt = null;
        return;
      case "field":
        this.focus = arg as FieldKey;
        if (!this.keyboard.shown) this.keyboard = { shown: true, at: t };
        return;
      case "check":
        this.remember = !this.remember;
        return;
      case "signin":
        this.keyboard = { shown: false, at: 0 };
        this.focus = null;
        this.signInAt = t;
        this.signedInAs = this.fields.email.text === "" || this.fields.password.text === ""
          ? "Enter your email and password"
          : this.defects().includes("sign_in")
          ? "Something went wrong. Try again later."
          : `Signed in as ${this.fields.email.text}`;
        return;
      case "share":
        this.shared = true;
        return;
      case "reload":
        this.dataLoadAt = t + SPINNER_MS;
        return;
      case "launch":
        this.bringToFront(t + RESPONSE_DELAY_MS);
        return;
      case "key":
        this.imeKey(act.slice(4), t);
        return;
    }
  }

  private imeKey(label: string, t: number) {
    switch (label) {
      case "action":
        this.editorAction(t);
        return;
      case "Delete":
        this.deleteBack();
        return;
      case "Space":
        this.type(" ");
        return;
      case "Shift":
      case "Symbols":
      case "Emoji":
        return;
    }
    this.type(label);
  }

  /** The IME action key (and ENTER where the field handles it). */
  editorAction(t: number) {
    switch (this.focus) {
      case "query": {
        const q = this.fields.query.text.toLowerCase();
        const all = Array.from({ length: LIST_ITEMS }, (_, k) => listItem(k).title);
        this.searchResults = all.filter((s) => s.toLowerCase().includes(q));
        this.keyboard = { shown: false, at: 0 };
        this.log(`search ${this.fields.query.text}`);
        return;
      }
      case "email":
        this.focus = "password";
        return;
      case "password":
        this.keyboard = { shown: false, at: 0 };
        return;
    }
    void t;
  }

  // ---- typing into the focused field

  focusedField(): Field | null {
    return this.front === "app" && this.focus ? this.fields[this.focus] : null;
  }

  type(text: string) {
    const f = this.focusedField();
    if (!f) {
      this.log(`typed nowhere: ${text}`);
      return;
    }
    const chars = [...f.text];
    const add = [...text].slice(0, Math.max(0, MAX_FIELD_CHARS - chars.length));
    chars.splice(f.cursor, 0, ...add);
    f.text = chars.join("");
    f.cursor += add.length;
  }

  deleteBack() {
    const f = this.focusedField();
    if (!f || f.cursor === 0) return;
    const chars = [...f.text];
    chars.splice(f.cursor - 1, 1);
    f.text = chars.join("");
    f.cursor--;
  }

  deleteForward() {
    const f = this.focusedField();
    if (!f) return;
    const chars = [...f.text];
    if (f.cursor >= chars.length) return;
    chars.splice(f.cursor, 1);
    f.text = chars.join("");
  }

  moveCursor(to: "home" | "end") {
    const f = this.focusedField();
    if (f) f.cursor = to === "home" ? 0 : [...f.text].length;
  }

  nextField() {
    if (this.focus === "email") this.focus = "password";
  }

  // ---- scrolling

  /** Whether a drag starting at (x, y) moves the home list. */
  scrollsList(t: number, x: number, y: number): boolean {
    if (this.front !== "app" || this.top().kind !== "home" || this.dialogVisible(t)) return false;
    if (this.transition && t < this.transition.start + TRANSITION_MS) return false;
    const h = this.hit(t, x, y);
    return h !== null && h.window === "app";
  }

  /**
   * A drag of `dy` px (positive = finger moves up = content scrolls down) lasting `ms`, lifted
   * with `velocity` px/s: the list follows the finger, then flings when the lift was fast.
   */
  drag(t0: number, ms: number, dy: number, velocity: number) {
    const s0 = this.scrollAt(t0);
    const max = this.maxScroll();
    const s1 = clamp(s0 + dy, 0, max);
    const extra = Math.abs(velocity) > FLING_MIN_VELOCITY_PX_S
      ? Math.sign(dy) * Math.round(Math.abs(velocity) * FLING_SECONDS)
      : 0;
    const s2 = clamp(s1 + extra, 0, max);
    this.scroll = { t0, dragMs: Math.max(0, ms), s0, s1, s2 };
    this.log(`drag ${dy} v=${Math.round(velocity)} -> ${s2}`);
  }
}

/** The ripple: the tapped element's first child (or itself) is briefly in another state. */
function applyRipple(root: UiNode, act: string): void {
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.act === act) {
      const target = n.children && n.children.length > 0 ? n.children[0] : n;
      target.selected = !target.selected;
      return;
    }
    stack.push(...(n.children ?? []));
  }
}
