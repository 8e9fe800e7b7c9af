import { bundleIsCurrent, checkoutOf, isBundleEntry } from "./lib/cli/bundle.ts";
import { main } from "./lib/cli/main.ts";
import { GRPC_CHILD_ARG } from "./lib/emulator/shared/limits.ts";

if (isBundleEntry(import.meta.url) && !bundleIsCurrent(checkoutOf(import.meta.url))) {
  // A bundle built from other sources than the checkout's (an update since): run the source.
  console.error(
    "keynobi: dist/bundle was built from older sources; starting from source (`keynobi setup` " +
      "or `deno task bundle` rebuilds it)",
  );
  await import(new URL("../../main.ts", import.meta.url).href);
} else if (Deno.args[0] === GRPC_CHILD_ARG) {
  // A compiled binary started by the UI worker as its emulator gRPC client process
  // (lib/emulator/grpc_process.ts): it keeps network, read and environment access only (from
  // source, deno's own flags grant just those). Loaded by URL, as the workers are.
  for (const name of ["run", "write", "ffi", "sys"] as const) {
    await Deno.permissions.revoke({ name });
  }
  const child = await import(new URL("./workers/grpc_child.ts", import.meta.url).href);
  Deno.exit(await child.runGrpcChild(Deno.args.slice(1)));
} else {
  Deno.exit(await main(Deno.args));
}
