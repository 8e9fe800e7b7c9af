/**
 * A file of the checkout a module names by a relative URL (`workers/<name>.ts`, `proto/`), seen
 * from that module. From source the module names it relative to its own file
 * (`../../../workers/ui.ts` from `lib/ui/shared/`); the bundle (`dist/bundle/*.js`,
 * scripts/bundle.ts) puts every module in one folder two below the checkout and does not rewrite
 * the path, so from there it is `../../workers/ui.ts` whatever the module's folder was. The
 * compiled binary keeps the source tree, so the source path holds there.
 */

/** A module of the bundle: one of the files in `dist/bundle/`. */
const BUNDLE_FILE = /\/dist\/bundle\/[^/]+\.js$/;

/** `relative` (`../../../workers/x.ts`) from `moduleUrl`; from the bundle, the checkout's. */
export function checkoutUrl(relative: string, moduleUrl: string): URL {
  const path = BUNDLE_FILE.test(moduleUrl) ? relative.replace(/^(\.\.\/)+/, "../../") : relative;
  return new URL(path, moduleUrl);
}
