import { assertEquals } from "../assert.ts";
import { checkoutUrl } from "../../lib/core/checkout_url.ts";

Deno.test("checkoutUrl(): a client's path from source; from any bundle file, the checkout's workers/", () => {
  const source = "file:///co/lib/ui/shared/client.ts";
  assertEquals(checkoutUrl("../../../workers/ui.ts", source).href, "file:///co/workers/ui.ts");
  assertEquals(
    checkoutUrl("../../workers/x.ts", "file:///co/lib/retrace/c.ts").href,
    "file:///co/workers/x.ts",
  );
  for (const file of ["main.js", "chunk-CI63SZNQ.js"]) {
    assertEquals(
      checkoutUrl("../../../workers/ui.ts", `file:///co/dist/bundle/${file}`).href,
      "file:///co/workers/ui.ts",
    );
  }
  // A compiled binary keeps the source tree.
  assertEquals(
    checkoutUrl("../../../workers/ui.ts", "file:///tmp/deno-compile-keynobi/lib/ui/shared/c.ts")
      .href,
    "file:///tmp/deno-compile-keynobi/workers/ui.ts",
  );
});
