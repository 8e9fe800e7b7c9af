/**
 * `deno task bundle`: the main thread as one bundle, `dist/bundle/main.js` (plus the chunks it
 * loads lazily), for a faster start: spawn → `initialize` spends most of its time loading modules
 * (the SDK's Server, Ajv, zod, the registry), and a bundle loads them as a few files. The workers
 * are not bundled: the bundle sits two folders below the checkout, as lib/<area>/ does, so their
 * `new URL("../../workers/…", import.meta.url)` (and the skill, proto and main.ts paths) still
 * resolve to this checkout. Run `keynobi setup` through the bundle to register it:
 * `deno run <flags> dist/bundle/main.js setup`. Rebuild it after changing the source.
 */
const root = new URL("..", import.meta.url).pathname;
const out = `${root}dist/bundle`;
await Deno.remove(out, { recursive: true }).catch(() => {});
const args = [
  "bundle",
  "--quiet",
  "--platform",
  "deno",
  "--code-splitting",
  "--outdir",
  out,
  `${root}main.ts`,
];
const { code } = await new Deno.Command(Deno.execPath(), {
  args,
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (code !== 0) {
  console.error("keynobi bundle: deno bundle failed");
  Deno.exit(code);
}
console.error(`keynobi bundle: ${out}/main.js`);
