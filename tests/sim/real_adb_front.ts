/**
 * The simulated fleet behind Google's ADB server: each device gets an adbd (tests/sim/adbd.ts) on
 * its own port and registers the way a real one does — the emulator's adbd on a free port P with
 * its console on P − 1, announced with `host:emulator:P` (named `emulator-<P − 1>`); the network
 * device and the USB phone (a USB device cannot be faked through a real server, so it shows as
 * a network device in this mode) with `adb connect 127.0.0.1:<port>`. Device serials are renamed
 * to what the real server calls them, so the simulator's own server lists the same names.
 *
 * Presence and state follow the device: `disconnect` closes its transports and stops listening
 * (the server drops it), and when it comes back the emulator announces itself again while the
 * server reconnects the network device; `offline` answers no CNXN; `unauthorized` refuses the
 * server's key.
 */
import { Adbd, type RunService } from "./adbd.ts";
import type { DeviceSpec, VirtualDevice } from "./device.ts";
import { RealAdbServer } from "./real_adb_server.ts";

/** Tries at finding a free adb port whose console port (one below) is free too. */
export const MAX_PORT_TRIES = 50;

const enc = new TextEncoder();

/** A listener on a free port P whose P − 1 is free too (held by the returned console). */
function emulatorPorts(): { adb: Deno.TcpListener; console: Deno.TcpListener } {
  for (let k = 0; k < MAX_PORT_TRIES; k++) {
    const adb = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const p = (adb.addr as Deno.NetAddr).port;
    try {
      const console = Deno.listen({ hostname: "127.0.0.1", port: p - 1 });
      return { adb, console };
    } catch {
      adb.close();
    }
  }
  throw new Error(`Cannot find two adjacent free ports after ${MAX_PORT_TRIES} tries`);
}

/**
 * The emulator console's greeting and its answer to anything: enough for a client that checks
 * the port is an emulator console (the simulator serves its controls through `simctl`).
 */
async function serveConsole(listener: Deno.TcpListener) {
  for (;;) {
    let conn: Deno.Conn;
    try {
      conn = await listener.accept();
    } catch {
      return;
    }
    (async () => {
      try {
        await conn.write(
          enc.encode("Android Console: type 'help' for a list of commands\r\nOK\r\n"),
        );
        const buf = new Uint8Array(4096);
        while ((await conn.read(buf)) !== null) {
          await conn.write(enc.encode("KO: unknown command, try 'help'\r\n"));
        }
      } catch {
        /* closed */
      } finally {
        try {
          conn.close();
        } catch { /* closed */ }
      }
    })();
  }
}

interface Reserved {
  adb: Deno.TcpListener;
  console: Deno.TcpListener | null;
}

/** What startSimulator keeps of the real-server mode. */
export class RealAdbFront {
  readonly fronts = new Map<VirtualDevice, Adbd>();
  /** Catalog serial (emulator-5554, R5CT1234ABC, 192.168.1.23:5555) → serial in this mode. */
  readonly renamed = new Map<string, string>();
  private readonly reserved = new Map<string, Reserved>();
  private readonly lastSeen = new Map<VirtualDevice, string>();
  private readonly consoles: Deno.TcpListener[] = [];
  server: RealAdbServer | null = null;
  private closed = false;

  /** Renames specs to their real-server serials and holds their ports. */
  prepare(specs: DeviceSpec[]): DeviceSpec[] {
    return specs.map((spec) => {
      let reserved: Reserved;
      let serial: string;
      if (spec.kind === "emulator") {
        const ports = emulatorPorts();
        reserved = ports;
        serial = `emulator-${(ports.adb.addr as Deno.NetAddr).port - 1}`;
      } else {
        const adb = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        reserved = { adb, console: null };
        serial = `127.0.0.1:${(adb.addr as Deno.NetAddr).port}`;
      }
      this.renamed.set(spec.serial, serial);
      this.reserved.set(serial, reserved);
      // Through a real server every device here is a TCP transport: no USB devpath.
      const kind = spec.kind === "usb" ? "wireless" : spec.kind;
      return { ...spec, serial, kind, devpath: "" };
    });
  }

  /** Starts each device's adbd and the real server, and registers the devices with it. */
  async start(root: string, devices: VirtualDevice[], run: RunService): Promise<void> {
    for (const d of devices) {
      const held = this.reserved.get(d.serial);
      if (!held) continue;
      const adbd = new Adbd(d, run);
      adbd.adopt(held.adb);
      if (held.console) {
        this.consoles.push(held.console);
        void serveConsole(held.console);
      }
      this.fronts.set(d, adbd);
      this.lastSeen.set(d, this.key(d));
    }
    this.server = await RealAdbServer.start(root);
    await this.registerAll();
  }

  private key(d: VirtualDevice): string {
    return `${d.present}|${d.state}|${d.features.join(",")}`;
  }

  /** Announces every present device to the server and waits until each is listed as it is. */
  async registerAll(): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const [d, adbd] of this.fronts) {
      if (!d.present) continue;
      await this.register(d, adbd);
      waits.push(this.server!.waitFor(d.serial, d.state));
    }
    await Promise.all(waits);
  }

  private async register(d: VirtualDevice, adbd: Adbd) {
    const server = this.server;
    if (!server?.running) return;
    if (d.kind === "emulator") await server.announceEmulator(adbd.port);
    else await server.connectNetwork(adbd.port);
  }

  /** Called on every device change: the adbd follows presence, state and features. */
  changed(d: VirtualDevice): void {
    const adbd = this.fronts.get(d);
    if (!adbd || this.closed) return;
    const key = this.key(d);
    if (this.lastSeen.get(d) === key) return;
    this.lastSeen.set(d, key);
    adbd.dropTransports();
    if (!d.present) {
      adbd.stopListening();
      return;
    }
    adbd.auth = d.state === "unauthorized" ? "refuse" : "accept";
    adbd.offline = d.state === "offline";
    adbd.listen();
    this.register(d, adbd).catch((e) =>
      console.error(`sim: cannot register ${d.serial} again: ${(e as Error).message}`)
    );
  }

  /** `adb kill-server` then a new server on the same port, the devices announced again. */
  async restartServer(): Promise<void> {
    await this.server?.restart();
    await this.registerAll();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.server?.stop();
    for (const c of this.consoles) {
      try {
        c.close();
      } catch { /* closed */ }
    }
    await Promise.all([...this.fronts.values()].map((a) => a.close()));
  }
}
