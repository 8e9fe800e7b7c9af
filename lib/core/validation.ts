/**
 * The shared validators: every tool argument that reaches a device, a process or a path goes
 * through one of these first. Each returns the value (normalized where noted) or throws
 * `invalid_params` naming the parameter and saying what a valid value looks like. This is defence
 * in depth: device shell arguments are also quoted (lib/adb/shell_quote.ts).
 */
import { invalidParams } from "./errors.ts";

const MAX_SERIAL_LENGTH = 128;
const MAX_PACKAGE_LENGTH = 255;
const MAX_PERMISSION_LENGTH = 255;
const MAX_KEY_NAME_LENGTH = 64;
/** Highest numeric key code accepted (KeyEvent.getMaxKeyCode() is about 320 on Android 15). */
export const MAX_KEY_CODE = 999;
/** Largest screen coordinate accepted (beyond any real display). */
export const MAX_COORDINATE = 16_384;
const MAX_MODULE_LENGTH = 256;
const MAX_DEEP_LINK_LENGTH = 2_048;

/**
 * Schemes a deep link never uses, even when a project's manifest declares one: they run script,
 * read local data, re-enter intents or open other apps' stores. Deep links are an allowlist
 * (`validateDeepLink`); this list only keeps a hostile manifest from allowlisting these.
 */
const BLOCKED_DEEP_LINK_SCHEMES: ReadonlySet<string> = new Set([
  "javascript",
  "vbscript",
  "data",
  "file",
  "content",
  "intent",
  "android-app",
  "view-source",
  "jar",
  "market",
  "about",
  "blob",
  "filesystem",
  "chrome",
  "chrome-extension",
  "ws",
  "wss",
  "ftp",
]);

/** Schemes every deep link may use. */
const WEB_DEEP_LINK_SCHEMES: readonly string[] = ["http", "https"];

function requireString(value: unknown, param: string): string {
  if (typeof value !== "string") {
    throw invalidParams(`Invalid ${param}: expected a string, got ${typeOf(value)}`);
  }
  return value;
}

function typeOf(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** Shows a rejected value safely in a message: JSON-escaped and shortened. */
function show(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
}

function checkLength(value: string, param: string, max: number): void {
  if (value.length === 0) throw invalidParams(`Invalid ${param}: it is empty`);
  if (value.length > max) {
    throw invalidParams(`Invalid ${param}: ${value.length} characters, the limit is ${max}`);
  }
}

/**
 * An adb serial: `emulator-5554`, a hardware serial, `host:port`, `[v6]:port`, or an mDNS name
 * (`adb-XXXX._adb-tls-connect._tcp`). ASCII letters, digits and `._-:[]%` only.
 */
export function validateSerial(value: unknown, param = "device_serial"): string {
  const v = requireString(value, param);
  checkLength(v, param, MAX_SERIAL_LENGTH);
  if (!/^[A-Za-z0-9._:\-[\]%]+$/.test(v) || v.startsWith("-")) {
    throw invalidParams(
      `Invalid ${param} ${show(v)}: a device serial has only letters, digits and . _ - : [ ] %; ` +
        "call list_devices and copy a serial from it",
    );
  }
  if (v.includes("[") || v.includes("]")) {
    if (!/^\[[0-9A-Fa-f:.]+(%[A-Za-z0-9_.-]+)?\]:\d{1,5}$/.test(v)) {
      throw invalidParams(
        `Invalid ${param} ${show(v)}: brackets are only for an IPv6 address as [addr]:port; ` +
          "call list_devices and copy a serial from it",
      );
    }
  }
  return v;
}

const JAVA_NAME_SEGMENT = /^[A-Za-z][A-Za-z0-9_]*$/;

/** A Java/Android package name: two or more dot-separated segments, each starting with a letter. */
export function validatePackage(value: unknown, param = "package"): string {
  const v = requireString(value, param);
  checkLength(v, param, MAX_PACKAGE_LENGTH);
  const segments = v.split(".");
  if (segments.length < 2 || !segments.every((s) => JAVA_NAME_SEGMENT.test(s))) {
    throw invalidParams(
      `Invalid ${param} ${show(v)}: a package name is two or more dot-separated segments of ` +
        "letters, digits and _, each starting with a letter, like com.example.app",
    );
  }
  return v;
}

/** A permission name like `android.permission.CAMERA` or `com.example.permission.MY_PERM`. */
export function validatePermission(value: unknown, param = "permission"): string {
  const v = requireString(value, param);
  checkLength(v, param, MAX_PERMISSION_LENGTH);
  const segments = v.split(".");
  if (segments.length < 2 || !segments.every((s) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s))) {
    throw invalidParams(
      `Invalid ${param} ${show(v)}: a permission is a dotted name like ` +
        "android.permission.CAMERA",
    );
  }
  return v;
}

/**
 * A key: `KEYCODE_*` (a bare name like `HOME` becomes `KEYCODE_HOME`) or a numeric code in
 * 0..MAX_KEY_CODE. Returns the form `input keyevent` takes.
 */
export function validateKeyName(value: unknown, param = "key"): string {
  if (typeof value === "number") return String(checkKeyCode(value, param));
  const v = requireString(value, param).trim();
  checkLength(v, param, MAX_KEY_NAME_LENGTH);
  if (/^\d+$/.test(v)) return String(checkKeyCode(Number(v), param));
  const upper = v.toUpperCase();
  const name = upper.startsWith("KEYCODE_") ? upper : `KEYCODE_${upper}`;
  if (!/^KEYCODE_[A-Z0-9]+(_[A-Z0-9]+)*$/.test(name)) {
    throw invalidParams(
      `Invalid ${param} ${show(v)}: use a key name like KEYCODE_ENTER, KEYCODE_BACK or HOME, ` +
        `or a key code from 0 to ${MAX_KEY_CODE}`,
    );
  }
  return name;
}

function checkKeyCode(n: number, param: string): number {
  if (!Number.isInteger(n) || n < 0 || n > MAX_KEY_CODE) {
    throw invalidParams(
      `Invalid ${param} ${n}: a key code is an integer from 0 to ${MAX_KEY_CODE}`,
    );
  }
  return n;
}

/** A non-negative integer pixel coordinate, at most `max`. */
export function validateCoordinate(value: unknown, param: string, max = MAX_COORDINATE): number {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw invalidParams(
      `Invalid ${param}: expected an integer pixel coordinate, got ${
        typeof value === "number" ? value : typeOf(value)
      }`,
    );
  }
  const limit = Math.min(max, MAX_COORDINATE);
  if (value < 0 || value > limit) {
    throw invalidParams(`Invalid ${param} ${value}: it must be from 0 to ${limit}`);
  }
  return value;
}

/** Validates `x` and `y` (named `x`/`y` unless `names` says otherwise), each within its max. */
export function validateCoordinates(
  x: unknown,
  y: unknown,
  opts: { maxX?: number; maxY?: number; names?: [string, string] } = {},
): { x: number; y: number } {
  const [nx, ny] = opts.names ?? ["x", "y"];
  return {
    x: validateCoordinate(x, nx, opts.maxX ?? MAX_COORDINATE),
    y: validateCoordinate(y, ny, opts.maxY ?? MAX_COORDINATE),
  };
}

/** A module: a Gradle path (`:app`, `:feature:login`) or a directory name (`app`). */
export function validateModule(value: unknown, param = "module"): string {
  const v = requireString(value, param);
  checkLength(v, param, MAX_MODULE_LENGTH);
  if (v.includes("/") || v.includes("\\") || v.includes("..")) {
    throw invalidParams(
      `Invalid ${param} ${show(v)}: a module is a Gradle path like :app or a directory name, ` +
        "without /, \\ or ..",
    );
  }
  if (!/^:?[A-Za-z0-9_][A-Za-z0-9_.-]*(:[A-Za-z0-9_][A-Za-z0-9_.-]*)*$/.test(v)) {
    throw invalidParams(
      `Invalid ${param} ${show(v)}: a module is a Gradle path like :app or :feature:login, or ` +
        "a directory name of letters, digits and _ . -",
    );
  }
  return v;
}

/**
 * A deep link: an absolute URI with a scheme (`myapp://item/42`, `https://…`), printable ASCII
 * only (percent-encode the rest), whose scheme is on the allowlist: `http`, `https`, and
 * `projectSchemes` (those the project's manifests declare in intent filters,
 * `lib/project/link_schemes.ts`) minus `BLOCKED_DEEP_LINK_SCHEMES`.
 */
export function validateDeepLink(
  value: unknown,
  param = "uri",
  projectSchemes: readonly string[] = [],
): string {
  const v = requireString(value, param);
  checkLength(v, param, MAX_DEEP_LINK_LENGTH);
  if (!/^[\x21-\x7e]+$/.test(v)) {
    throw invalidParams(
      `Invalid ${param} ${show(v)}: only printable ASCII without spaces is allowed; ` +
        "percent-encode other characters",
    );
  }
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(v);
  if (m === null) {
    throw invalidParams(
      `Invalid ${param} ${show(v)}: a deep link needs a scheme, like myapp://path or https://host`,
    );
  }
  const scheme = m[1].toLowerCase();
  const allowed = [
    ...new Set([
      ...WEB_DEEP_LINK_SCHEMES,
      ...projectSchemes.filter((x) => !BLOCKED_DEEP_LINK_SCHEMES.has(x)),
    ]),
  ];
  if (!allowed.includes(scheme)) {
    const why = BLOCKED_DEEP_LINK_SCHEMES.has(scheme)
      ? `the ${scheme}: scheme is never allowed (it runs script, reads local data, re-enters ` +
        "intents or opens another app's store)"
      : `the ${scheme}: scheme is not one the project's manifests declare in an intent filter`;
    throw invalidParams(
      `Invalid ${param}: ${why}; deep links may use ${allowed.join(", ")}` +
        (allowed.length === WEB_DEEP_LINK_SCHEMES.length
          ? " (no intent filter of this project declares a scheme)"
          : ""),
      { allowed_schemes: allowed },
    );
  }
  if (!URL.canParse(v)) {
    throw invalidParams(`Invalid ${param} ${show(v)}: it is not a well-formed URI`);
  }
  return v;
}
