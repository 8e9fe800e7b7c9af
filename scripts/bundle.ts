/**
 * `deno task bundle`: the main thread as one bundle, `dist/bundle/main.js` (plus the chunks it
 * loads lazily), the fingerprint of the sources it was built from and the tools' listing
 * (`tool_list.json`, lib/cli/bundle_listing.ts; see lib/cli/bundle.ts), for a
 * faster start: spawn → `tools/list` spends most of its time loading modules (the SDK's Server,
 * Ajv, zod, the registry), and a bundle loads them as a few files. The workers are not bundled:
 * the bundle sits two folders below the checkout, as lib/<area>/ does, so a
 * `new URL("../../workers/…", import.meta.url)` (and the skill, proto and main.ts paths) still
 * resolves to this checkout; a module deeper than that (lib/<area>/shared/) names the checkout's
 * files through lib/core/checkout_url.ts, which maps its path to the bundle's. `keynobi setup`
 * builds it too when it is missing or out of date, and registers it; a bundle whose sources
 * changed since starts from source.
 */
import { buildBundle, BUNDLE_DIR } from "../lib/cli/bundle.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const failed = await buildBundle(root, Deno.execPath());
if (failed !== null) {
  console.error(`keynobi bundle: ${failed}`);
  Deno.exit(1);
}
console.error(`keynobi bundle: ${root}/${BUNDLE_DIR}/main.js`);
