/**
 * A minified (release) build in the simulator: the fake Gradle writes R8's mapping, the APK's
 * crash frames are obfuscated on the device and name the map id, and the mapping (read by our
 * retracer, lib/retrace/) gives back exactly the frames a debug build prints.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startSimulator } from "./mod.ts";
import { exec as execIn, shell } from "./apps/_shell.ts";
import { javaChain, printChain } from "./logcat/crashes.ts";
import { indexMapping } from "../../lib/retrace/mapping_index.ts";
import { retraceText } from "../../lib/retrace/retrace_text.ts";
import { mapIdsInTrace } from "../../lib/retrace/shared/trace_frames.ts";

const dec = new TextDecoder();
const PKG = "com.example.keynobi.sample.demo";

Deno.test("a release build writes R8's mapping, crashes obfuscated, and retraces to the source frames", async () => {
  await using sim = await startSimulator();
  const serial = "emulator-5554";
  const dir = sim.projects["sample-kts"];
  await sim.gradle("sample-kts").setTaskDelay(0);
  const built = await new Deno.Command(`${dir}/gradlew`, {
    args: ["assembleDemoRelease"],
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  }).output();
  assertEquals(built.code, 0, dec.decode(built.stderr));
  const mapping = await Deno.readTextFile(
    `${dir}/app/build/outputs/mapping/demoRelease/mapping.txt`,
  );
  const index = indexMapping(mapping);
  assertMatch(index.header.mapId ?? "", /^[0-9a-f]{7}$/);
  const apk = await Deno.readFile(`${dir}/app/build/outputs/apk/demo/release/app-demo-release.apk`);
  const out = await execIn(sim.port, serial, `cmd package install -S ${apk.length}`, apk);
  assert(out.includes("Success"), out);
  await shell(sim.port, serial, `am start -W -n ${PKG}/${PKG}.MainActivity`);
  assertEquals((await shell(sim.port, serial, `simctl crash ${PKG} java activity`)).code, 0);
  const log = (await shell(sim.port, serial, "logcat -d -b crash -v raw")).out;
  const trace = log.split("\n").filter((l) => l !== "--------- beginning of crash").join("\n");
  assert(!trace.includes("SampleRepository.kt"), "no source names in a minified build's frames");
  assertEquals(mapIdsInTrace(trace), [index.header.mapId]);
  const retraced = retraceText(trace, index).text.split("\n").map((l) =>
    l.replace(/^\s+at /, "at ").replace(/^\tat /, "at ")
  );
  const debug = printChain(javaChain(PKG, "activity").chain).filter((l) => /^\s*at /.test(l))
    .map((l) => l.trim());
  const frames = retraced.filter((l) => l.startsWith("at "));
  assertEquals(frames, debug);
});
