/**
 * Google's ADB server (Debian's `adb`, `adb -P <port> nodaemon server`) in front of the simulated
 * devices: started with a private HOME (its RSA key lives in `$HOME/.android`), ended with the
 * simulator. Devices reach it the way real ones do: an emulator announces its adb port with
 * `host:emulator:<port>` (the server names it `emulator-<port − 1>`), a network device is added
 * with `host:connect:127.0.0.1:<port>` (`adb connect`).
 */
import { join } from "node:path";
import { ConnReader, parseHexLength, protocolString } from "./wire.ts";

const dec = new TextDecoder();

/** Where Debian installs `adb`; else the first `adb` on PATH. */
export const DEBIAN_ADB = "/usr/bin/adb";
/** How long the server may take to answer `host:version` after its start. */
export const SERVER_START_TIMEOUT_MS = 15_000;
/** How long a device may take to reach the state asked for. */
export const DEVICE_WAIT_TIMEOUT_MS = 15_000;
/** One host request's bound (connect, read, close). */
export const REQUEST_TIMEOUT_MS = 10_000;
/** Reply bytes read at most from one host request. */
export const MAX_REPLY_BYTES = 1024 * 1024;

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** The `adb` to run: `$KEYNOBI_SIM_ADB`, Debian's, else one on PATH; null when none. */
export function findRealAdb(): string | null {
  const explicit = Deno.env.get("KEYNOBI_SIM_ADB");
  if (explicit) return isFile(explicit) ? explicit : null;
  if (isFile(DEBIAN_ADB)) return DEBIAN_ADB;
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir && isFile(join(dir, "adb"))) return join(dir, "adb");
  }
  return null;
}

export const NO_ADB_MESSAGE = "Cannot put the real ADB server in front: no `adb` found " +
  "(looked at $KEYNOBI_SIM_ADB, /usr/bin/adb and PATH); install it (`apt-get install adb`) " +
  "or run without --real-adb";

/** A free TCP port on 127.0.0.1 (listened on, then released). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

export interface HostReply {
  ok: boolean;
  /** The length-prefixed payload after OKAY (when `withPayload`), or FAIL's message. */
  text: string;
}

/** One host-protocol request to the server on `port`: OKAY [+ payload] or FAIL + message. */
export async function hostRequest(
  port: number,
  service: string,
  withPayload: boolean,
): Promise<HostReply> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const timer = setTimeout(() => {
    try {
      conn.close();
    } catch { /* closed */ }
  }, REQUEST_TIMEOUT_MS);
  try {
    let off = 0;
    const req = protocolString(service);
    while (off < req.length) off += await conn.write(req.subarray(off));
    const reader = new ConnReader(conn);
    const status = await reader.readExact(4);
    if (!status) throw new Error(`ADB server closed the connection after ${service}`);
    const ok = dec.decode(status) === "OKAY";
    if (ok && !withPayload) return { ok, text: "" };
    const head = await reader.readExact(4);
    const len = head ? parseHexLength(head) : null;
    if (len === null || len > MAX_REPLY_BYTES) {
      throw new Error(`ADB server sent a bad length after ${service}`);
    }
    const body = len ? await reader.readExact(len) : new Uint8Array();
    if (!body) throw new Error(`ADB server closed the connection inside the reply to ${service}`);
    return { ok, text: dec.decode(body) };
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

/** Sends a request the server answers with nothing (`host:emulator:`), then closes. */
async function hostNotice(port: number, service: string): Promise<void> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    let off = 0;
    const req = protocolString(service);
    while (off < req.length) off += await conn.write(req.subarray(off));
  } finally {
    conn.close();
  }
}

/** The server's `devices` list as serial → state. */
export function parseDevices(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab > 0) out.set(line.slice(0, tab), line.slice(tab + 1));
  }
  return out;
}

export class RealAdbServer implements AsyncDisposable {
  private child: Deno.ChildProcess | null = null;
  private exited: Promise<Deno.CommandStatus> | null = null;
  private logFile: Deno.FsFile | null = null;

  private constructor(
    readonly adb: string,
    readonly port: number,
    readonly home: string,
    readonly logPath: string,
  ) {}

  /** `tcp:127.0.0.1:<port>`, the value for `ADB_SERVER_SOCKET`. */
  get socket(): string {
    return `tcp:127.0.0.1:${this.port}`;
  }

  /** Starts `adb -P <free port> nodaemon server` with HOME under `root`. */
  static async start(root: string, adb = findRealAdb()): Promise<RealAdbServer> {
    if (!adb) throw new Error(NO_ADB_MESSAGE);
    const home = join(root, "adb-home");
    await Deno.mkdir(home, { recursive: true });
    const server = new RealAdbServer(adb, freePort(), home, join(root, "adb-server.log"));
    await server.spawn();
    return server;
  }

  /** The `adb` CLI's environment: only this server, this HOME. */
  env(): Record<string, string> {
    return { HOME: this.home, PATH: "/usr/bin:/bin" };
  }

  private async spawn(): Promise<void> {
    this.logFile = await Deno.open(this.logPath, { create: true, append: true });
    const child = new Deno.Command(this.adb, {
      args: ["-P", String(this.port), "nodaemon", "server"],
      env: this.env(),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.child = child;
    const log = this.logFile;
    const pipe = async (s: ReadableStream<Uint8Array>) => {
      try {
        for await (const chunk of s) await log.write(chunk);
      } catch { /* log closed */ }
    };
    const piped = Promise.all([pipe(child.stdout), pipe(child.stderr)]);
    this.exited = child.status.then(async (st) => {
      await piped;
      return st;
    });
    const deadline = Date.now() + SERVER_START_TIMEOUT_MS;
    for (;;) {
      try {
        const r = await hostRequest(this.port, "host:version", true);
        if (r.ok) return;
      } catch { /* not up yet */ }
      if (Date.now() > deadline) {
        await this.stop();
        const tail = await Deno.readTextFile(this.logPath).catch(() => "");
        throw new Error(
          `${this.adb} -P ${this.port} nodaemon server did not answer within ` +
            `${SERVER_START_TIMEOUT_MS} ms:\n${tail.slice(-2000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Runs the real `adb` CLI against this server. */
  async cli(args: string[], timeoutMs = REQUEST_TIMEOUT_MS) {
    const child = new Deno.Command(this.adb, {
      args: ["-P", String(this.port), ...args],
      env: this.env(),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* exited */ }
    }, timeoutMs);
    const out = await child.output();
    clearTimeout(timer);
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  }

  /** serial → state, as `adb devices` lists them. */
  async devices(): Promise<Map<string, string>> {
    const r = await hostRequest(this.port, "host:devices", true);
    if (!r.ok) throw new Error(`host:devices failed: ${r.text}`);
    return parseDevices(r.text);
  }

  /** An emulator's adbd on `adbPort` announces itself (serial `emulator-<adbPort − 1>`). */
  announceEmulator(adbPort: number): Promise<void> {
    return hostNotice(this.port, `host:emulator:${adbPort}`);
  }

  /** `adb connect 127.0.0.1:<port>`: the server's answer text. */
  async connectNetwork(port: number): Promise<string> {
    const r = await hostRequest(this.port, `host:connect:127.0.0.1:${port}`, true);
    if (!r.ok) throw new Error(`adb connect 127.0.0.1:${port} failed: ${r.text}`);
    return r.text;
  }

  /** Waits until `serial` is listed in `state` (null = not listed at all). */
  async waitFor(serial: string, state: string | null, timeoutMs = DEVICE_WAIT_TIMEOUT_MS) {
    const deadline = Date.now() + timeoutMs;
    let seen: string | undefined;
    for (;;) {
      seen = (await this.devices().catch(() => new Map<string, string>())).get(serial);
      if ((seen ?? null) === state) return;
      if (Date.now() > deadline) {
        throw new Error(
          `${serial} did not become ${state ?? "absent"} on the real ADB server within ` +
            `${timeoutMs} ms (it is ${seen ?? "absent"})`,
        );
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** `adb kill-server`, then waits for the process to end. */
  async kill(): Promise<void> {
    if (!this.child) return;
    await this.cli(["kill-server"]).catch(() => {});
    await this.waitExit();
  }

  /** The same server again on the same port (after `kill`). */
  async restart(): Promise<void> {
    if (this.child) await this.kill();
    await this.spawn();
  }

  private async waitExit() {
    const exited = this.exited;
    if (!exited) return;
    const timer = setTimeout(() => {
      try {
        this.child?.kill("SIGKILL");
      } catch { /* exited */ }
    }, 5_000);
    await exited;
    clearTimeout(timer);
    this.child = null;
    this.exited = null;
    try {
      this.logFile?.close();
    } catch { /* closed */ }
    this.logFile = null;
  }

  /** Ends the server process (SIGTERM, then SIGKILL after 5 s). */
  async stop(): Promise<void> {
    if (!this.child) return;
    try {
      this.child.kill("SIGTERM");
    } catch { /* exited */ }
    await this.waitExit();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}
