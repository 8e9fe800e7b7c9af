/**
 * Android Virtual Devices: the AVD folder (`ANDROID_AVD_HOME`, else `$ANDROID_USER_HOME/avd`,
 * else `~/.android/avd`: one `<name>.ini` per AVD pointing at `<name>.avd/` with `config.ini`),
 * the SDK's `emulator -list-avds`, which AVD a running emulator is (`ro.boot.qemu.avd_name`, or
 * `ro.kernel.qemu.avd_name` before Android 12), starting one, and waiting for it to boot.
 *
 * Parsing is pure; the spawning and the file reads are the small adapters at the end.
 */
import { join } from "../core/path.ts";
import { homeDir } from "../core/data_dir.ts";
import type { Env } from "../core/env.ts";
import { invalidParams } from "../core/errors.ts";
import { runCommand } from "../core/run_command.ts";
import { parseProperties } from "../core/properties.ts";

/** Most AVDs listed. */
const MAX_AVDS = 200;
/** Longest AVD name accepted. */
const MAX_AVD_NAME_CHARS = 128;
/** Largest `.ini` / `config.ini` read. */
const MAX_AVD_INI_BYTES = 256 * 1024;
/** `emulator -list-avds` time and output bounds. */
const LIST_AVDS_TIMEOUT_MS = 15_000;
const MAX_LIST_AVDS_OUTPUT_BYTES = 256 * 1024;

interface AvdInfo {
  name: string;
  /** The `.avd` folder, when the AVD folder lists it. */
  path: string | null;
  /** From `config.ini`. */
  display_name: string | null;
  device: string | null;
  api_level: number | null;
  abi: string | null;
  /** Where it was seen: the AVD folder, `emulator -list-avds`, or both. */
  sources: ("avd_home" | "emulator")[];
}

/** An AVD name as the emulator accepts it: letters, digits, `.`, `_`, `-`. */
export function validateAvdName(value: unknown, param = "name"): string {
  if (typeof value !== "string" || value === "") {
    throw invalidParams(`${param} is required: pass an AVD name from list_avds`);
  }
  if (value.length > MAX_AVD_NAME_CHARS || !/^[A-Za-z0-9._-]+$/.test(value) || value[0] === "-") {
    throw invalidParams(
      `Invalid ${param} ${JSON.stringify(value.slice(0, 200))}: an AVD name has only letters, ` +
        "digits, . _ and -; call list_avds and copy a name from it",
    );
  }
  return value;
}

/** The AVD folder for `env`. */
export function avdHome(env: Env): string | null {
  const explicit = env.get("ANDROID_AVD_HOME");
  if (explicit) return explicit;
  const user = env.get("ANDROID_USER_HOME");
  if (user) return join(user, "avd");
  const home = homeDir(env);
  return home ? join(home, ".android", "avd") : null;
}

/** Names from `emulator -list-avds` output (log lines such as `INFO | …` are skipped). Pure. */
function parseListAvds(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (/^[A-Za-z0-9._-]+$/.test(line) && !out.includes(line)) out.push(line);
    if (out.length >= MAX_AVDS) break;
  }
  return out;
}

/** The API level in `image.sysdir.1` (`system-images/android-34/google_apis/x86_64/`). Pure. */
function apiFromSysdir(sysdir: string | undefined): number | null {
  const m = /android-(\d+)/.exec(sysdir ?? "");
  return m ? Number(m[1]) : null;
}

/** What `config.ini` says about an AVD. Pure. */
function parseAvdConfig(
  text: string,
): Pick<AvdInfo, "display_name" | "device" | "api_level" | "abi"> {
  const p = parseProperties(text);
  return {
    display_name: p.get("avd.ini.displayname") ?? null,
    device: p.get("hw.device.name") ?? null,
    api_level: apiFromSysdir(p.get("image.sysdir.1")),
    abi: p.get("abi.type") ?? null,
  };
}

async function readSmall(path: string): Promise<string | null> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > MAX_AVD_INI_BYTES) return null;
    return await Deno.readTextFile(path);
  } catch {
    return null;
  }
}

/** AVDs in the AVD folder (`<name>.ini` files). */
export async function readAvdHome(dir: string): Promise<AvdInfo[]> {
  const out: AvdInfo[] = [];
  let entries: Deno.DirEntry[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (entries.length >= MAX_AVDS * 4) break;
      entries.push(e);
    }
  } catch {
    return out;
  }
  entries = entries.filter((e) => e.isFile && e.name.endsWith(".ini"))
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries.slice(0, MAX_AVDS)) {
    const name = e.name.slice(0, -4);
    if (!/^[A-Za-z0-9._-]+$/.test(name)) continue;
    const ini = parseProperties(await readSmall(join(dir, e.name)) ?? "");
    const path = ini.get("path") ?? join(dir, `${name}.avd`);
    const config = await readSmall(join(path, "config.ini"));
    out.push({
      name,
      path,
      ...(config ? parseAvdConfig(config) : {
        display_name: null,
        device: null,
        api_level: null,
        abi: null,
      }),
      sources: ["avd_home"],
    });
  }
  return out;
}

/** The SDK's emulator executable (it may not exist). */
export const emulatorPath = (sdk: string) => join(sdk, "emulator", "emulator");

/** `emulator -list-avds`; `null` with the reason when it cannot be run. */
export async function runListAvds(
  emulator: string,
  env: Record<string, string> = {},
): Promise<{ names: string[] } | { error: string }> {
  const r = await runCommand(emulator, ["-list-avds"], {
    timeoutMs: LIST_AVDS_TIMEOUT_MS,
    maxOutputBytes: MAX_LIST_AVDS_OUTPUT_BYTES,
    env,
  });
  if (r.notFound) return { error: `${emulator} does not exist (install the SDK's Emulator)` };
  if (r.code !== 0) {
    return { error: r.error ?? `${emulator} -list-avds exited with ${r.code}: ${r.stderr.trim()}` };
  }
  return { names: parseListAvds(r.stdout) };
}

/** The AVD folder's AVDs merged with the emulator's list. Pure. */
export function mergeAvds(home: AvdInfo[], listed: string[]): AvdInfo[] {
  const out = home.map((a) => ({ ...a, sources: [...a.sources] }));
  for (const name of listed) {
    const found = out.find((a) => a.name === name);
    if (found) found.sources.push("emulator");
    else {
      out.push({
        name,
        path: null,
        display_name: null,
        device: null,
        api_level: null,
        abi: null,
        sources: ["emulator"],
      });
    }
  }
  return out.slice(0, MAX_AVDS).sort((a, b) => a.name.localeCompare(b.name));
}
