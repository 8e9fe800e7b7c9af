/**
 * The bundle runs only while it was built from the checkout's current sources: the fingerprint
 * changes with any file's size, time, addition or removal under what it covers, and a bundle
 * without a stamp, or with another one, is not current.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  BUNDLE_DIR,
  BUNDLE_LISTING,
  BUNDLE_STAMP,
  bundledListing,
  bundleIsCurrent,
  checkoutOf,
  isBundleEntry,
  sourceFingerprint,
} from "../../lib/cli/bundle.ts";
import { listingByName } from "../../lib/cli/bundle_listing.ts";
import { McpSessionHandlers, toolListing } from "../../lib/mcp/server.ts";
import { TOOLS } from "../../lib/tools/registry.ts";

async function checkout(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "keynobi-bundle-" });
  await Deno.mkdir(`${root}/lib/core`, { recursive: true });
  await Deno.mkdir(`${root}/workers`);
  await Deno.mkdir(`${root}/${BUNDLE_DIR}`, { recursive: true });
  await Deno.writeTextFile(`${root}/main.ts`, "main");
  await Deno.writeTextFile(`${root}/lib/core/a.ts`, "a");
  await Deno.writeTextFile(`${root}/workers/w.ts`, "w");
  await Deno.writeTextFile(`${root}/${BUNDLE_DIR}/main.js`, "bundle");
  return root;
}

function stamp(root: string): void {
  Deno.writeTextFileSync(
    `${root}/${BUNDLE_DIR}/${BUNDLE_STAMP}`,
    JSON.stringify({ fingerprint: sourceFingerprint(root) }),
  );
}

Deno.test("a bundle is current only with the fingerprint of the sources as they are", async () => {
  const root = await checkout();
  try {
    assertEquals(bundleIsCurrent(root), false, "no stamp");
    stamp(root);
    assertEquals(bundleIsCurrent(root), true);
    // Another file under dist/ or elsewhere does not matter.
    await Deno.writeTextFile(`${root}/README.md`, "x");
    await Deno.writeTextFile(`${root}/${BUNDLE_DIR}/chunk.js`, "x");
    assertEquals(bundleIsCurrent(root), true);
    const changes: [string, () => void][] = [
      ["an edit of the same size", () => {
        Deno.writeTextFileSync(`${root}/lib/core/a.ts`, "b");
        Deno.utimeSync(`${root}/lib/core/a.ts`, new Date(), new Date(Date.now() + 5_000));
      }],
      ["a longer file", () => Deno.writeTextFileSync(`${root}/workers/w.ts`, "ww")],
      ["a new file", () => Deno.writeTextFileSync(`${root}/lib/core/b.ts`, "b")],
      ["a removed file", () => Deno.removeSync(`${root}/lib/core/b.ts`)],
      ["deno.json appearing", () => Deno.writeTextFileSync(`${root}/deno.json`, "{}")],
    ];
    for (const [what, change] of changes) {
      const before = sourceFingerprint(root);
      change();
      assert(sourceFingerprint(root) !== before, what);
      assertEquals(bundleIsCurrent(root), false, what);
      stamp(root);
      assertEquals(bundleIsCurrent(root), true, what);
    }
    Deno.removeSync(`${root}/${BUNDLE_DIR}/main.js`);
    assertEquals(bundleIsCurrent(root), false, "no bundle");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the bundle's entry and the checkout it belongs to", () => {
  assertEquals(isBundleEntry("file:///src/k/dist/bundle/main.js"), true);
  assertEquals(isBundleEntry("file:///src/k/main.ts"), false);
  assertEquals(checkoutOf("file:///src/k/dist/bundle/main.js"), "/src/k");
  assertEquals(checkoutOf("file:///src/k/main.ts"), "/src/k");
  assertEquals(checkoutOf("file:///src/a%20b/main.ts"), "/src/a b");
});

Deno.test("the listing built beside the bundle is every tool's tools/list entry, as JSON", async () => {
  const script = new URL("../../lib/cli/bundle_listing.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--allow-read", "--allow-env", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  const printed = JSON.parse(new TextDecoder().decode(out.stdout));
  assertEquals(Object.keys(printed), TOOLS.map((t) => t.name));
  for (const t of TOOLS) {
    assertEquals(JSON.stringify(printed[t.name]), JSON.stringify(toolListing(t)), t.name);
  }
  assertEquals(JSON.stringify(listingByName()), JSON.stringify(printed));
});

Deno.test("only the bundle's own files read the listing beside them", async () => {
  const root = await checkout();
  try {
    const dir = `${root}/${BUNDLE_DIR}`;
    // From source (lib/cli/runtime.ts) nothing is read, even with a listing in dist/bundle.
    await Deno.writeTextFile(`${dir}/${BUNDLE_LISTING}`, JSON.stringify({ a: { name: "a" } }));
    assertEquals(bundledListing(`file://${root}/lib/cli/runtime.ts`), null);
    const listing = bundledListing(`file://${dir}/runtime-ABC.js`);
    assertEquals(listing?.get("a"), { name: "a" });
    // Not a JSON object, or missing: none (the session converts the schemas itself).
    const other = await checkout();
    try {
      await Deno.writeTextFile(`${other}/${BUNDLE_DIR}/${BUNDLE_LISTING}`, "[1]");
      assertEquals(bundledListing(`file://${other}/${BUNDLE_DIR}/main.js`), null);
      await Deno.remove(`${other}/${BUNDLE_DIR}/${BUNDLE_LISTING}`);
      assertEquals(bundledListing(`file://${other}/${BUNDLE_DIR}/chunk-X.js`), null);
    } finally {
      await Deno.remove(other, { recursive: true });
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a session lists a tool from the listing it was given, and converts the others", () => {
  const [first, second] = TOOLS;
  const marked = { ...toolListing(first), description: "from the listing" };
  const handlers = new McpSessionHandlers({
    version: "1",
    title: "t",
    instructions: "i",
    tools: [first, second],
    enabledToolsets: [first.toolset, second.toolset],
    hasProject: false,
    makeContext: () => ({}) as never,
    resources: { list: () => Promise.resolve([]), read: () => Promise.reject(new Error("none")) },
    prompts: [],
    listed: new Map([[first.name, marked]]),
  });
  const { tools } = handlers.listTools({});
  assertEquals(tools, [marked, toolListing(second)]);
});
