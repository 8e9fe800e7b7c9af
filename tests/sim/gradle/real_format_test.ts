/**
 * The fake's templates against real Gradle logs (../shared/fixtures/real/gradle, read, never
 * copied): the same line shapes, and the fixed sentences word for word.
 */
import { assert, assertEquals } from "../../assert.ts";
import {
  aaptError,
  failureBlock,
  kotlinError,
  type ScenarioContext,
  sdkLocation,
} from "./console.ts";
import { parseManifest } from "./manifest.ts";

const REAL = new URL("../../../../shared/fixtures/real/gradle/", import.meta.url);
const present = await Deno.stat(REAL).then(() => true, () => false);
if (!present) console.error(`real_format_test: ${REAL.pathname} is absent; skipping`);

const real = (name: string) => Deno.readTextFile(new URL(name, REAL));

const kts = new URL("../projects/sample-kts/", import.meta.url);
const model = parseManifest(await Deno.readTextFile(new URL(".sim-gradle.json", kts)));
const ctx: ScenarioContext = {
  root: kts.pathname.replace(/\/$/, ""),
  anchors: model.anchors,
  read: (rel) => Deno.readTextFileSync(new URL(rel, kts)),
  module: model.modules[0],
  variant: null,
  taskPath: ":app:compileDebugKotlin",
  stacktrace: false,
  device: "d",
};

Deno.test({
  name: "kotlinError() lines have the shape of a real Kotlin failure",
  ignore: !present,
  fn: async () => {
    const log = (await real("kotlin_unresolved_reference_windows_uri_stacktrace.txt")).split(
      /\r?\n/,
    );
    const shape = /^e: file:\/\/\/\S+\.kt:\d+:\d+ Unresolved reference '\w+'\.$/;
    const realE = log.filter((l) => l.startsWith("e: "));
    assert(realE.length > 0 && realE.every((l) => shape.test(l)), "the shape fits the real log");
    const ours = kotlinError(ctx);
    assert(ours.inline.every((l) => shape.test(l.text)), ours.inline.map((l) => l.text).join("\n"));
    const at = log.indexOf("Execution failed for task ':app:compileDebugKotlin'.");
    assertEquals(ours.whatWentWrong, log.slice(at, at + 3));
  },
});

Deno.test({
  name: "aaptError() has the real resource-linking block",
  ignore: !present,
  fn: async () => {
    const log = (await real("aapt2_resource_linking_failed_windows_stacktrace.txt")).split(/\r?\n/);
    const ours = aaptError({ ...ctx, taskPath: ":app:processReleaseResources" }).whatWentWrong;
    const at = log.indexOf("Execution failed for task ':app:processReleaseResources'.");
    assertEquals(ours.slice(0, 3), log.slice(at, at + 3));
    const shape = /^ {5}ERROR: .+:\d+: AAPT: error: attribute \S+ not found\.$/;
    assert(shape.test(log[at + 3]) && shape.test(ours[3]), ours[3]);
    assertEquals(ours[4], log[at + 4], "the indented blank line after each error");
  },
});

Deno.test({
  name: "sdkLocation() and failureBlock() match the real SDK-location failure word for word",
  ignore: !present,
  fn: async () => {
    const log = (await real("sdk_location_not_found_dependencies_of_task.txt")).split(/\r?\n/);
    const what = sdkLocation("/app", ":app:compileDebugJavaWithJavac", ":app");
    const block = failureBlock(what, { stacktrace: false }).map((l) => l.text);
    const start = log.indexOf("FAILURE: Build failed with an exception.");
    assertEquals(block.slice(1, -1), log.slice(start, start + block.length - 2));
  },
});

Deno.test({
  name: "the success summary lines have the real shape",
  ignore: !present,
  fn: async () => {
    const log = (await real("success_bundle_prod_release_flavor_r8_lintvital.txt")).split(/\r?\n/);
    assert(log.some((l) => /^BUILD SUCCESSFUL in (\d+m )?\d+s$/.test(l)));
    assert(log.some((l) => /^\d+ actionable tasks: \d+ executed(, \d+ up-to-date)?$/.test(l)));
    assert(log.some((l) => /^> Task :app:\w+( UP-TO-DATE| NO-SOURCE)?$/.test(l)));
  },
});
