/**
 * What an agent's UI action was, as a flow step (recorded with its `agentAction` event, read back
 * by export_ui_flow, flow_export.ts): from the tool's name, arguments and structured result. Typed
 * text is kept unless it went into a password field, which keeps only the variable that stands
 * for it. Pure.
 */
import type { FlowSelector } from "./flow_selector.ts";

export interface RecordedTarget {
  selector: FlowSelector | null;
  /** Where it was tapped (device px), for a target nothing else identifies. */
  x: number | null;
  y: number | null;
}

export type RecordedStep =
  | { do: "tap" | "long_press"; target: RecordedTarget }
  | {
    do: "type";
    /** The field tapped first (ui_fill_input), or null (the focused field). */
    target: RecordedTarget | null;
    clear: boolean;
    /** The text typed; null when it was a password (then `secret` names its variable). */
    text: string | null;
    secret: string | null;
  }
  | { do: "key"; key: string }
  | { do: "hide_keyboard" }
  | { do: "swipe"; from: [number, number]; to: [number, number]; ms: number | null }
  | { do: "launch"; package: string; clear: boolean }
  | { do: "stop"; package: string }
  | { do: "open_link"; uri: string };

type Rec = Record<string, unknown>;

const num = (v: unknown) => typeof v === "number" && Number.isFinite(v) ? Math.round(v) : null;
const str = (v: unknown) => typeof v === "string" ? v : null;

function target(out: Rec | null, match: unknown, x?: unknown, y?: unknown): RecordedTarget {
  const ft = out?.flow_target as { selector?: FlowSelector | null } | undefined;
  const m = (match ?? {}) as Rec;
  return {
    selector: ft?.selector ?? null,
    x: num(m.x) ?? num(x),
    y: num(m.y) ?? num(y),
  };
}

/** The variable a password field's text becomes: from its id (`pin_code` → PIN_CODE), else PASSWORD. */
export function secretName(resourceId: string | null): string {
  const id = (resourceId ?? "").replace(/^.*:id\//, "");
  return /pass|pin|secret|token|otp|code/i.test(id) && /^[A-Za-z_]\w*$/.test(id)
    ? id.toUpperCase()
    : "PASSWORD";
}

/** Whether what was typed into went to a password field (the action's target, or the focused row). */
function passwordField(out: Rec | null, field: Rec | null): { secret: boolean; id: string | null } {
  const ft = out?.flow_target as { password?: boolean } | undefined;
  const rows = Array.isArray(out?.elements) ? out!.elements as Rec[] : [];
  const row = field
    ? rows.find((r) => r.tree_path === field.tree_path)
    : rows.find((r) => Array.isArray(r.flags) && r.flags.includes("focused") && r.editable);
  const flagged = Array.isArray(row?.flags) && (row!.flags as string[]).includes("password");
  const id = str(field?.resource_id) ?? str(row?.resource_id);
  const hint = str(field?.hint) ?? str(row?.hint) ?? "";
  return {
    secret: ft?.password === true || flagged || /password|passcode/i.test(hint),
    id,
  };
}

const KEY_NAMES: Readonly<Record<string, string>> = {
  KEYCODE_ENTER: "Enter",
  "66": "Enter",
  KEYCODE_DEL: "Backspace",
  "67": "Backspace",
  KEYCODE_BACK: "Back",
  "4": "Back",
  KEYCODE_HOME: "Home",
  "3": "Home",
  KEYCODE_TAB: "Tab",
  "61": "Tab",
  KEYCODE_ESCAPE: "Escape",
  KEYCODE_VOLUME_UP: "Volume Up",
  KEYCODE_VOLUME_DOWN: "Volume Down",
  KEYCODE_POWER: "Power",
};

/** The Maestro pressKey name of an Android key as send_ui_key took it, or null. */
export function maestroKey(key: string): string | null {
  const k = key.toUpperCase();
  const full = /^\d+$/.test(k) || k.startsWith("KEYCODE_") ? k : `KEYCODE_${k}`;
  return KEY_NAMES[full] ?? KEY_NAMES[k] ?? null;
}

/** The step a successful call of `tool` was, or null when it is no UI step a flow replays. */
export function flowStepOf(tool: string, args: Rec, out: Rec | null): RecordedStep | null {
  switch (tool) {
    case "ui_tap":
      return { do: "tap", target: { selector: null, x: num(args.x), y: num(args.y) } };
    case "ui_tap_element":
      return { do: "tap", target: target(out, out?.tapped) };
    case "ui_long_press":
      return { do: "long_press", target: target(out, out?.pressed, args.x, args.y) };
    case "ui_fill_input":
    case "ui_type_text":
    case "ui_type_text_unicode": {
      const text = str(args.text);
      if (text === null) return null;
      const field = tool === "ui_fill_input" ? (out?.field ?? null) as Rec | null : null;
      const pw = passwordField(out, field);
      return {
        do: "type",
        target: field ? target(out, field) : null,
        clear: tool === "ui_fill_input" ? args.clear_before !== false : args.clear_before === true,
        text: pw.secret ? null : text,
        secret: pw.secret ? secretName(pw.id) : null,
      };
    }
    case "clear_focused_input":
      return { do: "type", target: null, clear: true, text: "", secret: null };
    case "send_ui_key":
      return typeof args.key === "string" ? { do: "key", key: args.key } : null;
    case "hide_soft_keyboard":
      return out?.hidden === true ? { do: "hide_keyboard" } : null;
    case "ui_swipe":
      return {
        do: "swipe",
        from: [num(args.start_x) ?? 0, num(args.start_y) ?? 0],
        to: [num(args.end_x) ?? 0, num(args.end_y) ?? 0],
        ms: num(args.duration_ms),
      };
    case "launch_app":
      return typeof args.package === "string"
        ? { do: "launch", package: args.package, clear: false }
        : null;
    case "restart_app":
      return typeof args.package === "string"
        ? { do: "launch", package: args.package, clear: args.clear_data === true }
        : null;
    case "stop_app":
      return typeof args.package === "string" ? { do: "stop", package: args.package } : null;
    case "open_deep_link":
      return typeof args.uri === "string" ? { do: "open_link", uri: args.uri } : null;
  }
  return null;
}
