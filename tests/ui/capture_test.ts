import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";
import {
  captureHierarchy,
  classifyDumpOutput,
  DUMP_FILE,
  DumpFormMemory,
} from "../../lib/ui/capture.ts";
import { LEASE_STALE_MS, UiAutomatorLocks, uiLockPath } from "../../lib/ui/automator_lock.ts";
import { dump, screen } from "./_xml.ts";
import { FakeAdb } from "../fake_adb.ts";
import { waitUntil } from "../wait.ts";

const XML = dump(
  screen([{ cls: "android.widget.Button", text: "OK", b: [0, 0, 100, 100], click: true }]),
);
const TTY_LINE = "UI hierchary dumped to: /dev/tty\r\n";

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-ui-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("classifyDumpOutput() tells XML, busy, errors and the success line apart", () => {
  assertEquals(classifyDumpOutput(XML + TTY_LINE).kind, "xml");
  assertEquals(
    classifyDumpOutput("UI hierarchy dumped to: /sdcard/window_dump.xml").kind,
    "dumped",
  );
  assertEquals(classifyDumpOutput("UI hierchary dumped to: /dev/tty").kind, "dumped");
  assertEquals(
    classifyDumpOutput("ERROR: null root node returned by UiTestAutomationBridge.").kind,
    "error",
  );
  assertEquals(classifyDumpOutput("ERROR: could not get idle state.").kind, "error");
  assertEquals(classifyDumpOutput("Killed").kind, "error");
  const busy = classifyDumpOutput(
    "java.lang.IllegalStateException: UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@2d2b6c8already registered!",
  );
  assertEquals(busy.kind, "busy");
  assertEquals(classifyDumpOutput("").kind, "no_xml");
  // An app that says "already registered" on screen is a screen, not a busy device.
  assertEquals(
    classifyDumpOutput(XML.replace('text="OK"', 'text="Email already registered"')).kind,
    "xml",
  );
});

Deno.test("captureHierarchy() reads the fast tty form", async () => {
  await withDir(async (dir) => {
    const adb = new FakeAdb(() => XML + TTY_LINE);
    const c = await captureHierarchy(adb, "emulator-5554", { locks: new UiAutomatorLocks(dir) });
    assertEquals(c.form, "tty");
    assertEquals(c.tree.nodes[1].text, "OK");
    assertEquals(adb.calls.map((x) => `${x.kind} ${x.argv.join(" ")}`), [
      "exec uiautomator dump /dev/tty",
    ]);
  });
});

Deno.test("captureHierarchy() falls back to the file form and remembers it per device", async () => {
  await withDir(async (dir) => {
    const adb = new FakeAdb((argv, { kind }) => {
      if (kind === "exec" && argv[2] === "/dev/tty") return TTY_LINE;
      if (kind === "shell") return { err: "", out: `UI hierarchy dumped to: ${DUMP_FILE}\n` };
      return XML;
    });
    const forms = new DumpFormMemory();
    const locks = new UiAutomatorLocks(dir);
    const c = await captureHierarchy(adb, "R5CT1", { locks, forms });
    assertEquals(c.form, "file");
    await captureHierarchy(adb, "R5CT1", { locks, forms });
    assertEquals(adb.calls.map((x) => `${x.kind} ${x.argv.join(" ")}`), [
      "exec uiautomator dump /dev/tty",
      `shell uiautomator dump ${DUMP_FILE}`,
      `exec cat ${DUMP_FILE}`,
      `shell uiautomator dump ${DUMP_FILE}`,
      `exec cat ${DUMP_FILE}`,
    ]);
  });
});

Deno.test("captureHierarchy() fails at once when another UI Automator client is registered", async () => {
  await withDir(async (dir) => {
    const adb = new FakeAdb(() => ({
      err: "java.lang.IllegalStateException: UiAutomationService x@1already registered!",
    }));
    const e = await assertRejects(
      () => captureHierarchy(adb, "emulator-5554", { locks: new UiAutomatorLocks(dir) }),
      ToolError,
    );
    assertEquals(e.code, "device_busy");
    assertEquals(adb.calls.length, 1);
  });
});

Deno.test("captureHierarchy() retries dump errors and a truncated-beyond-repair output", async () => {
  await withDir(async (dir) => {
    const answers = ["ERROR: null root node returned by UiTestAutomationBridge.", "Killed", XML];
    const adb = new FakeAdb(() => answers.shift() ?? XML);
    const c = await captureHierarchy(adb, "emulator-5554", { locks: new UiAutomatorLocks(dir) });
    assertEquals(c.attempts, 3);
    assertEquals(c.form, "tty");
  });
});

Deno.test("captureHierarchy() says the total deadline was hit", async () => {
  await withDir(async (dir) => {
    const adb = new FakeAdb(() => "hang");
    const e = await assertRejects(
      () =>
        captureHierarchy(adb, "emulator-5554", { locks: new UiAutomatorLocks(dir), totalMs: 150 }),
      ToolError,
    );
    assertEquals(e.code, "timeout");
    assertStringIncludes(e.message, "total deadline of 150 ms");
  });
});

Deno.test("captureHierarchy() stops when the request is cancelled", async () => {
  await withDir(async (dir) => {
    const adb = new FakeAdb(() => "hang");
    const ctl = new AbortController();
    const capturing = captureHierarchy(adb, "emulator-5554", {
      locks: new UiAutomatorLocks(dir),
      signal: ctl.signal,
    });
    capturing.catch(() => {});
    await waitUntil(() => adb.calls.length > 0, "the dump to be asked for");
    ctl.abort();
    const e = await assertRejects(() => capturing, ToolError);
    assertEquals(e.code, "cancelled");
  });
});

Deno.test("UiAutomatorLocks: two processes take turns on one device; the loser names the pid", async () => {
  await withDir(async (dir) => {
    const a = new UiAutomatorLocks(dir);
    const b = new UiAutomatorLocks(dir); // another process's lock set over the same data dir
    let release!: () => void;
    const held = new Promise<void>((r) => release = r);
    const order: string[] = [];
    let started!: () => void;
    const holding = new Promise<void>((r) => started = r);
    const first = a.run("emulator-5554", { signal: new AbortController().signal }, async () => {
      order.push("a start");
      started();
      await held;
      order.push("a end");
    });
    await holding; // the job runs only once the lease is written
    const lock = JSON.parse(await Deno.readTextFile(await uiLockPath(dir, "emulator-5554")));
    assertEquals(lock.pid, Deno.pid);
    // b gives up at its deadline with the busy error.
    const adb = new FakeAdb(() => XML);
    const e = await assertRejects(
      () => captureHierarchy(adb, "emulator-5554", { locks: b, totalMs: 200 }),
      ToolError,
    );
    assertEquals(e.code, "device_busy");
    assertStringIncludes(e.message, `another Keynobi process (pid ${Deno.pid})`);
    assertEquals(adb.calls.length, 0);
    // b waits its turn when it has time.
    const second = b.run("emulator-5554", { signal: new AbortController().signal }, () => {
      order.push("b");
      return Promise.resolve();
    });
    await new Promise((r) => setTimeout(r, 150));
    release();
    await Promise.all([first, second]);
    assertEquals(order, ["a start", "a end", "b"]);
  });
});

Deno.test("UiAutomatorLocks: different devices run in parallel, one device in turn", async () => {
  await withDir(async (dir) => {
    const locks = new UiAutomatorLocks(dir);
    let running = 0;
    let peak = 0;
    let started = 0;
    const job = (hold: () => Promise<void>) => async () => {
      running++;
      started++;
      peak = Math.max(peak, running);
      await hold();
      running--;
    };
    const signal = new AbortController().signal;
    // Two devices: each job holds until the other has started too (never, if they took turns).
    const together = () => waitUntil(() => started === 2, "both devices' captures at once");
    await Promise.all([
      locks.run("A", { signal }, job(together)),
      locks.run("B", { signal }, job(together)),
    ]);
    assertEquals(peak, 2);
    peak = 0;
    // One device: while the first holds for a while, the second must not start.
    const awhile = () => new Promise<void>((r) => setTimeout(r, 60));
    await Promise.all([
      locks.run("A", { signal }, job(awhile)),
      locks.run("A", { signal }, job(awhile)),
    ]);
    assertEquals(peak, 1);
  });
});

Deno.test("UiAutomatorLocks: a lease its process stopped renewing is taken over", async () => {
  await withDir(async (dir) => {
    const path = await uiLockPath(dir, "emulator-5554");
    await Deno.mkdir(`${dir}/ui-automator-locks`, { recursive: true });
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        pid: 999999,
        serial: "emulator-5554",
        token: "dead",
        acquired_at: "",
        renewed_at: Date.now() - LEASE_STALE_MS - 1,
      }),
    );
    let ran = false;
    await new UiAutomatorLocks(dir).run(
      "emulator-5554",
      { signal: AbortSignal.timeout(1000) },
      () => {
        ran = true;
        return Promise.resolve();
      },
    );
    assert(ran);
  });
});

Deno.test("UiAutomatorLocks: a lock that cannot be written fails the capture, nothing is sent", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/ui-automator-locks`, "not a folder");
    const adb = new FakeAdb(() => XML);
    const e = await assertRejects(
      () => captureHierarchy(adb, "emulator-5554", { locks: new UiAutomatorLocks(dir) }),
      ToolError,
    );
    assertEquals(e.code, "io_error");
    assertEquals(adb.calls.length, 0);
  });
});

Deno.test("UiAutomatorLocks: back-to-back captures of one process hand the lease on, then free it", async () => {
  await withDir(async (dir) => {
    const locks = new UiAutomatorLocks(dir);
    const path = await uiLockPath(dir, "emulator-5554");
    const signal = new AbortController().signal;
    const tokens: string[] = [];
    const job = () => async () => {
      tokens.push(JSON.parse(await Deno.readTextFile(path)).token);
      await new Promise((r) => setTimeout(r, 10));
    };
    await Promise.all([1, 2, 3].map(() => locks.run("emulator-5554", { signal }, job())));
    // One lease for the three (no release and re-take between them), and none left after.
    assertEquals(new Set(tokens).size, 1);
    assertEquals(tokens.length, 3);
    await assertRejects(() => Deno.stat(path), Deno.errors.NotFound);
    // A capture on its own takes and frees its own lease.
    await locks.run("emulator-5554", { signal }, job());
    assertEquals(new Set(tokens).size, 2);
    await assertRejects(() => Deno.stat(path), Deno.errors.NotFound);
  });
});

Deno.test("UiAutomatorLocks: a waiter handed the lease that gives up leaves no lock behind", async () => {
  await withDir(async (dir) => {
    const locks = new UiAutomatorLocks(dir);
    const path = await uiLockPath(dir, "emulator-5554");
    let finish!: () => void;
    let started!: () => void;
    const holding = new Promise<void>((r) => started = r);
    const first = locks.run(
      "emulator-5554",
      { signal: new AbortController().signal },
      () => {
        started();
        return new Promise<void>((r) => finish = r);
      },
    );
    const quitter = new AbortController();
    const second = locks.run("emulator-5554", { signal: quitter.signal }, () => Promise.resolve());
    await holding; // the job runs only once the lease is written
    await Deno.stat(path); // held by the first
    quitter.abort(new ToolError("cancelled", "Cancelled by the test"));
    await assertRejects(() => second, ToolError);
    finish();
    await first;
    await assertRejects(() => Deno.stat(path), Deno.errors.NotFound);
    // Another process gets the device at once.
    let ran = false;
    await new UiAutomatorLocks(dir).run(
      "emulator-5554",
      { signal: AbortSignal.timeout(500) },
      () => {
        ran = true;
        return Promise.resolve();
      },
    );
    assert(ran);
  });
});
