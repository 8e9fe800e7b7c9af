/**
 * `deno task sim`: runs the simulator until SIGINT/SIGTERM and prints, as ONE JSON line on
 * stdout, how to reach it. Logs go to stderr.
 *
 *   deno task sim [--port N] [--dir PATH]
 */
import { startSimulator } from "../tests/sim/mod.ts";

function parseArgs(args: string[]): { port: number; dir?: string } {
  let port = 0;
  let dir: string | undefined;
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
    else throw new TypeError(`Unknown option ${a}: use --port N or --dir PATH`);
  }
  return { port, dir };
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
  const sim = await startSimulator(opts);
  const info = {
    adb_server_socket: sim.adbServerSocket,
    devices: sim.devices,
    sdk_root: sim.sdkRoot,
    avd_home: sim.avdHome,
    projects: sim.projects,
    journal: sim.journalPath,
  };
  console.log(JSON.stringify(info));
  console.error(`sim: ADB server on ${sim.adbServerSocket}, root ${sim.root}; Ctrl-C stops it`);

  const sig = await stopped;
  for (const [s, h] of handlers) Deno.removeSignalListener(s, h);
  console.error(`sim: ${sig}: closing`);
  await sim.close();
  if (opts.dir === undefined) console.error("sim: temp dir removed");
}

if (import.meta.main) await main();
