/**
 * The fake Android Emulator program (run by `<sdk>/emulator/emulator`):
 *
 * - `emulator -list-avds` prints the AVD names of `$ANDROID_AVD_HOME` (default: the sim's);
 * - `emulator -avd <name> [-port N] [-no-window -no-audio -no-snapshot ...]` boots it: picks a
 *   free even console port (5554 up), listens there (console: `auth`, `avd name`, `kill`,
 *   `ping`, `quit`), announces itself to the simulated ADB server with `host:emulator:<port>`,
 *   stays up while the device `emulator-<port>` is listed, and exits once it is gone (`reboot -p`
 *   on the device, console `kill`, or SIGTERM/SIGINT, which power the device off first).
 * - `-sim-boot-ms N` (simulator only): time from `device` to `sys.boot_completed=1`.
 */
import { join } from "node:path";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Console ports the emulator tries (the real one: 5554..5682, even). */
export const FIRST_PORT = 5554;
export const LAST_PORT = 5682;
/** How long the emulator waits for the ADB server to list it (ms). */
export const REGISTER_TIMEOUT_MS = 30_000;
/** Poll interval of the device list (ms). */
export const POLL_MS = 100;
const VERSION = "35.1.20.0 (build_id 12291491) (CL:N/A)";
const BOOT_MS_DEFAULT = 400;

/** Options that take a value (so their value is not read as a flag). */
const VALUE_OPTIONS = new Set([
  "-port",
  "-gpu",
  "-memory",
  "-cores",
  "-netdelay",
  "-netspeed",
  "-grpc",
  "-camera-back",
  "-camera-front",
  "-feature",
  "-skin",
  "-sysdir",
  "-datadir",
  "-sdcard",
  "-snapshot",
  "-dns-server",
  "-http-proxy",
  "-timezone",
  "-sim-boot-ms",
  "-qemu",
]);

function log(level: "INFO" | "WARNING" | "ERROR", msg: string) {
  const text = `${level.padEnd(8)}| ${msg}\n`;
  if (level === "ERROR") Deno.stderr.writeSync(enc.encode(text));
  else Deno.stdout.writeSync(enc.encode(text));
}

interface Args {
  simRoot: string;
  simAvdHome: string;
  adbPort: number;
  user: string[];
}

function parseOwn(argv: string[]): Args {
  const a: Args = { simRoot: "", simAvdHome: "", adbPort: 5037, user: [] };
  for (let k = 0; k < argv.length; k++) {
    if (argv[k] === "--") {
      a.user = argv.slice(k + 1);
      break;
    }
    if (argv[k] === "--sim-root") a.simRoot = argv[++k];
    else if (argv[k] === "--sim-avd-home") a.simAvdHome = argv[++k];
    else if (argv[k] === "--sim-adb-port") a.adbPort = Number(argv[++k]);
  }
  return a;
}

function avdHome(args: Args): string {
  return Deno.env.get("ANDROID_AVD_HOME") || args.simAvdHome;
}

function adbPort(args: Args): number {
  const env = Deno.env.get("ANDROID_ADB_SERVER_PORT");
  if (env && /^\d+$/.test(env)) return Number(env);
  const sock = /^tcp:(?:[^:]*:)?(\d+)$/.exec(Deno.env.get("ADB_SERVER_SOCKET") ?? "");
  if (sock) return Number(sock[1]);
  return args.adbPort;
}

function listAvds(home: string): string[] {
  try {
    return [...Deno.readDirSync(home)]
      .filter((e) => e.isFile && e.name.endsWith(".ini"))
      .map((e) => e.name.slice(0, -4))
      .sort();
  } catch {
    return [];
  }
}

async function readExact(conn: Deno.Conn, n: number): Promise<Uint8Array | null> {
  const out = new Uint8Array(n);
  let got = 0;
  while (got < n) {
    const r = await conn.read(out.subarray(got));
    if (r === null) return null;
    got += r;
  }
  return out;
}

function request(service: string): Uint8Array {
  const body = enc.encode(service);
  return new Uint8Array([...enc.encode(body.length.toString(16).padStart(4, "0")), ...body]);
}

/** One host request; returns the OKAY payload (length-prefixed) or null on FAIL/EOF. */
async function hostQuery(port: number, service: string): Promise<string | null> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(request(service));
    const status = await readExact(conn, 4);
    if (!status || dec.decode(status) !== "OKAY") return null;
    const len = await readExact(conn, 4);
    if (!len) return null;
    const body = await readExact(conn, parseInt(dec.decode(len), 16));
    return body ? dec.decode(body) : null;
  } finally {
    conn.close();
  }
}

async function listedState(port: number, serial: string): Promise<string | null> {
  const list = await hostQuery(port, "host:devices").catch(() => null);
  if (list === null) return null;
  for (const line of list.split("\n")) {
    const [s, state] = line.split("\t");
    if (s === serial) return state;
  }
  return null;
}

/** Powers the device off through the ADB server (`shell:reboot -p`). */
async function powerOff(port: number, serial: string): Promise<void> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      await conn.write(request(`host:transport:${serial}`));
      const st = await readExact(conn, 4);
      if (!st || dec.decode(st) !== "OKAY") return;
      await conn.write(request("shell:reboot -p"));
      const buf = new Uint8Array(1024);
      while ((await conn.read(buf)) !== null) { /* until the device side closes */ }
    } finally {
      conn.close();
    }
  } catch { /* server gone */ }
}

function portFree(port: number): Deno.TcpListener | null {
  try {
    return Deno.listen({ hostname: "127.0.0.1", port, transport: "tcp" });
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}

function consoleToken(): string {
  const home = Deno.env.get("HOME");
  if (!home) return "";
  const path = join(home, ".emulator_console_auth_token");
  try {
    return Deno.readTextFileSync(path).trim();
  } catch {
    const token = [...crypto.getRandomValues(new Uint8Array(12))]
      .map((b) => b.toString(36).padStart(2, "0")).join("").slice(0, 16);
    try {
      Deno.writeTextFileSync(path, token, { mode: 0o600 });
    } catch { /* unwritable home: no auth */ }
    return token;
  }
}

async function serveConsole(
  conn: Deno.Conn,
  avd: string,
  token: string,
  onKill: () => void,
) {
  const say = (s: string) => conn.write(enc.encode(s.replace(/\n/g, "\r\n"))).catch(() => 0);
  let authed = token === "";
  const home = Deno.env.get("HOME") ?? "";
  if (authed) await say("Android Console: type 'help' for a list of commands\nOK\n");
  else {
    await say(
      "Android Console: Authentication required\n" +
        "Android Console: type 'auth <auth_token>' to authenticate\n" +
        "Android Console: you can find your <auth_token> in \n" +
        `'${join(home, ".emulator_console_auth_token")}'\nOK\n`,
    );
  }
  let pending = "";
  const buf = new Uint8Array(4096);
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    pending += dec.decode(buf.subarray(0, n));
    if (pending.length > 65536) break;
    let nl;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl).replace(/\r$/, "").trim();
      pending = pending.slice(nl + 1);
      const [cmd, ...rest] = line.split(/\s+/);
      if (cmd === "auth") {
        if (rest.join(" ") === token) {
          authed = true;
          await say("Android Console: type 'help' for a list of commands\nOK\n");
        } else {
          await say("KO: authentication token does not match ~/.emulator_console_auth_token\n");
        }
      } else if (cmd === "quit" || cmd === "exit") {
        conn.close();
        return;
      } else if (!authed) {
        await say("KO: unknown command, try 'help'\n");
      } else if (cmd === "ping") {
        await say("I am alive!\nOK\n");
      } else if (cmd === "avd" && rest[0] === "name") {
        await say(`${avd}\nOK\n`);
      } else if (cmd === "kill") {
        await say("OK: killing emulator, bye bye\n");
        try {
          conn.close();
        } catch { /* closed */ }
        onKill();
        return;
      } else {
        await say("KO: unknown command, try 'help'\n");
      }
    }
  }
  try {
    conn.close();
  } catch { /* closed */ }
}

async function main(): Promise<number> {
  const args = parseOwn(Deno.args);
  const user = args.user;
  const home = avdHome(args);
  if (user.includes("-version") || user.includes("--version")) {
    console.log(`Android emulator version ${VERSION}`);
    return 0;
  }
  if (user.includes("-list-avds")) {
    for (const n of listAvds(home)) console.log(n);
    return 0;
  }
  let avd = "";
  let port: number | null = null;
  let bootMs = BOOT_MS_DEFAULT;
  for (let k = 0; k < user.length; k++) {
    const a = user[k];
    if (a === "-avd") avd = user[++k] ?? "";
    else if (a.startsWith("@")) avd = a.slice(1);
    else if (a === "-port") {
      port = Number(user[++k]);
      if (!Number.isInteger(port) || port < FIRST_PORT || port > LAST_PORT || port % 2) {
        log(
          "ERROR",
          `Invalid port number: ${user[k]}. Use an even number in ${FIRST_PORT}-${LAST_PORT}`,
        );
        return 1;
      }
    } else if (a === "-sim-boot-ms") bootMs = Number(user[++k]);
    else if (VALUE_OPTIONS.has(a)) k++;
  }
  if (!avd) {
    log(
      "ERROR",
      "No AVD specified. Use '@foo' or '-avd foo' to launch a virtual device named 'foo'",
    );
    return 1;
  }
  log("INFO", `Android emulator version ${VERSION}`);
  if (!listAvds(home).includes(avd)) {
    log("ERROR", `Unknown AVD name [${avd}], use -list-avds to see valid list.`);
    log("ERROR", `HOME is defined but there is no file ${avd}.ini in $HOME/.android/avd`);
    log(
      "ERROR",
      "(Note: Directories are searched in the order $ANDROID_AVD_HOME, $ANDROID_SDK_HOME/avd and $HOME/.android/avd)",
    );
    return 1;
  }
  const lock = join(home, `${avd}.avd`, "multiinstance.lock");
  try {
    const holder = Number(Deno.readTextFileSync(lock).trim());
    if (holder && alive(holder)) {
      log("ERROR", "Running multiple emulators with the same AVD is an experimental feature.");
      log("ERROR", "Please use -read-only flag to enable this feature.");
      return 1;
    }
  } catch { /* no lock */ }
  const adb = adbPort(args);
  let listener: Deno.TcpListener | null = null;
  if (port !== null) {
    listener = (await listedState(adb, `emulator-${port}`)) === null ? portFree(port) : null;
    if (!listener) {
      log("ERROR", `Console port ${port} is in use: pick another with -port`);
      return 1;
    }
  } else {
    for (let p = FIRST_PORT; p <= LAST_PORT && !listener; p += 2) {
      if ((await listedState(adb, `emulator-${p}`)) !== null) continue;
      listener = portFree(p);
      if (listener) port = p;
    }
    if (!listener || port === null) {
      log("ERROR", "No free console port in 5554-5682");
      return 1;
    }
  }
  const serial = `emulator-${port}`;
  const running = join(args.simRoot, "emulator-running", `${port}.json`);
  Deno.writeTextFileSync(lock, String(Deno.pid));
  Deno.writeTextFileSync(running, JSON.stringify({ avd, pid: Deno.pid, bootMs }));
  const cleanup = () => {
    for (const f of [lock, running]) {
      try {
        Deno.removeSync(f);
      } catch { /* gone */ }
    }
  };
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void powerOff(adb, serial);
  };
  for (const sig of ["SIGTERM", "SIGINT"] as const) Deno.addSignalListener(sig, stop);
  const token = consoleToken();
  const consoleLoop = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener!.accept();
      } catch {
        return;
      }
      void serveConsole(conn, avd, token, stop);
    }
  })();
  try {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: adb });
      await conn.write(request(`host:emulator:${port}`));
      conn.close();
    } catch (e) {
      log("ERROR", `Cannot reach the ADB server on port ${adb}: ${(e as Error).message}`);
      return 1;
    }
    const t0 = Date.now();
    let seen = false;
    let booted = false;
    for (;;) {
      const state = await listedState(adb, serial);
      if (state !== null) seen = true;
      if (seen && state === null) break;
      if (!seen && Date.now() - t0 > REGISTER_TIMEOUT_MS) {
        log("ERROR", `The ADB server did not list ${serial}`);
        return 1;
      }
      if (state === "device" && !booted && Date.now() - t0 > bootMs) {
        booted = true;
        log("INFO", `Boot completed in ${Date.now() - t0} ms`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    log("INFO", "Shutting down the emulator");
    return 0;
  } finally {
    listener.close();
    await consoleLoop;
    cleanup();
  }
}

if (import.meta.main) Deno.exit(await main());
