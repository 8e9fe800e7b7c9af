import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { UiService } from "../../lib/ui/ui_service.ts";
import { dump, type N, screen } from "./_xml.ts";
import { FakeAdb } from "../fake_adb.ts";
import { waitUntil } from "../wait.ts";

/** A tiny app: a sign-in screen; a tap on "Sign in" shows a spinner, then the inbox. */
function signIn(): string {
  return dump(screen([
    {
      cls: "android.widget.EditText",
      hint: "Email",
      id: "com.example:id/email",
      b: [0, 200, 1080, 350],
      click: true,
    },
    {
      cls: "android.widget.Button",
      text: "Sign in",
      id: "com.example:id/sign_in",
      b: [100, 1548, 980, 1692],
      click: true,
    },
  ]));
}
const spinner = () =>
  dump(screen([{ cls: "android.widget.ProgressBar", b: [500, 1100, 580, 1180] }]));
const inbox = () =>
  dump(screen([{ cls: "android.widget.TextView", text: "Inbox", b: [0, 100, 1080, 200] } as N]));

const ACTIVITY = "  mResumedActivity: ActivityRecord{5d3e0a9 u0 com.example/.SignInActivity t23}\n";

async function withService(fn: (s: UiService, screens: string[], adb: FakeAdb) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-ui-" });
  const screens = [signIn()];
  const adb = new FakeAdb((argv) => {
    if (argv[0] === "dumpsys") return ACTIVITY;
    const next = screens.length > 1 ? screens.shift()! : screens[0];
    return next + "UI hierchary dumped to: /dev/tty";
  });
  try {
    await fn(new UiService({ adb, dataDir: dir }), screens, adb);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const ctx = () => ({ signal: new AbortController().signal });

Deno.test("UiService.observe() returns the list with the activity and remembers its handles", async () => {
  await withService(async (s) => {
    const r = await s.observe({ serial: "emulator-5554" }, ctx());
    assertEquals(r.text.split("\n").slice(1), [
      '[e1] EditText "" hint "Email" #email @(540,275) 1080x150 click,edit',
      '[e2] Button "Sign in" #sign_in @(540,1620) 880x144 click',
    ]);
    assertStringIncludes(r.text, "activity: com.example/.SignInActivity");
    const at = await s.resolve({ serial: "emulator-5554", target: "e2" }, ctx());
    assertEquals([at.x, at.y, at.node.text, at.node.handle], [540, 1620, "Sign in", "e2"]);
    const found = await s.find(
      { serial: "emulator-5554", selector: { resource_id: "email" } },
      ctx(),
    );
    assertEquals(found.matches.map((m) => [m.path, m.handle, m.editable]), [["0.0", "e1", true]]);
  });
});

Deno.test("UiService.resolve() refuses a handle after the screen changed", async () => {
  await withService(async (s, screens) => {
    await s.observe({ serial: "emulator-5554" }, ctx());
    screens.splice(0, screens.length, inbox());
    const e = await assertRejects(
      () => s.resolve({ serial: "emulator-5554", target: "e2" }, ctx()),
      ToolError,
    );
    assertEquals(e.code, "screen_changed");
    // Handles belong to their device.
    const other = await assertRejects(
      () => s.resolve({ serial: "R5CT1", target: "e1" }, ctx()),
      ToolError,
    );
    assertEquals(other.code, "screen_changed");
  });
});

Deno.test("UiService.settle() returns the screen after the spinner, not a mid-transition one", async () => {
  await withService(async (s, screens, adb) => {
    await s.observe({ serial: "emulator-5554" }, ctx());
    const button = { left: 100, top: 1548, right: 980, bottom: 1692 };
    screens.splice(0, screens.length, signIn(), spinner(), spinner(), spinner(), inbox());
    const r = await s.settle({
      serial: "emulator-5554",
      touched: button,
      options: { quietMs: 0, loadingWaitMs: 5_000 },
    }, ctx());
    assert(r.settled && r.responded);
    assertEquals(r.list.rows.map((x) => x.label), ["Inbox"]);
    assert(!r.list.loading);
    assert(r.captures >= 5, `captures ${r.captures}`);
    assert(adb.calls.every((c) => c.argv[0] !== "input"));
  });
});

Deno.test("UiService.wait() reports progress and stops at the timeout or on a match", async () => {
  await withService(async (s, screens) => {
    const progress: number[] = [];
    const miss = await s.wait({
      serial: "emulator-5554",
      selector: { text: "Inbox" },
      timeoutMs: 300,
      pollMs: 50,
    }, { signal: new AbortController().signal, progress: (p) => progress.push(p) });
    assert(!miss.met);
    assert(progress.length > 0);
    screens.splice(0, screens.length, signIn(), inbox());
    const hit = await s.wait(
      { serial: "emulator-5554", selector: { text: "Inbox" }, pollMs: 10 },
      ctx(),
    );
    assert(hit.met);
    assertEquals(hit.matches[0].text, "Inbox");
    const gone = await s.wait({
      serial: "emulator-5554",
      selector: { text: "Sign in" },
      gone: true,
    }, ctx());
    assert(gone.met);
  });
});

Deno.test("UiService refuses bad selectors and targets before any device command", async () => {
  await withService(async (s, _screens, adb) => {
    for (const target of ["e0", "$(reboot)", "0.1;ls", "e7\n"]) {
      const e = await assertRejects(
        () => s.resolve({ serial: "emulator-5554", target }, ctx()),
        ToolError,
      );
      assertEquals(e.code, "invalid_params");
    }
    const e = await assertRejects(
      () => s.find({ serial: "emulator-5554", selector: { clickable: true } }, ctx()),
      ToolError,
    );
    assertEquals(e.code, "invalid_params");
    assertEquals(adb.calls.length, 0);
  });
});

Deno.test("UiService: concurrent reads of one device share one capture; later ones capture again", async () => {
  await withService(async (s, _screens, adb) => {
    const dumps = () => adb.calls.filter((c) => c.argv.includes("dump")).length;
    const serial = "emulator-5554";
    const [a, b, c] = await Promise.all([
      s.observe({ serial }, ctx()),
      s.tree({ serial }, ctx()),
      s.find({ serial, selector: { text: "Sign in" } }, ctx()),
    ]);
    assertEquals(dumps(), 1);
    assertEquals([b.screenHash, c.screenHash], [a.list.screenHash, a.list.screenHash]);
    assertEquals(c.total, 1);
    // A read after the shared one finished dumps again, and so does every settle.
    await s.observe({ serial }, ctx());
    assertEquals(dumps(), 2);
    await Promise.all([
      s.settle({ serial, options: { minStableMs: 0 } } as never, ctx()),
      s.observe({ serial }, ctx()),
    ]);
    assert(dumps() >= 4, `${dumps()} dumps`);
  });
});

Deno.test("UiService: one reader giving up does not cancel the capture the others share", async () => {
  await withService(async (s, _screens, adb) => {
    const serial = "emulator-5554";
    const gone = new AbortController();
    const first = s.observe({ serial }, { signal: gone.signal });
    const second = s.observe({ serial }, ctx());
    gone.abort(new ToolError("cancelled", "Cancelled by the test"));
    const e = await assertRejects(() => first, ToolError);
    assertEquals(e.code, "cancelled");
    const r = await second;
    assertStringIncludes(r.text, "Sign in");
    assertEquals(adb.calls.filter((c) => c.argv.includes("dump")).length, 1);
  });
});

Deno.test("UiService.observe() asks for the foreground activity beside the dump, not after", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-ui-" });
  const order: string[] = [];
  let releaseDump!: () => void;
  const dumpGate = new Promise<void>((r) => releaseDump = r);
  const adb = new FakeAdb((argv) => {
    order.push(argv[0] === "dumpsys" ? "dumpsys" : "dump");
    return argv[0] === "dumpsys" ? ACTIVITY : signIn() + "UI hierchary dumped to: /dev/tty";
  });
  const slow = {
    calls: adb.calls,
    exec: async (serial: string, argv: readonly string[], o?: never) => {
      if (!argv.includes("dumpsys")) await dumpGate; // the dump is slow
      return await adb.exec(serial, argv, o);
    },
    shell: async (serial: string, argv: readonly string[], o?: never) => {
      if (argv[0] !== "dumpsys") await dumpGate;
      return await adb.shell(serial, argv, o);
    },
  };
  try {
    const s = new UiService({ adb: slow as never, dataDir: dir });
    const r = s.observe({ serial: "emulator-5554" }, ctx());
    await waitUntil(() => order.includes("dumpsys"), "the foreground activity to be asked for");
    assertEquals(order, ["dumpsys"]); // asked while the dump is still running
    releaseDump();
    assertStringIncludes((await r).text, "activity: com.example/.SignInActivity");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("UiService.find() gives a listed node its row's tap point, not its center", async () => {
  await withService(async (s, screens) => {
    // A floating button covers the row's center: the row is tapped beside it.
    screens[0] = dump(screen([
      { cls: "android.widget.Button", text: "Archive", b: [0, 1000, 1080, 1400], click: true },
      { cls: "android.widget.ImageButton", desc: "New", b: [440, 1000, 640, 1300], click: true },
    ]));
    const serial = "emulator-5554";
    const list = await s.observe({ serial }, ctx());
    const row = list.list.rows.find((r) => r.label === "Archive")!;
    const found = await s.find({ serial, selector: { text: "Archive" } }, ctx());
    const m = found.matches[0];
    assertEquals([m.handle, m.x, m.y], [row.handle, row.x, row.y]);
    assertEquals([m.x, m.y], [220, 1150], "beside the button, not its center (540,1200)");
  });
});
