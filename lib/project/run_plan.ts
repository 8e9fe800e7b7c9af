/**
 * Resolving a run configuration against the project and the devices adb lists now: the task it
 * builds, the device it runs on, what it launches — or why it cannot run. Pure: callers gather
 * the facts (trust, approval, variants, devices, AVD names) and the tools decide what a reason
 * means (a `cannot_run` in a listing, a refusal or a tool error when running).
 */
import type { ListedConfiguration, RunLaunch } from "./run_configs.ts";
import { taskPath, type Variant } from "./variants.ts";

interface PlanDevice {
  serial: string;
  /** `Pixel 8 (emulator-5554)`. */
  label: string;
}

export interface PlanFacts {
  trusted: boolean;
  /** Whether the shared file, as it is now, is approved. */
  sharedApproved: boolean;
  /** Application modules and their variants. */
  modules: ReadonlyArray<{ module: string; variants: Variant[] }>;
  /** Devices adb lists now (any state). */
  devices: ReadonlyArray<{ serial: string; state: string; model?: string | null }>;
  /** Serial → AVD name of running emulators. */
  avdNames: ReadonlyMap<string, string>;
}

/** Why a configuration cannot run; `kind` tells a caller how to report it. */
export interface CannotRun {
  ok: false;
  /**
   * `untrusted` and `unknown_device` are refusals of the call; `unapproved`, `stale` (no longer
   * fits the project), `no_device`, `choose_device` and `avd_not_running` are tool errors.
   */
  kind:
    | "untrusted"
    | "unapproved"
    | "stale"
    | "no_device"
    | "choose_device"
    | "avd_not_running"
    | "wrong_device";
  reason: string;
  hint?: string;
}

interface Plan {
  ok: true;
  task: string;
  module: string;
  variant: string;
  application_id: string | null;
  /** `null` for a build-only resolution. */
  device: PlanDevice | null;
  launch: RunLaunch;
  /** One line: what running it does. */
  summary: string;
}

export function describeLaunch(l: RunLaunch): string {
  switch (l.kind) {
    case "default":
      return "launch the launcher activity";
    case "activity":
      return `launch ${l.activity}`;
    case "deep_link":
      return `open ${l.uri}`;
    case "none":
      return "do not launch";
  }
}

function label(d: { serial: string; model?: string | null }): string {
  return d.model ? `${d.model.replaceAll("_", " ")} (${d.serial})` : d.serial;
}

/** The task, module and variant a configuration builds, or why it no longer fits. Pure. */
export function resolveBuild(
  c: ListedConfiguration,
  facts: PlanFacts,
): { ok: true; task: string; variant: Variant } | CannotRun {
  if (!facts.trusted) {
    return {
      ok: false,
      kind: "untrusted",
      reason: "the project is not trusted, so keynobi will not build it",
      hint: "ask the user to run `keynobi trust <project>` in a terminal",
    };
  }
  if (c.shared && !facts.sharedApproved) {
    return {
      ok: false,
      kind: "unapproved",
      reason: `${c.name} comes from the project's shared run-configurations file, which the ` +
        "user has not approved as it is now",
      hint: "ask the user to review it and run `keynobi approve-configurations <project>`",
    };
  }
  const m = facts.modules.find((x) => x.module === c.module);
  if (!m) {
    return {
      ok: false,
      kind: "stale",
      reason: `module ${c.module} is not an application module of the project (${
        facts.modules.map((x) => x.module).join(", ") || "none"
      })`,
    };
  }
  const v = m.variants.find((x) => x.name === c.variant);
  if (!v) {
    return {
      ok: false,
      kind: "stale",
      reason: `module ${c.module} has no variant ${c.variant} (${
        m.variants.slice(0, 10).map((x) => x.name).join(", ")
      })`,
    };
  }
  return { ok: true, task: c.task ?? taskPath(c.module, "assemble", v.name), variant: v };
}

/** The device a configuration runs on, given an optional requested serial. Pure. */
function resolveDevice(
  c: ListedConfiguration,
  facts: PlanFacts,
  requested?: string,
): PlanDevice | CannotRun {
  const online = facts.devices.filter((d) => d.state === "device");
  const find = (serial: string) => online.find((d) => d.serial === serial);
  const t = c.target;
  if (t.kind === "serial") {
    if (requested !== undefined && requested !== t.serial) {
      return {
        ok: false,
        kind: "wrong_device",
        reason: `${c.name} runs on ${t.serial}, not ${requested}`,
        hint: "call it without device_serial, or pick a configuration for that device",
      };
    }
    const d = find(t.serial);
    return d ? { serial: d.serial, label: label(d) } : {
      ok: false,
      kind: "no_device",
      reason: `${c.name} runs on ${t.serial}, which is not online`,
      hint: "connect that device (list_devices shows what is online)",
    };
  }
  if (t.kind === "avd") {
    const running = online.filter((d) => facts.avdNames.get(d.serial) === t.avd);
    if (requested !== undefined) {
      const d = running.find((x) => x.serial === requested);
      return d ? { serial: d.serial, label: label(d) } : {
        ok: false,
        kind: "wrong_device",
        reason: `${c.name} runs on the AVD ${t.avd}, and ${requested} is not that emulator`,
        hint: running.length ? `use ${running[0].serial}` : `call launch_avd with name ${t.avd}`,
      };
    }
    return running.length > 0 ? { serial: running[0].serial, label: label(running[0]) } : {
      ok: false,
      kind: "avd_not_running",
      reason: `${c.name} runs on the AVD ${t.avd}, which is not running`,
      hint: `call launch_avd with name ${t.avd}, then run it again`,
    };
  }
  if (requested !== undefined) {
    const d = find(requested);
    return d ? { serial: d.serial, label: label(d) } : {
      ok: false,
      kind: "no_device",
      reason: `${requested} is not online (online: ${
        online.map((x) => x.serial).join(", ") || "none"
      })`,
      hint: "call list_devices and pass a serial from it",
    };
  }
  if (t.kind === "lastUsed" && c.last_device !== null) {
    const d = find(c.last_device);
    if (d) return { serial: d.serial, label: label(d) };
  }
  if (online.length === 1) return { serial: online[0].serial, label: label(online[0]) };
  if (online.length === 0) {
    return {
      ok: false,
      kind: "no_device",
      reason: "no device is online",
      hint: "start an emulator with launch_avd or connect a device",
    };
  }
  return {
    ok: false,
    kind: "choose_device",
    reason: `several devices are online (${online.map((x) => x.serial).join(", ")})`,
    hint: "pass device_serial",
  };
}

/** The whole plan; `buildOnly` skips the device. Pure. */
export function resolvePlan(
  c: ListedConfiguration,
  facts: PlanFacts,
  opts: { requested?: string; buildOnly?: boolean } = {},
): Plan | CannotRun {
  const b = resolveBuild(c, facts);
  if (!b.ok) return b;
  let device: PlanDevice | null = null;
  if (!opts.buildOnly) {
    const d = resolveDevice(c, facts, opts.requested);
    if ("ok" in d) return d;
    device = d;
  }
  const summary = `build ${b.task}` +
    (device ? `, install on ${device.label}, ${describeLaunch(c.launch)}` : "");
  return {
    ok: true,
    task: b.task,
    module: c.module,
    variant: b.variant.name,
    application_id: b.variant.application_id,
    device,
    launch: c.launch,
    summary,
  };
}
