/**
 * `deno task compile`: the shipped binary, `dist/keynobi`. `deno compile` downloads its runtime
 * (denort) on first use; on a machine without internet access it fails and this script says so.
 * The flags are the ones `deno run` uses (lib/cli/permissions.ts), so what the tests run is what
 * ships. It compiles `main.ts`, not the bundle `keynobi setup` registers from a checkout (why:
 * docs/DECISIONS.md, "Start-up stays lean").
 */
import { RUN_FLAGS } from "../lib/cli/permissions.ts";

const root = new URL("..", import.meta.url).pathname;
const target = Deno.args.find((a) => a.startsWith("--target="))?.slice("--target=".length);
const output = `${root}dist/keynobi${target?.includes("windows") ? ".exe" : ""}`;
const args = [
  "compile",
  ...RUN_FLAGS,
  "--include",
  `${root}skills/keynobi/SKILL.md`,
  "--include",
  `${root}workers/`,
  "--include",
  `${root}proto/`,
  "--output",
  output,
  ...(target ? ["--target", target] : []),
  `${root}main.ts`,
];
console.error(`deno ${args.join(" ")}`);
const { code } = await new Deno.Command(Deno.execPath(), {
  args,
  stdout: "inherit",
  stderr: "inherit",
})
  .output();
if (code !== 0) {
  console.error(
    "keynobi compile: deno compile failed. It needs the denort runtime, which it downloads from " +
      "the internet on first use; without access, run keynobi with `deno task mcp` instead.",
  );
}
Deno.exit(code);
