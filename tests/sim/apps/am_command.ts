/**
 * `am` / `cmd activity` (start with -W and -S, force-stop, broadcast, kill) and `monkey -p`: the
 * activity manager's side of launching and stopping apps, with the Displayed / Fully drawn lines
 * the real one writes into the log.
 */
import type { ShIo } from "../sh_exec.ts";
import { SHELL_PID } from "./constants.ts";
import { EXCEPTION_HEAD, intentText, parseIntent } from "./intents.ts";
import { formatUid, shortComponent } from "./packages.ts";
import { SAMPLE_PACKAGE } from "./sample.ts";
import type { AppsService } from "./service.ts";

/** How long after its first frame the sample app reports itself fully drawn. */
export const FULLY_DRAWN_AFTER_MS = 410;

const enc = new TextEncoder();

export function amCommand(apps: AppsService, args: string[], io: ShIo): number | null {
  const [sub, ...rest] = args;
  switch (sub) {
    case "start":
    case "start-activity":
      return amStart(apps, rest, io);
    case "force-stop": {
      const pkg = rest.filter((a) => !a.startsWith("-") && a !== "0").at(-1) ?? "";
      apps.forceStop(pkg);
      return 0;
    }
    case "broadcast":
      return broadcast(apps, rest, io);
    case "kill": {
      const pkg = rest.at(-1) ?? "";
      if (apps.stack[0]?.pkg !== pkg) {
        apps.kill(pkg, {
          reason: 13,
          description: "kill background",
          logReason: "kill background",
        });
      }
      return 0;
    }
  }
  return null;
}

/** `am start`; `callerUid` is who asks (2000 for the shell, the launcher's uid for a tap). */
export function amStart(apps: AppsService, args: string[], io: ShIo, callerUid = 2000): number {
  let wait = false, stop = false;
  const rest: string[] = [];
  for (const a of args) {
    if (a === "-W") wait = true;
    else if (a === "-S") stop = true;
    else if (a === "-D" || a === "-N") continue;
    else rest.push(a);
  }
  const it = parseIntent(rest, io, "start");
  if (typeof it === "number") return it;
  const out = (s: string) => io.out(enc.encode(s));
  const errOut = (s: string) => (wait ? io.out : io.err)(enc.encode(s));
  const errorExit = apps.device.api >= 34 ? 1 : 0;
  const hit = apps.resolve(it);
  if (stop && hit) {
    out(`Stopping: ${hit.pkg}\n`);
    apps.forceStop(hit.pkg);
  }
  out(`Starting: ${intentText(it, 0)}\n`);
  if (!hit) {
    if (it.component) {
      errOut(
        `Error type 3\nError: Activity class {${it.component.pkg}/${it.component.cls}} does not exist.\n`,
      );
    } else {
      errOut(
        `Error: Activity not started, unable to resolve ${intentText(it, 0x10000000)}\n`,
      );
    }
    return errorExit;
  }
  apps.log(
    "I",
    apps.atmTag,
    `START u0 {${intentText(it, 0x10000000).slice(9, -2)}} ` +
      (apps.device.api >= 34
        ? `with LAUNCH_MULTIPLE from uid ${callerUid} (BAL_ALLOW_PERMISSION) result code=0`
        : `from uid ${callerUid}`),
  );
  const p = apps.packages.get(hit.pkg)!;
  const top = apps.stack[0];
  const short = shortComponent(hit.pkg, hit.cls);
  if (top && top.pkg === hit.pkg && top.cls === hit.cls) {
    errOut("Warning: Activity not started, its current task has been brought to the front\n");
    if (wait) {
      out(`Status: ok\nLaunchState: UNKNOWN (0)\nActivity: ${short}\nWaitTime: 4\nComplete\n`);
    }
    return 0;
  }
  let state: "COLD" | "WARM" | "HOT";
  let pid = apps.pidOf(hit.pkg);
  if (pid === null) {
    state = "COLD";
    const proc = apps.spawn(hit.pkg);
    pid = proc.pid;
    const reason = apps.device.api >= 31
      ? "next-top-activity"
      : apps.device.api >= 29
      ? "pre-top-activity"
      : "activity";
    apps.log(
      "I",
      "ActivityManager",
      `Start proc ${pid}:${proc.name}/${formatUid(p.uid)} for ${reason} {${hit.pkg}/${hit.cls}}`,
    );
  } else {
    state = apps.stack.some((t) => t.pkg === hit.pkg && t.cls === hit.cls) ? "HOT" : "WARM";
  }
  const total = state === "COLD"
    ? apps.launchTimes.cold
    : state === "WARM"
    ? apps.launchTimes.warm
    : apps.launchTimes.hot;
  const existing = apps.stack.find((t) => t.pkg === hit.pkg);
  const task = existing ?? { pkg: hit.pkg, cls: hit.cls, task: apps.nextTask++, uid: p.uid };
  task.cls = hit.cls;
  apps.stack = [task, ...apps.stack.filter((t) => t !== task)];
  const api = apps.device.api;
  if (state !== "HOT" || api < 29) {
    const d = formatDuration(total);
    apps.log(
      "I",
      apps.atmTag,
      api >= 34 ? `Displayed ${short} for user 0: ${d}` : `Displayed ${short}: ${d}`,
    );
    // The sample app calls reportFullyDrawn() once its list is loaded.
    if (hit.pkg === SAMPLE_PACKAGE && state !== "HOT") {
      apps.log(
        "I",
        apps.atmTag,
        `Fully drawn ${short}: ${formatDuration(total + FULLY_DRAWN_AFTER_MS)}`,
      );
    }
  }
  if (wait) {
    if (api >= 29) {
      out(
        `Status: ok\nLaunchState: ${state}\nActivity: ${short}\nTotalTime: ${total}\n` +
          `WaitTime: ${total + 3}\nComplete\n`,
      );
    } else {
      out(
        `Status: ok\nActivity: ${short}\nThisTime: ${total}\nTotalTime: ${total}\n` +
          `WaitTime: ${total + 3}\nComplete\n`,
      );
    }
  }
  return 0;
}

function broadcast(apps: AppsService, args: string[], io: ShIo): number {
  const it = parseIntent(args, io, "broadcast");
  if (typeof it === "number") return it;
  if (it.action === "android.intent.action.AIRPLANE_MODE" && apps.device.api >= 24) {
    io.err(enc.encode(
      EXCEPTION_HEAD("broadcast") +
        `java.lang.SecurityException: Permission Denial: not allowed to send broadcast ` +
        `android.intent.action.AIRPLANE_MODE from pid=${SHELL_PID}, uid=2000\n` +
        "\tat com.android.server.am.ActivityManagerService.broadcastIntentLockedTraced(ActivityManagerService.java:15206)\n" +
        "\tat com.android.server.am.ActivityManagerShellCommand.runSendBroadcast(ActivityManagerShellCommand.java:1012)\n",
    ));
    return 255;
  }
  io.out(enc.encode(
    `Broadcasting: ${intentText(it, 0x400000)}\nBroadcast completed: result=0\n`,
  ));
  return 0;
}

export function monkeyCommand(apps: AppsService, args: string[], io: ShIo): number {
  let pkg = "";
  let category = "";
  for (let k = 0; k < args.length; k++) {
    if (args[k] === "-p") pkg = args[++k] ?? "";
    else if (args[k] === "-c") category = args[++k] ?? "";
  }
  let text = args.map((a) => `  bash arg: ${a}\n`).join("") +
    `args: [${args.join(", ")}]\n` + args.map((a) => ` arg: "${a}"\n`).join("");
  if (pkg) text += `data="${pkg}"\n`;
  if (category) text += `data="${category}"\n`;
  const p = apps.packages.get(pkg);
  const launcher = p?.activities.find((a) =>
    a.filters.some((f) =>
      f.actions.includes("android.intent.action.MAIN") &&
      f.categories.includes(category || "android.intent.category.LAUNCHER")
    )
  );
  if (!launcher) {
    io.out(enc.encode(text));
    io.err(enc.encode("** No activities found to run, monkey aborted.\n"));
    return 252;
  }
  const status = amStart(apps, ["-n", `${pkg}/${launcher.name}`], {
    ...io,
    out: () => {},
    err: () => {},
  });
  io.out(enc.encode(
    text + "Events injected: 1\n" +
      "## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n",
  ));
  return status;
}

/** `TimeUtils.formatDuration` as the Displayed line prints it: `+1s234ms`, `+812ms`, `0`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0";
  let rest = ms;
  const parts: string[] = [];
  for (
    const [unit, size] of [["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], ["s", 1000]] as const
  ) {
    if (rest >= size || parts.length) {
      const n = Math.floor(rest / size);
      if (n || parts.length) parts.push(`${n}${unit}`);
      rest -= n * size;
    }
  }
  parts.push(`${rest}ms`);
  return "+" + parts.join("");
}
