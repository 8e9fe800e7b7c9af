import { bundleIsCurrent, checkoutOf, isBundleEntry } from "./lib/cli/bundle.ts";
import { main } from "./lib/cli/main.ts";

if (isBundleEntry(import.meta.url) && !bundleIsCurrent(checkoutOf(import.meta.url))) {
  // A bundle built from other sources than the checkout's (an update since): run the source.
  console.error(
    "keynobi: dist/bundle was built from older sources; starting from source (`keynobi setup` " +
      "or `deno task bundle` rebuilds it)",
  );
  await import(new URL("../../main.ts", import.meta.url).href);
} else {
  Deno.exit(await main(Deno.args));
}
