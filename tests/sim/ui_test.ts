import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { RawClient } from "./_raw_client.ts";
import { defaultFleet } from "./catalog.ts";
import { VirtualDevice } from "./device.ts";
import { startSimulator } from "./mod.ts";
import { ShellRun } from "./sh_exec.ts";
import {
  IME_PACKAGE,
  KEYBOARD_DELAY_MS,
  RESPONSE_DELAY_MS,
  RIPPLE_MS,
  SAMPLE_PACKAGE,
  SPINNER_MS,
  TRANSITION_MS,
} from "./ui/app.ts";
import { UiService } from "./ui/service.ts";
import { crc32 } from "./ui/render.ts";
import { place, serializeDump, type UiNode } from "./ui/xml.ts";

const dec = new TextDecoder();
const P = SAMPLE_PACKAGE;
const REAL_DUMPS = new URL("../../../shared/fixtures/real/uiautomator/", import.meta.url);
const haveReal = (() => {
  try {
    Deno.statSync(REAL_DUMPS);
    return true;
  } catch {
    console.error(`ui_test: ${REAL_DUMPS.pathname} is absent: real-dump tests skipped`);
    return false;
  }
})();

/**
 * Decodes an 8-bit RGBA, filter-0 PNG independently of the encoder: chunk CRCs, IHDR, inflated
 * IDAT size. (imagescript's decoder needs --allow-ffi, which the test flags do not grant.)
 */
async function decodePng(png: Uint8Array) {
  assertEquals([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let o = 8;
  let width = 0, height = 0;
  const idat: Uint8Array[] = [];
  const types: string[] = [];
  while (o < png.length) {
    const len = v.getUint32(o);
    const type = dec.decode(png.subarray(o + 4, o + 8));
    assertEquals(v.getUint32(o + 8 + len), crc32(png, o + 4, o + 8 + len), `${type} CRC`);
    const data = png.subarray(o + 8, o + 8 + len);
    if (type === "IHDR") {
      width = v.getUint32(o + 8);
      height = v.getUint32(o + 12);
      assertEquals([...data.subarray(8)], [8, 6, 0, 0, 0]);
    }
    if (type === "IDAT") idat.push(data);
    types.push(type);
    o += 12 + len;
  }
  assertEquals([types[0], types[types.length - 1]], ["IHDR", "IEND"]);
  const z = new Blob(idat as Uint8Array<ArrayBuffer>[]).stream().pipeThrough(
    new DecompressionStream("deflate"),
  );
  const raw = new Uint8Array(await new Response(z).arrayBuffer());
  assertEquals(raw.length, height * (width * 4 + 1));
  const pixel = (x: number, y: number) => {
    const at = y * (width * 4 + 1) + 1 + x * 4;
    return [...raw.subarray(at, at + 4)];
  };
  return { width, height, pixel };
}

/** A device with only the UI service, a fake clock that `sleep` advances. */
function rig(index = 0) {
  const clock = {
    t: 10_000,
    now() {
      return this.t;
    },
    sleep(ms: number) {
      this.t += ms;
      return Promise.resolve();
    },
  };
  const device = new VirtualDevice(defaultFleet()[index]);
  const ui = new UiService(device, clock);
  device.addService(ui);
  const run = async (script: string) => {
    let out = "";
    let err = "";
    const bytes: Uint8Array[] = [];
    const io = {
      stdin: () => Promise.resolve(new Uint8Array()),
      out: (b: Uint8Array) => {
        bytes.push(b);
        out += dec.decode(b);
      },
      err: (b: Uint8Array) => {
        err += dec.decode(b);
      },
    };
    const shell = new ShellRun({ env: device.env, fs: device.fs(), commands: device.commands() });
    const code = await shell.runScript(script, io);
    const all = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
    let o = 0;
    for (const b of bytes) {
      all.set(b, o);
      o += b.length;
    }
    return { out, err, code, bytes: all };
  };
  const dump = async () => {
    const r = await run("uiautomator dump /dev/tty");
    assertEquals(r.code, 0, r.err);
    return r.out.slice(0, r.out.indexOf("</hierarchy>") + 12);
  };
  const advance = (ms: number) => {
    clock.t += ms;
  };
  return { clock, device, ui, run, dump, advance };
}

interface N {
  attrs: Record<string, string>;
  bounds: [number, number, number, number];
}

/** Every node of a dump with its attributes (a small reader for tests). */
function nodes(xml: string): N[] {
  return [...xml.matchAll(/<node ([^>]*?)\s*\/?>/g)].map((m) => {
    const attrs: Record<string, string> = {};
    for (const [, k, v] of m[1].matchAll(/([\w-]+)="([^"]*)"/g)) attrs[k] = v;
    const b = /\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]/.exec(attrs.bounds)!;
    return { attrs, bounds: [+b[1], +b[2], +b[3], +b[4]] };
  });
}

function find(xml: string, pred: (a: Record<string, string>) => boolean): N | undefined {
  return nodes(xml).find((n) => pred(n.attrs));
}

const byText = (t: string) => (a: Record<string, string>) => a.text === t;
const byId = (id: string) => (a: Record<string, string>) => a["resource-id"] === `${P}:id/${id}`;
const byDesc = (d: string) => (a: Record<string, string>) => a["content-desc"] === d;
const center = (n: N) => `${(n.bounds[0] + n.bounds[2]) >> 1} ${(n.bounds[1] + n.bounds[3]) >> 1}`;

Deno.test("serializeDump() writes UI Automator's exact shape: order, NAF, escaping, empty tags", () => {
  const tree: UiNode = {
    cls: "android.widget.FrameLayout",
    pkg: "p",
    bounds: { l: 0, t: 0, r: 100, b: 100 },
    children: [
      {
        cls: "android.widget.ImageButton",
        pkg: "p",
        clickable: true,
        bounds: { l: 10, t: 10, r: 50, b: 50 },
      },
      {
        cls: "android.widget.TextView",
        pkg: "p",
        text: `a&b <c> "d"\n\u0001\uffff ü`,
        bounds: { l: 60, t: 60, r: 200, b: 90 },
      },
      { cls: "android.view.View", pkg: "p", bounds: { l: 200, t: 0, r: 300, b: 10 } },
    ],
  };
  const placed = place(tree, { l: 0, t: 0, r: 100, b: 100 })!;
  const xml = serializeDump([placed], { rotation: 1, compressed: false, extendedAttrs: false });
  const attrs = (extra: string, text: string, cls: string, b: string, clickable = "false") =>
    `${extra}index="${cls === "" ? 0 : 0}" text="${text}" resource-id="" class="${cls}" ` +
    `package="p" content-desc="" checkable="false" checked="false" clickable="${clickable}" ` +
    `enabled="true" focusable="false" focused="false" scrollable="false" ` +
    `long-clickable="false" password="false" selected="false" bounds="${b}"`;
  const expected = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>` +
    `<hierarchy rotation="1"><node ${
      attrs("", "", "android.widget.FrameLayout", "[0,0][100,100]")
    }>` +
    `<node ${attrs('NAF="true" ', "", "android.widget.ImageButton", "[10,10][50,50]", "true")} />` +
    `<node ${
      attrs(
        "",
        "a&amp;b &lt;c&gt; &quot;d&quot;&#10;.. ü",
        "android.widget.TextView",
        "[60,60][100,90]",
      )
        .replace('index="0"', 'index="1"')
    } />` +
    `</node></hierarchy>`;
  assertEquals(xml, expected);
  assert(!xml.endsWith("\n") && !xml.includes("\n"), "one line, no trailing newline");
  // Newer dumpers: drawing-order and hint after bounds.
  const ext = serializeDump([placed], { rotation: 0, compressed: false, extendedAttrs: true });
  assertStringIncludes(ext, 'bounds="[10,10][50,50]" drawing-order="1" hint="" />');
});

Deno.test("dump: the home list with status bar, clipped rows, NAF fab, success line spelled as AOSP", async () => {
  const { run, dump } = rig();
  const r = await run("uiautomator dump");
  assertEquals(r.out, "UI hierchary dumped to: /sdcard/window_dump.xml\n");
  const xml = (await run("cat /sdcard/window_dump.xml")).out;
  assert(xml.startsWith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy"));
  assert(xml.endsWith("</hierarchy>"));
  assertEquals(xml, await dump());
  assert(find(xml, byText("Sign in")));
  assert(
    find(
      xml,
      (a) => a.package === "com.android.systemui" && a["content-desc"].startsWith("Battery"),
    ),
  );
  const fab = find(xml, byId("fab"))!;
  assertEquals(Object.keys(fab.attrs)[0], "NAF");
  // The list is longer than the screen: the last row is not there, the bottom row is clipped.
  assert(!find(xml, byText("Item 40")));
  const list = find(xml, byId("list"))!;
  assertEquals(list.attrs.scrollable, "true");
  const rows = nodes(xml).filter((n) => n.attrs["resource-id"] === `${P}:id/row`);
  assertEquals(rows[rows.length - 1].bounds[3], 2400);
  assert(rows[rows.length - 1].bounds[3] - rows[rows.length - 1].bounds[1] < 189);
  // API 33 device: the 17-attribute form; API 35: drawing-order + hint.
  assertStringIncludes(xml, 'drawing-order="');
  const old = rig(2);
  assert(!(await old.dump()).includes("drawing-order"));
});

Deno.test("swipe: a slow swipe scrolls by its distance, rows pass under the toolbar, a fling goes farther", async () => {
  const { run, dump, ui, advance } = rig();
  await run("input swipe 540 1800 540 800 2000");
  advance(1000);
  assertEquals(ui.state().scroll, 1000);
  const xml = await dump();
  // Rows under the toolbar are reported, clipped only by the list (top 63 = status bar bottom).
  const under = nodes(xml).filter((n) =>
    n.attrs["resource-id"] === `${P}:id/row` && n.bounds[1] < 210
  );
  assert(under.length >= 1, "a row sits under the toolbar");
  assertEquals(under[0].bounds[1], 63);
  // A fast swipe of the same distance flings: the list keeps moving, then settles farther.
  await run("input swipe 540 1800 540 800 200");
  const during = ui.state().scroll;
  advance(2000);
  const after = ui.state().scroll;
  assert(after > 2000, `fling moved ${after - 1000}`);
  assert(during < after, "the fling was still moving right after the lift");
  // motionevent drag that pauses before lifting: exact.
  const before = ui.state().scroll;
  await run("input motionevent DOWN 540 1500");
  advance(100);
  await run("input motionevent MOVE 540 1000");
  advance(100);
  await run("input motionevent MOVE 540 900");
  advance(300);
  await run("input motionevent UP 540 900");
  advance(1000);
  assertEquals(ui.state().scroll, before + 600);
});

Deno.test("tap: a ripple inside the row, then a ~500 ms transition, then a settled screen", async () => {
  const { run, dump, advance } = rig();
  const first = await dump();
  const row = nodes(first).find((n) =>
    n.attrs["resource-id"] === `${P}:id/row` && first.includes("Item 5")
  )!;
  const item5 = find(first, byText("Item 5"))!;
  assert(row);
  await run(`input tap ${center(item5)}`);
  advance(RIPPLE_MS / 2);
  const ripple = await dump();
  assertEquals(find(ripple, byText("Item 5"))!.attrs.selected, "true");
  assertEquals(ripple.replace('selected="true"', 'selected="false"'), first);
  advance(RESPONSE_DELAY_MS + TRANSITION_MS / 3 - RIPPLE_MS / 2);
  const mid = await dump();
  const body = find(mid, byId("body"))!;
  assertEquals(body.attrs.text, "Details for item 5");
  assert(body.bounds[0] > 42, `mid-transition left edge ${body.bounds[0]}`);
  advance(TRANSITION_MS / 3);
  const later = find(await dump(), byId("body"))!;
  assert(later.bounds[0] < body.bounds[0] && later.bounds[0] > 42, "bounds keep moving");
  advance(TRANSITION_MS);
  const settled = await dump();
  assertEquals(find(settled, byId("body"))!.bounds[0], 42);
  assert(!find(settled, byId("list")), "the list is gone once settled");
  advance(1000);
  assertEquals(await dump(), settled);
  // Back slides the detail out and shows the list again.
  await run("input keyevent KEYCODE_BACK");
  advance(TRANSITION_MS + 50);
  assert(find(await dump(), byText("Item 5")));
});

Deno.test("Load data: an indeterminate ProgressBar for about a second, then results", async () => {
  const { run, dump, advance, ui } = rig();
  await run(`input tap ${center(find(await dump(), byText("Load data"))!)}`);
  advance(RESPONSE_DELAY_MS + TRANSITION_MS + 100);
  const loading = await dump();
  assert(find(loading, (a) => a.class === "android.widget.ProgressBar"));
  assert(ui.state().loading);
  advance(SPINNER_MS);
  const done = await dump();
  assert(!find(done, (a) => a.class === "android.widget.ProgressBar"));
  assert(find(done, byText("Result 1")));
});

Deno.test("form: focus shows the keyboard, input text types into the field, ENTER moves on", async () => {
  const { run, dump, advance, ui } = rig();
  await run(`input tap ${center(find(await dump(), byText("Sign in"))!)}`);
  advance(1000);
  const form = await dump();
  const email = find(form, byId("email"))!;
  assertEquals(email.attrs.text, "Email", "an empty field shows its hint as text");
  assertEquals(email.attrs.hint, "Email");
  assertEquals((await run("dumpsys input_method")).out.includes("mInputShown=false"), true);
  await run(`input tap ${center(email)}`);
  assertStringIncludes((await run("dumpsys input_method")).out, "mInputShown=true");
  assert(!(await dump()).includes(IME_PACKAGE), "the keyboard window takes a moment");
  advance(KEYBOARD_DELAY_MS);
  const kb = await dump();
  const keys = nodes(kb).filter((n) => n.attrs.package === IME_PACKAGE);
  assert(keys.length > 30);
  const top = Math.min(...keys.map((k) => k.bounds[1]));
  assert(top > 1200 && top < 1800, `keyboard top ${top}`);
  assertEquals(find(kb, byDesc("Next"))!.attrs.class, "com.android.inputmethod.keyboard.Key");
  assertEquals(find(kb, byId("email"))!.attrs.focused, "true");
  await run("input text 'me%sand@x.io'");
  await run("input keyevent KEYCODE_DEL 67");
  await run("input text 'io'");
  assertEquals(ui.state().fields.email, "me and@x.io");
  // Characters the virtual keyboard cannot type: an exception, nothing typed.
  const bad = await run("input text 'é'");
  assertEquals(bad.code, 255);
  assertStringIncludes(bad.err, "Exception occurred while executing 'text'");
  assertEquals(ui.state().fields.email, "me and@x.io");
  // ENTER moves to the password field; its text shows as dots.
  await run("input keyevent 66");
  await run("input text s3cret");
  const pw = find(await dump(), byId("password"))!;
  assertEquals(pw.attrs.password, "true");
  assertEquals(pw.attrs.text, "••••••");
  assertEquals(pw.attrs.focused, "true");
  // BACK hides the keyboard first; the field keeps focus.
  await run("input keyevent BACK");
  assertEquals(ui.state().keyboard, false);
  assertEquals(ui.state().screen, "form");
  // Sign in: spinner, then the status line.
  await run(`input tap ${center(find(await dump(), byId("sign_in"))!)}`);
  assert(find(await dump(), (a) => a.class === "android.widget.ProgressBar"));
  advance(SPINNER_MS);
  assertEquals(find(await dump(), byId("status"))!.attrs.text, "Signed in as me and@x.io");
});

Deno.test("search: ENTER is ignored, the keyboard's Search key submits", async () => {
  const { run, dump, advance, ui } = rig();
  await run(`input tap ${center(find(await dump(), byDesc("Search"))!)}`);
  advance(RESPONSE_DELAY_MS + TRANSITION_MS + KEYBOARD_DELAY_MS);
  const s = await dump();
  assertEquals(find(s, byId("search_src_text"))!.attrs.focused, "true");
  await run("input text 'item%s1'");
  await run("input keyevent KEYCODE_ENTER");
  assertEquals(ui.state().searchResults, null);
  assertEquals(ui.state().keyboard, true);
  const action = find(
    await dump(),
    (a) => a.package === IME_PACKAGE && a["content-desc"] === "Search",
  )!;
  await run(`input tap ${center(action)}`);
  const results = ui.state().searchResults!;
  assertEquals(results, Array.from({ length: 10 }, (_, k) => `Item ${10 + k}`));
  assertEquals(ui.state().keyboard, false);
  assertEquals(find(await dump(), byId("result_count"))!.attrs.text, "10 results");
  assert(!ui.app.events.includes("search-key"));
});

Deno.test("long press (motionevent DOWN … UP), dialog, HOME and the launcher", async () => {
  const { run, dump, advance, ui } = rig();
  const row = find(await dump(), byText("Item 6"))!;
  await run(`input motionevent DOWN ${center(row)}`);
  advance(600);
  await run(`input motionevent UP ${center(row)}`);
  assertEquals(ui.state().selectedRow, 5);
  assertEquals(find(await dump(), byText("1 selected"))?.attrs.class, "android.widget.TextView");
  await run("input keyevent 4");
  assertEquals(ui.state().selectedRow, null);
  // Same-point swipe held long is a long press too; a short one is a tap.
  await run(`input swipe ${center(row)} ${center(row)} 800`);
  assertEquals(ui.state().selectedRow, 5);
  await run("input keyevent 4");
  // The dialog: a window of its own; a tap outside dismisses it.
  await run(`input tap ${center(find(await dump(), byText("Show dialog"))!)}`);
  advance(RESPONSE_DELAY_MS);
  const d = await dump();
  assert(find(d, byText("Delete item?")));
  await run("simctl ui-windows active");
  const active = await dump();
  assertEquals(nodes(active)[0].attrs.package, P);
  assert(!find(active, byText("Item 6")), "only the dialog's window");
  await run("simctl ui-windows all");
  await run("input tap 5 5");
  assertEquals(ui.state().dialog, false);
  // HOME: the launcher, then its icon brings the app back with a transition.
  await run("input keyevent KEYCODE_HOME");
  const home = await dump();
  assert(find(home, (a) => a.package === "com.google.android.apps.nexuslauncher"));
  assertStringIncludes(
    (await run("dumpsys window")).out,
    "mCurrentFocus=Window{5f3b2c1 u0 com.google.android.apps.nexuslauncher/",
  );
  await run(`input tap ${center(find(home, byText("Keynobi Sample"))!)}`);
  advance(RESPONSE_DELAY_MS + TRANSITION_MS);
  assertMatch(
    (await run("dumpsys window")).out,
    /mCurrentFocus=Window\{\w+ u0 com\.example\.keynobi\.sample\.demo\.debug\/com\.example\.keynobi\.sample\.MainActivity\}/,
  );
});

Deno.test("the activity manager's log: START brings the app up, force-stop shows the launcher", () => {
  const { device, ui } = rig();
  device.log.append({
    pid: 600,
    level: "I",
    tag: "ActivityManager",
    message: `Force stopping ${P} appid=10150 user=0: from pid 4000`,
  });
  assertEquals(ui.state().front, "launcher");
  device.log.append({
    pid: 600,
    level: "I",
    tag: "ActivityTaskManager",
    message:
      `START u0 {act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10000000 cmp=${P}/com.example.keynobi.sample.MainActivity} from uid 2000`,
  });
  assertEquals(ui.state().front, "app");
  assertEquals(ui.state().screen, "home");
});

Deno.test("dump forms: /dev/tty per setting, corrected spelling, busy and concurrent dumps fail", async () => {
  const { run, ui, advance } = rig();
  const tty = await run("uiautomator dump /dev/tty");
  assertMatch(tty.out, /^<\?xml .*<\/hierarchy>UI hierchary dumped to: \/dev\/tty\n$/);
  await run("simctl ui-tty off");
  assertEquals((await run("uiautomator dump /dev/tty")).out, "UI hierchary dumped to: /dev/tty\n");
  await run("simctl ui-spelling corrected");
  assertEquals(
    (await run("uiautomator dump --compressed /data/local/tmp/d.xml")).out,
    "UI hierarchy dumped to: /data/local/tmp/d.xml\n",
  );
  const compressed = (await run("cat /data/local/tmp/d.xml")).out;
  assert(
    !compressed.includes(
      `class="android.widget.LinearLayout" package="${P}" content-desc="" checkable="false" checked="false" clickable="false"`,
    ),
  );
  await run("simctl ui-busy 2");
  const busy = await run("uiautomator dump");
  assertEquals(busy.code, 1);
  assertMatch(busy.err, /IAccessibilityServiceClient\$Stub\$Proxy@[0-9a-f]+already registered!/);
  assertEquals(busy.out, "");
  advance(2001);
  assertEquals((await run("uiautomator dump")).code, 0);
  await run("simctl ui-dump-error idle");
  const idle = await run("uiautomator dump");
  assertEquals([idle.code, idle.out, idle.err], [0, "", "ERROR: could not get idle state.\n"]);
  await run("simctl ui-dump-error none");
  // Two dumps at once: the second one finds the first registered.
  ui.clock.sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.min(ms, 20)));
  ui.settings.dumpMs = 20;
  const [a, b] = await Promise.all([run("uiautomator dump"), run("uiautomator dump")]);
  assertEquals([a.code, b.code].sort(), [0, 1]);
});

Deno.test("screencap: raw header and RGBA rows; -p is a PNG that decodes to the screen size", async () => {
  const { run } = rig();
  const raw = (await run("screencap")).bytes;
  const v = new DataView(raw.buffer, raw.byteOffset);
  assertEquals([
    v.getUint32(0, true),
    v.getUint32(4, true),
    v.getUint32(8, true),
    v.getUint32(12, true),
  ], [1080, 2400, 1, 1]);
  assertEquals(raw.length, 16 + 1080 * 2400 * 4);
  const png = (await run("screencap -p")).bytes;
  assertEquals([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assertEquals(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  const img = await decodePng(png);
  assertEquals([img.width, img.height], [1080, 2400]);
  // The status bar is drawn dark; the raw capture holds the same pixels.
  assertEquals(img.pixel(1, 1), [0x20, 0x21, 0x24, 0xff]);
  assertEquals(img.pixel(500, 1000), [
    ...raw.subarray(16 + (1000 * 1080 + 500) * 4, 16 + (1000 * 1080 + 501) * 4),
  ]);
  await run("screencap -p /sdcard/s.png");
  assertEquals((await run("cat /sdcard/s.png")).bytes.length, png.length);
});

Deno.test("ADB keyboard broadcast types any Unicode only when that IME is installed", async () => {
  const { run, dump, advance, ui } = rig();
  await run(`input tap ${center(find(await dump(), byText("Sign in"))!)}`);
  advance(1000);
  await run(`input tap ${center(find(await dump(), byId("email"))!)}`);
  const b = await run("am broadcast -a ADB_INPUT_TEXT --es msg 'héllo 日本'");
  assertStringIncludes(b.out, "Broadcast completed: result=0");
  assertEquals(ui.state().fields.email, "");
  await run("simctl ui-adb-keyboard on");
  assertStringIncludes((await run("ime list -s")).out, "com.android.adbkeyboard/.AdbIME");
  await run("am broadcast -a ADB_INPUT_TEXT --es msg 'héllo 日本'");
  assertEquals(ui.state().fields.email, "héllo 日本");
});

async function exec(port: number, serial: string, cmd: string): Promise<Uint8Array> {
  using c = await RawClient.connect(port);
  await c.request(`host:transport:${serial}`);
  assertEquals(await c.readText(4), "OKAY");
  await c.request(`exec:${cmd}`);
  const all = await c.readAll();
  assertEquals(dec.decode(all.subarray(0, 4)), "OKAY");
  return all.subarray(4);
}

Deno.test({
  name: "simctl show-dump serves every real dump through exec:, screencap draws it, HOME ends it",
  ignore: !haveReal,
  fn: async () => {
    await using sim = await startSimulator();
    const serial = "emulator-5554";
    for await (const e of Deno.readDir(REAL_DUMPS)) {
      if (!e.name.endsWith(".xml")) continue;
      const path = new URL(e.name, REAL_DUMPS).pathname;
      const want = await Deno.readTextFile(path);
      assertEquals(dec.decode(await exec(sim.port, serial, `simctl show-dump '${path}'`)), "");
      await exec(sim.port, serial, "uiautomator dump");
      assertEquals(
        dec.decode(await exec(sim.port, serial, "cat /sdcard/window_dump.xml")),
        want,
        e.name,
      );
      const png = await exec(sim.port, serial, "screencap -p");
      const img = await decodePng(png);
      assertEquals([img.width, img.height], [1080, 2400]);
    }
    // A tap on nothing that takes it changes nothing: the dump stays on screen.
    const last = dec.decode(await exec(sim.port, serial, "uiautomator dump /dev/tty"));
    await exec(sim.port, serial, "input tap 5 5");
    assertEquals(dec.decode(await exec(sim.port, serial, "uiautomator dump /dev/tty")), last);
    await exec(sim.port, serial, "input keyevent KEYCODE_HOME");
    const xml = dec.decode(await exec(sim.port, serial, "uiautomator dump /dev/tty"));
    assert(!xml.startsWith(last.slice(0, 200)) || !last.includes(P), "HOME left the dump");
    assert(!sim.device(serial).service<UiService>("ui")!.state().showingDump);
    const journal = await sim.readJournal();
    assert(journal.every((j) => !j.injection), "no injection recorded");
  },
});

Deno.test("the service is attached to every simulated device and answers over the wire", async () => {
  await using sim = await startSimulator();
  for (const d of sim.devices) {
    const out = dec.decode(await exec(sim.port, d.serial, "uiautomator dump /dev/tty"));
    assertMatch(out, /<\/hierarchy>UI hierchary dumped to: \/dev\/tty\n$/);
    assertStringIncludes(out, `package="${P}"`);
  }
  await exec(sim.port, "R5CT1234ABC", "simctl ui-busy 5");
  const busy = dec.decode(await exec(sim.port, "R5CT1234ABC", "uiautomator dump"));
  assertStringIncludes(busy, "already registered!");
  // A quoted hostile string is typed literally into the focused field; nothing else runs.
  const serial = "emulator-5554";
  await exec(sim.port, serial, "input tap 540 300");
  const ui = sim.device(serial).service<UiService>("ui")!;
  await new Promise((r) => setTimeout(r, RESPONSE_DELAY_MS + TRANSITION_MS + 50));
  const email = find(ui.currentXml(), byId("email"))!;
  await exec(sim.port, serial, `input tap ${center(email)}`);
  const hostile = "a;b|c&d$(id)`x`*?'\"";
  const quoted = "'" + hostile.replaceAll("'", `'"'"'`) + "'";
  await exec(sim.port, serial, `input text ${quoted}`);
  assertEquals(ui.state().fields.email, hostile);
  assert((await sim.readJournal()).every((j) => !j.injection), "no injection recorded");
});

/** A hand-written dump: an app window with a switch, a field and a list row, and a keyboard. */
function keyboardDump(): string {
  const n = (a: string, kids = "") => kids === "" ? `<node ${a} />` : `<node ${a}>${kids}</node>`;
  const attrs = (o: Record<string, string>) =>
    `index="0" text="${o.text ?? ""}" resource-id="${o.id ?? ""}" class="${o.cls}" ` +
    `package="${o.pkg ?? P}" content-desc="" checkable="${o.checkable ?? "false"}" ` +
    `checked="${o.checked ?? "false"}" clickable="${o.click ?? "false"}" enabled="true" ` +
    `focusable="false" focused="${o.focused ?? "false"}" scrollable="false" ` +
    `long-clickable="false" password="false" selected="false" bounds="${o.b}"`;
  const app = n(
    attrs({ cls: "android.widget.FrameLayout", b: "[0,0][1080,2400]" }),
    n(attrs({
      cls: "android.widget.Switch",
      text: "Wi-Fi",
      checkable: "true",
      click: "true",
      b: "[0,200][1080,400]",
    })) +
      n(attrs({ cls: "android.widget.EditText", click: "true", b: "[0,400][1080,600]" })) +
      n(attrs({
        cls: "android.widget.TextView",
        text: "Row",
        click: "true",
        b: "[0,1800][1080,2000]",
      })),
  );
  const ime = n(
    attrs({ cls: "android.widget.FrameLayout", pkg: IME_PACKAGE, b: "[0,1500][1080,2400]" }),
    n(attrs({
      cls: "android.view.View",
      pkg: IME_PACKAGE,
      text: "q",
      click: "true",
      b: "[0,1600][108,1750]",
    })),
  );
  return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">" +
    app + ime + "</hierarchy>";
}

Deno.test("a shown dump answers taps and BACK like its screen; dumpsys input_method follows its keyboard", async () => {
  const { ui, run } = rig();
  const xml = keyboardDump();
  ui.showDump(xml);
  assertStringIncludes((await run("dumpsys input_method")).out, "mInputShown=true");
  // The switch toggles; nothing else in the XML changes.
  await run("input tap 540 300");
  const toggled = ui.currentXml();
  assertEquals(
    toggled,
    xml.replace('checkable="true" checked="false"', 'checkable="true" checked="true"'),
  );
  // The field takes focus.
  await run("input tap 540 500");
  assertStringIncludes(
    ui.currentXml(),
    'class="android.widget.EditText" package="' + P +
      '" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" ' +
      'focusable="false" focused="true"',
  );
  // The row is under the keyboard: a tap there lands on the keyboard's window.
  await run("input tap 540 1900");
  assertEquals(ui.state().dumpTaps.map((t) => t.path), ["0.0", "0.1", null]);
  // BACK hides the keyboard (its window leaves the dump); the row takes the next tap.
  await run("input keyevent 4");
  assert(!ui.currentXml().includes(IME_PACKAGE));
  assertStringIncludes((await run("dumpsys input_method")).out, "mInputShown=false");
  await run("input tap 540 1900");
  assertEquals(ui.state().dumpTaps.at(-1)!.path, "0.2");
  assert(ui.state().showingDump);
  // A stuck report says what it is told, whatever the screen.
  await run("simctl ui-ime-report shown");
  assertStringIncludes((await run("dumpsys input_method")).out, "mInputShown=true");
  await run("simctl ui-ime-report follow");
  // BACK without a keyboard leaves the screen: the sample app is back.
  await run("input keyevent 4");
  assert(!ui.state().showingDump);
  assertStringIncludes(ui.currentXml(), `package="${P}"`);
});
