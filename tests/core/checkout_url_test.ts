import { assertEquals } from "../assert.ts";
import { checkoutUrl } from "../../lib/core/checkout_url.ts";

const ROOT = new URL("../../", import.meta.url);

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
Deno.test("checkoutUrl(): every file of the checkout lib/ names past its own folder is found through it", async () => {
  const found: string[] = [];
  const walk = async (dir: URL, rel: string) => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(new URL(`${e.name}/`, dir), `${rel}/${e.name}`);
      else if (e.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(new URL(e.name, dir));
        for (const m of text.matchAll(/new URL\("(?:\.\.\/){3,}[^"]*"/g)) {
          found.push(`${rel}/${e.name}: ${m[0]}`);
        }
      }
    }
  };
  await walk(new URL("lib/", ROOT), "lib");
  assertEquals(found, [], "made with new URL(), it misses the checkout from the bundle");
});
