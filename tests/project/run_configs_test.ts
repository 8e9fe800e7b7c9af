import { join } from "node:path";
import {
  approveSharedConfigs,
  configName,
  defaultConfigurations,
  type ListedConfiguration,
  loadRunConfigs,
  loadSharedConfigs,
  mergeConfigs,
  parseRunConfiguration,
  recordLastDevice,
  SHARED_CONFIGS_FILE,
} from "../../lib/project/run_configs.ts";
import { type PlanFacts, resolvePlan } from "../../lib/project/run_plan.ts";
import type { Variant } from "../../lib/project/variants.ts";
import { assert, assertEquals } from "../assert.ts";

function v(name: string, buildType: string, id = "com.example.app"): Variant {
  const cap = name[0].toUpperCase() + name.slice(1);
  return {
    name,
    build_type: buildType,
    flavors: [],
    application_id: id,
    assemble_task: `:app:assemble${cap}`,
    install_task: `:app:install${cap}`,
    test_task: `:app:test${cap}UnitTest`,
    connected_test_task: `:app:connected${cap}AndroidTest`,
  };
}

const MODULES = [
  {
    module: ":app",
    variants: [v("demoDebug", "debug"), v("demoRelease", "release"), v("fullDebug", "debug")],
  },
  { module: ":wear", variants: [v("release", "release")] },
];

function listed(over: Partial<ListedConfiguration> = {}): ListedConfiguration {
  return {
    name: "app demoDebug",
    module: ":app",
    variant: "demoDebug",
    task: null,
    launch: { kind: "default" },
    target: { kind: "lastUsed" },
    logcat_filter: null,
    shared: false,
    last_device: null,
    active: true,
    ...over,
  };
}

function facts(over: Partial<PlanFacts> = {}): PlanFacts {
  return {
    trusted: true,
    sharedApproved: false,
    modules: MODULES,
    devices: [
      { serial: "emulator-5554", state: "device", model: "sdk_gphone64_x86_64" },
      { serial: "R58M123", state: "device", model: "SM_G991B" },
      { serial: "emulator-5556", state: "offline" },
    ],
    avdNames: new Map([["emulator-5554", "Pixel_8_API_35"]]),
    ...over,
  };
}

Deno.test("defaultConfigurations() makes one per debug variant, else the first variant", () => {
  const c = defaultConfigurations(MODULES);
  assertEquals(c.map((x) => x.name), ["app demoDebug", "app fullDebug", "wear release"]);
  assert(c.every((x) => x.target.kind === "lastUsed" && x.launch.kind === "default"));
  assertEquals(configName(":", "debug", "MyApp"), "MyApp debug");
  assertEquals(configName(":feature:tv", "debug"), "feature-tv debug");
});

Deno.test("parseRunConfiguration() refuses bad names, modules, activities and targets", () => {
  const ok = { name: "Demo", module: ":app", variant: "demoDebug" };
  assertEquals(typeof parseRunConfiguration(ok), "object");
  for (
    const bad of [
      { ...ok, name: "x;rm -rf /" },
      { ...ok, module: "app" },
      { ...ok, variant: "demo Debug" },
      { ...ok, launch: { kind: "activity", activity: "a;b" } },
      { ...ok, target: { kind: "serial", serial: "$(reboot)" } },
      { ...ok, target: { kind: "avd", avd: "../x" } },
      { ...ok, launch: { kind: "shell" } },
    ]
  ) {
    assertEquals(typeof parseRunConfiguration(bad), "string", JSON.stringify(bad));
  }
});

Deno.test("resolvePlan() picks the device by target", () => {
  const p = resolvePlan(listed(), facts());
  assert(!p.ok && p.kind === "choose_device", JSON.stringify(p));
  const last = resolvePlan(listed({ last_device: "R58M123" }), facts());
  assert(last.ok && last.device?.serial === "R58M123");
  assertEquals(last.ok && last.task, ":app:assembleDemoDebug");
  const asked = resolvePlan(listed(), facts(), { requested: "emulator-5554" });
  assert(asked.ok && asked.device?.label === "sdk gphone64 x86 64 (emulator-5554)");
  const offline = resolvePlan(listed(), facts(), { requested: "emulator-5556" });
  assert(!offline.ok && offline.kind === "no_device");
  const pinned = listed({ target: { kind: "serial", serial: "R58M123" } });
  const wrong = resolvePlan(pinned, facts(), { requested: "emulator-5554" });
  assert(!wrong.ok && wrong.kind === "wrong_device");
  const avd = resolvePlan(listed({ target: { kind: "avd", avd: "Pixel_8_API_35" } }), facts());
  assert(avd.ok && avd.device?.serial === "emulator-5554");
  const notRunning = resolvePlan(listed({ target: { kind: "avd", avd: "Small_Phone" } }), facts());
  assert(!notRunning.ok && notRunning.kind === "avd_not_running");
  assert(!notRunning.ok && /launch_avd/.test(notRunning.hint ?? ""));
});

Deno.test("resolvePlan() says why a configuration cannot build", () => {
  const untrusted = resolvePlan(listed(), facts({ trusted: false }));
  assert(!untrusted.ok && untrusted.kind === "untrusted");
  const stale = resolvePlan(listed({ variant: "paidDebug" }), facts(), { buildOnly: true });
  assert(!stale.ok && stale.kind === "stale" && /no variant paidDebug/.test(stale.reason));
  const gone = resolvePlan(listed({ module: ":tv" }), facts(), { buildOnly: true });
  assert(!gone.ok && gone.kind === "stale");
  const shared = listed({ shared: true, task: ":app:bundleDemoDebug" });
  const unapproved = resolvePlan(shared, facts(), { buildOnly: true });
  assert(!unapproved.ok && unapproved.kind === "unapproved");
  const approved = resolvePlan(shared, facts({ sharedApproved: true }), { buildOnly: true });
  assert(approved.ok && approved.task === ":app:bundleDemoDebug" && approved.device === null);
});

Deno.test("loadRunConfigs() creates on first read, once, and remembers the last device", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-runcfg-" });
  let calls = 0;
  const modules = () => (calls++, Promise.resolve(MODULES));
  try {
    const [a, b] = await Promise.all([
      loadRunConfigs(dir, "/proj", modules),
      loadRunConfigs(dir, "/proj", modules),
    ]);
    assertEquals(calls, 1);
    assertEquals(a.configurations.map((c) => c.name), b.configurations.map((c) => c.name));
    assertEquals(a.active, "app demoDebug");
    await recordLastDevice(dir, "/proj", "app fullDebug", "R58M123");
    const again = await loadRunConfigs(dir, "/proj", modules);
    assertEquals(calls, 1);
    assertEquals(again.last_devices["app fullDebug"], "R58M123");
    assertEquals(again.active, "app fullDebug");
    const other = await loadRunConfigs(dir, "/other", modules);
    assertEquals(other.last_devices, {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadSharedConfigs() is approved only for the file as it was approved", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-runcfg-" });
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "keynobi-proj-" }));
  try {
    assertEquals((await loadSharedConfigs(dir, root)).sha256, null);
    await Deno.mkdir(join(root, ".keynobi"));
    const file = join(root, SHARED_CONFIGS_FILE);
    const doc = {
      configurations: [{
        name: "Wear release",
        module: ":wear",
        variant: "release",
        target: { kind: "ask" },
      }, { name: "app demoDebug", module: ":app", variant: "demoDebug" }],
    };
    await Deno.writeTextFile(file, JSON.stringify(doc));
    const before = await loadSharedConfigs(dir, root);
    assertEquals(before.approved, false);
    assertEquals(before.configurations.length, 2);
    await approveSharedConfigs(dir, root, before.sha256!);
    assertEquals((await loadSharedConfigs(dir, root)).approved, true);
    await Deno.writeTextFile(file, JSON.stringify(doc) + "\n");
    assertEquals((await loadSharedConfigs(dir, root)).approved, false);
    const stored = await loadRunConfigs(dir, root, () => Promise.resolve(MODULES));
    const merged = mergeConfigs(stored, before);
    assertEquals(merged.configurations.filter((c) => c.shared).map((c) => c.name), [
      "Wear release",
    ]);
    assert(merged.problems.some((p) => /app demoDebug/.test(p)));
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(root, { recursive: true });
  }
});
