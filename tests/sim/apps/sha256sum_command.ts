/** `sha256sum` of device files or stdin, as toybox prints it. */
import type { ShellRun, ShIo } from "../sh_exec.ts";
import type { AppsService } from "./service.ts";

const enc = new TextEncoder();

export async function sha256sumCommand(
  apps: AppsService,
  args: string[],
  io: ShIo,
  shell: ShellRun,
): Promise<number> {
  const files = args.filter((a) => a !== "-b");
  let status = 0;
  for (const f of files.length ? files : ["-"]) {
    const data = f === "-"
      ? await io.stdin()
      : apps.device.files.get(apps.device.resolve(f)) ?? null;
    if (!data) {
      const why = apps.device.dirs.has(apps.device.resolve(f))
        ? "Is a directory"
        : "No such file or directory";
      io.err(enc.encode(`sha256sum: ${f}: ${why}\n`));
      status = 1;
      continue;
    }
    const hex = [...new Uint8Array(await crypto.subtle.digest("SHA-256", data.slice()))]
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    io.out(enc.encode(`${hex}  ${f}\n`));
  }
  void shell;
  return status;
}
