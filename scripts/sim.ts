/**
 * `deno task sim`: runs the simulator until SIGINT/SIGTERM and prints, as ONE JSON line on
 * stdout, how to reach it. Logs go to stderr.
 *
 *   deno task sim [--port N] [--dir PATH] [--real-adb] [--grpc]
 *
 * --real-adb puts Google's ADB server (Debian's `adb`, `adb -P <free port> nodaemon server`, a
 * private HOME) in front of the devices, ended with the simulator: `adb_server_socket` is then
 * its socket and `sim_adb_server_socket` the simulator's own. --grpc serves the emulators' gRPC
 * endpoint; `xdg_runtime_dir` is the discovery root to give keynobi. Both combine.
 */
import { startSimulator } from "../tests/sim/mod.ts";

interface SimArgs {
  port: number;
  dir?: string;
  realAdb: boolean;
  grpc: boolean;
}

export function parseArgs(args: string[]): SimArgs {
  let port = 0;
  let dir: string | undefined;
  let realAdb = false;
  let grpc = false;
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    const value = (name: string) => {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : args[++k];
      if (v === undefined) throw new TypeError(`Missing value for ${name}: pass ${name} <value>`);
      return v;
    };
    if (a === "--port" || a.startsWith("--port=")) {
      port = Number(value("--port"));
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new RangeError(`Invalid --port: use an integer in 0..65535`);
      }
    } else if (a === "--dir" || a.startsWith("--dir=")) dir = value("--dir");
    else if (a === "--real-adb") realAdb = true;
    else if (a === "--grpc") grpc = true;
    else {
      throw new TypeError(`Unknown option ${a}: use --port N, --dir PATH, --real-adb or --grpc`);
    }
  }
  return { port, dir, realAdb, grpc };
}

async function main() {
  let opts;
  try {
    opts = parseArgs(Deno.args);
  } catch (e) {
    console.error(`sim: ${(e as Error).message}`);
    Deno.exit(2);
  }
  // Listen for signals before announcing readiness: a parent may stop us right after the line.
  const { promise: stopped, resolve } = Promise.withResolvers<string>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const handlers = signals.map((sig) => {
    const h = () => resolve(sig);
    Deno.addSignalListener(sig, h);
    return [sig, h] as const;
  });
  let sim;
  try {
    sim = await startSimulator(opts);
  } catch (e) {
    console.error(`sim: ${(e as Error).message}`);
    Deno.exit(1);
  }
  const info = {
    adb_server_socket: sim.adbServerSocket,
    sim_adb_server_socket: sim.simAdbServerSocket,
    ...(sim.realAdb ? { real_adb: sim.realAdb.adb } : {}),
    ...(opts.grpc ? { xdg_runtime_dir: sim.discoveryRoot } : {}),
    devices: sim.devices,
    sdk_root: sim.sdkRoot,
    avd_home: sim.avdHome,
    projects: sim.projects,
    journal: sim.journalPath,
  };
  console.log(JSON.stringify(info));
  const front = sim.realAdb
    ? ` (Google's, ${sim.realAdb.adb}; ours on ${sim.simAdbServerSocket})`
    : "";
  console.error(
    `sim: ADB server on ${sim.adbServerSocket}${front}, root ${sim.root}; Ctrl-C stops it`,
  );
  if (opts.grpc) {
    console.error(`sim: emulator gRPC advertised under XDG_RUNTIME_DIR=${sim.discoveryRoot}`);
  }

  const sig = await stopped;
  for (const [s, h] of handlers) Deno.removeSignalListener(s, h);
  console.error(`sim: ${sig}: closing`);
  await sim.close();
  if (opts.dir === undefined) console.error("sim: temp dir removed");
}

if (import.meta.main) await main();
