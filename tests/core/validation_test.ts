import { assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import {
  MAX_COORDINATE,
  MAX_KEY_CODE,
  validateCoordinate,
  validateCoordinates,
  validateDeepLink,
  validateKeyName,
  validateModule,
  validatePackage,
  validatePermission,
  validateSerial,
} from "../../lib/core/validation.ts";

/** Injection payloads every string validator must refuse. */
const INJECTIONS = [
  "a;reboot",
  "a$(id)",
  "a`id`",
  "a'b",
  'a"b',
  "a\nb",
  "a\0b",
  "a b",
  "a|b",
  "a&b",
  "a*",
  "a?",
  "a>b",
  "a\\b",
  "\u0430ndroid", // Cyrillic а
  "a\u200bb",
  "ａｂｃ", // fullwidth
  "",
];

function refuses(fn: (v: unknown) => unknown, value: unknown, param: string) {
  assertThrows(() => fn(value), (e) => {
    const err = e as { code: string; message: string };
    assertEquals(err.code, "invalid_params", `for ${JSON.stringify(value)}`);
    assertStringIncludes(err.message, param);
  });
}

Deno.test("validateSerial() accepts real serial shapes", () => {
  for (
    const s of [
      "emulator-5554",
      "0123456789ABCDEF",
      "6563c026",
      "192.168.1.23:5555",
      "[fe80::1]:5555",
      "[fe80::1%wlan0]:5555",
      "adb-33311HFDD8N2PQ-a4QqY3._adb-tls-connect._tcp",
      "adb-R58M123._adb._tcp.",
    ]
  ) assertEquals(validateSerial(s), s);
});

Deno.test("validateSerial() refuses injections, options, brackets misuse and overlong", () => {
  for (const v of [...INJECTIONS, "-s", "[x]", "a]b", "x".repeat(129), 5, null]) {
    refuses((x) => validateSerial(x), v, "device_serial");
  }
  refuses((x) => validateSerial(x, "serial"), "a;b", "serial");
});

Deno.test("validatePackage() follows Java package rules", () => {
  for (const p of ["com.example.app", "a.b", "com.example_1.App2", "org.x.y.z"]) {
    assertEquals(validatePackage(p), p);
  }
  for (
    const v of [
      ...INJECTIONS,
      "com",
      "com.",
      ".com.x",
      "com..x",
      "1com.x",
      "com.1x",
      "com.ex-ample",
      "com.example.app ",
      "a." + "b".repeat(254),
    ]
  ) refuses((x) => validatePackage(x), v, "package");
});

Deno.test("validatePermission() accepts dotted permission names", () => {
  assertEquals(validatePermission("android.permission.CAMERA"), "android.permission.CAMERA");
  assertEquals(
    validatePermission("com.example.permission.MY_PERM"),
    "com.example.permission.MY_PERM",
  );
  for (const v of [...INJECTIONS, "CAMERA", "android.permission.", "android..CAMERA"]) {
    refuses((x) => validatePermission(x), v, "permission");
  }
});

Deno.test("validateKeyName() normalizes names and bounds codes", () => {
  assertEquals(validateKeyName("KEYCODE_ENTER"), "KEYCODE_ENTER");
  assertEquals(validateKeyName("home"), "KEYCODE_HOME");
  assertEquals(validateKeyName("KEYCODE_DPAD_UP"), "KEYCODE_DPAD_UP");
  assertEquals(validateKeyName("66"), "66");
  assertEquals(validateKeyName(4), "4");
  assertEquals(validateKeyName(MAX_KEY_CODE), String(MAX_KEY_CODE));
  for (
    const v of [
      ...INJECTIONS,
      "KEYCODE_",
      "KEYCODE_HOME;reboot",
      MAX_KEY_CODE + 1,
      -1,
      1.5,
      "1000",
      "KEYCODE__X",
    ]
  ) refuses((x) => validateKeyName(x), v, "key");
});

Deno.test("validateCoordinate(s) take non-negative integers within the max", () => {
  assertEquals(validateCoordinate(0, "x"), 0);
  assertEquals(validateCoordinate(MAX_COORDINATE, "x"), MAX_COORDINATE);
  assertEquals(validateCoordinates(10, 20), { x: 10, y: 20 });
  for (const v of [-1, 1.5, NaN, Infinity, "10", null, MAX_COORDINATE + 1]) {
    refuses((x) => validateCoordinate(x, "start_x"), v, "start_x");
  }
  refuses((y) => validateCoordinates(1, y, { maxY: 100 }), 101, "y");
  refuses((y) => validateCoordinates(1, y, { names: ["x1", "y1"] }), -5, "y1");
});

Deno.test("validateModule() allows Gradle paths and directory names only", () => {
  for (const m of [":app", ":feature:login", "app", "feature-login"]) {
    assertEquals(validateModule(m), m);
  }
  for (const v of [...INJECTIONS, "../app", "a/b", "a\\b", "..", ".", ":app:", "/etc"]) {
    refuses((x) => validateModule(x), v, "module");
  }
});

Deno.test("validateDeepLink() allows http, https and the project's schemes, nothing else", () => {
  for (const u of ["https://example.com/a?b=c&d=e", "http://x.example/"]) {
    assertEquals(validateDeepLink(u), u);
  }
  for (const u of ["myapp://item/42", "geo:0,0?q=x"]) {
    assertEquals(validateDeepLink(u, "uri", ["myapp", "geo"]), u);
    refuses((x) => validateDeepLink(x), u, "uri");
  }
  // A hostile manifest cannot allowlist a dangerous scheme.
  for (const u of ["javascript:alert(1)", "intent://x#Intent;end", "market://details?id=x"]) {
    refuses((x) => validateDeepLink(x, "uri", ["javascript", "intent", "market"]), u, "uri");
  }
  for (
    const v of [
      "android-app://com.android.settings/https/x",
      "view-source:https://example.com/",
      "jar:https://example.com/a.jar!/b",
      "market://details?id=com.evil",
      "intent://x#Intent;scheme=javascript;end",
    ]
  ) refuses((x) => validateDeepLink(x), v, "uri");
  for (
    const v of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      "vbscript:x",
      "data:text/html,x",
      "file:///etc/passwd",
      "content://contacts/people",
      "intent:#Intent;end",
      "about:blank",
      "blob:https://x/1",
      "no-scheme",
      "/path/only",
      "myapp://a b",
      "myapp://a\nb",
      "myapp://\u0430",
      "ｊavascript:x",
      "java\u200bscript:x",
      "https://x/" + "a".repeat(2048),
      "",
    ]
  ) refuses((x) => validateDeepLink(x), v, "uri");
});
