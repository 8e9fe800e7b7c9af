/** `ps` (with `-o` columns, `-p` pids and names) and `pidof` over the device's process list. */
import type { ShIo } from "../sh_exec.ts";
import { userName } from "./packages.ts";
import type { AppsService, Proc } from "./service.ts";

const enc = new TextEncoder();

export function psCommand(apps: AppsService, args: string[], io: ShIo): number {
  let cols = ["USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR", "S", "NAME"];
  let pids: number[] | null = null;
  const names: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    if (a === "-o") {
      cols = (args[++k] ?? "").split(",").map((c) => c.toUpperCase()).filter(Boolean);
    } else if (a === "-p") pids = (args[++k] ?? "").split(",").map(Number);
    else if (a.startsWith("-")) continue;
    else names.push(a);
  }
  const known = [
    "USER",
    "PID",
    "PPID",
    "UID",
    "VSZ",
    "RSS",
    "WCHAN",
    "ADDR",
    "S",
    "NAME",
    "ARGS",
    "CMD",
    "STIME",
    "ELAPSED",
  ];
  const bad = cols.find((c) => !known.includes(c));
  if (bad) {
    io.err(enc.encode(`ps: bad -o ${bad}\n`));
    return 1;
  }
  const now = Date.now();
  const cell = (c: string, p: Proc | null): string => {
    if (!p) return c === "CMD" ? "CMD" : c;
    switch (c) {
      case "USER":
        return userName(p.uid);
      case "UID":
        return String(p.uid);
      case "PID":
        return String(p.pid);
      case "PPID":
        return String(p.ppid);
      case "VSZ":
        return String(p.pkg ? 14_862_304 : 10_904_448);
      case "RSS":
        return String(p.rssKb);
      case "WCHAN":
        return "do_epoll_wait";
      case "ADDR":
        return "0";
      case "S":
        return "S";
      case "STIME": {
        const d = new Date(p.startTime);
        return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
      }
      case "ELAPSED": {
        const s = Math.max(0, Math.floor((now - p.startTime) / 1000));
        return `${pad(Math.floor(s / 60))}:${pad(s % 60)}`;
      }
      default:
        return p.name;
    }
  };
  const width: Record<string, number> = {
    USER: -12,
    PID: 5,
    PPID: 5,
    UID: 5,
    VSZ: 10,
    RSS: 6,
    WCHAN: -16,
    ADDR: 4,
    S: 1,
    STIME: 8,
    ELAPSED: 11,
  };
  const line = (p: Proc | null) =>
    cols.map((c, i) => {
      const v = cell(c, p);
      const w = width[c];
      if (w === undefined) return i === cols.length - 1 ? v : v.padEnd(20);
      return w < 0 ? v.padEnd(-w) : v.padStart(w);
    }).join(" ").trimEnd() + "\n";
  let out = line(null);
  for (const p of [...apps.procs.values()].sort((a, b) => a.pid - b.pid)) {
    if (pids && !pids.includes(p.pid)) continue;
    if (names.length && !names.includes(p.name) && !names.includes(String(p.pid))) continue;
    out += line(p);
  }
  io.out(enc.encode(out));
  return 0;
}

export function pidofCommand(apps: AppsService, args: string[], io: ShIo): number {
  const names = args.filter((a) => !a.startsWith("-"));
  const pids = [...apps.procs.values()].filter((p) => names.includes(p.name))
    .map((p) => p.pid).sort((a, b) => b - a);
  if (!pids.length) return 1;
  io.out(enc.encode(pids.join(" ") + "\n"));
  return 0;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}
