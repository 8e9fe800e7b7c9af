/**
 * `deno task dev`: keynobi --mcp from source for contributors. Runs under `deno run --watch`, so a
 * client registered with `deno task dev` gets the changed code on its next connection. Without
 * ADB_SERVER_SOCKET it talks to a built-in simulator (logs on stderr) and, unless --project is
 * given, serves the simulator's sample project.
 */
import { main } from "../lib/cli/main.ts";
import { startSimulator } from "../tests/sim/mod.ts";

const args = [...Deno.args];
let sim: Awaited<ReturnType<typeof startSimulator>> | null = null;
if (!Deno.env.get("ADB_SERVER_SOCKET")) {
  sim = await startSimulator();
  Deno.env.set("ADB_SERVER_SOCKET", sim.adbServerSocket);
  Deno.env.set("ANDROID_HOME", sim.sdkRoot);
  if (!args.some((a) => a === "--project" || a.startsWith("--project="))) {
    args.push("--project", sim.projects["sample-kts"]);
  }
  console.error(
    `keynobi dev: simulator at ${sim.adbServerSocket}, devices ${
      sim.devices.map((d) => d.serial).join(", ")
    }`,
  );
}
const code = await main(["--mcp", ...args]);
await sim?.close();
Deno.exit(code);
