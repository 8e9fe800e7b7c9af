/**
 * deno.json against deno.lock: every npm package whose lifecycle scripts the lockfile records is
 * named in `allowScripts`, so that a fresh `deno task` (a new clone, a new DENO_DIR) prints no
 * "Ignored build scripts" warning box. Deno runs such scripts only with a node_modules directory,
 * which keynobi does not use (`nodeModulesDir: "none"`), so each is denied, with its reason here.
 */
import { assertEquals } from "../assert.ts";

const root = new URL("../../", import.meta.url);
/** Why each denied package's script is not needed. */
const DENIED_BECAUSE: Record<string, string> = {
  // scripts/postinstall.js only prints a warning when a dependent's version range uses another
  // scheme than protobufjs' `versionScheme`; it builds and installs nothing.
  "npm:protobufjs": "postinstall only warns about dependents' version ranges",
};

Deno.test("deno.json allowScripts names every npm package the lockfile records scripts for", async () => {
  const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", root)));
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const withScripts = Object.entries(lock.npm as Record<string, { scripts?: boolean }>)
    .filter(([, v]) => v.scripts === true)
    .map(([k]) => `npm:${k.replace(/^(@?[^@]+)@.*$/, "$1")}`)
    .sort();
  const denied = [...(config.allowScripts?.deny ?? [])].sort();
  assertEquals(denied, withScripts);
  assertEquals(Object.keys(DENIED_BECAUSE).sort(), denied);
  assertEquals(config.allowScripts.allow ?? [], [], "no lifecycle script runs");
});
