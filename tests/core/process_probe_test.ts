import { assert, assertEquals } from "../assert.ts";
import { join } from "node:path";
import {
  parsePsLine,
  probeProcess,
  probeWithProc,
  probeWithPs,
  type RecordedProcess,
  staleReason,
} from "../../lib/core/process_probe.ts";
import { startIdleChild as startChild } from "./_idle_child.ts";

function recordFor(pid: number, binary = Deno.execPath()): RecordedProcess {
  return { pid, binary };
}

async function tempDir() {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-proc-" });
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("staleReason() decides from the probe", () => {
  const r = recordFor(10, "/usr/local/bin/keynobi");
  assert(staleReason(r, { state: "gone" })?.includes("gone"));
  assertEquals(staleReason(r, { state: "running", binary: null }), null);
  assertEquals(staleReason(r, { state: "running", binary: "/usr/local/bin/keynobi" }), null);
  assertEquals(
    staleReason(r, { state: "running", binary: "/usr/local/bin/keynobi (deleted)" }),
    null,
    "an updated binary still runs the old server",
  );
  assert(staleReason(r, { state: "running", binary: "/usr/bin/python3" })?.includes("python3"));
  assertEquals(
    staleReason(r, { state: "running", binary: "/opt/k", nameOnly: false }, [
      "/usr/local/bin/keynobi",
      "/opt/k",
    ]),
    null,
    "the resolved path counts",
  );
  assertEquals(staleReason(r, { state: "running", binary: "keynobi", nameOnly: true }), null);
  assert(staleReason(r, { state: "running", binary: "bash", nameOnly: true }) !== null);
  const long = recordFor(11, "/opt/keynobi-nightly-build");
  assertEquals(
    staleReason(long, { state: "running", binary: "keynobi-nightly", nameOnly: true }),
    null,
    "Linux ps cuts names at 15 characters",
  );
});

Deno.test("probeWithProc() reads a /proc-like folder", async () => {
  await using data = await tempDir();
  await Deno.mkdir(join(data.dir, "77"));
  await Deno.symlink("/usr/local/bin/keynobi (deleted)", join(data.dir, "77", "exe"));
  await Deno.mkdir(join(data.dir, "78")); // a zombie: no exe link
  assertEquals(await probeWithProc(77, data.dir), {
    state: "running",
    binary: "/usr/local/bin/keynobi (deleted)",
  });
  assertEquals(await probeWithProc(78, data.dir), { state: "gone" });
  assertEquals(await probeWithProc(79, data.dir), { state: "gone" });
});

Deno.test("parsePsLine() reads stat and name, and a zombie is gone", () => {
  assertEquals(parsePsLine("Ss   deno\n"), { state: "running", binary: "deno", nameOnly: true });
  assertEquals(parsePsLine("S /Applications/Keynobi.app/Contents/MacOS/keynobi"), {
    state: "running",
    binary: "/Applications/Keynobi.app/Contents/MacOS/keynobi",
    nameOnly: true,
  });
  assertEquals(parsePsLine("Z+   deno <defunct>"), { state: "gone" });
  assertEquals(parsePsLine(""), { state: "gone" });
});

Deno.test("probeProcess() and probeWithPs() see a real child start and end", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using child = startChild();
  const probe = await probeProcess(child.pid);
  assertEquals(probe.state, "running");
  assertEquals(staleReason(recordFor(child.pid), probe), null);
  assert(staleReason(recordFor(child.pid, "/usr/bin/vim"), probe) !== null);
  const viaPs = await probeWithPs(child.pid);
  assert(viaPs.state === "running" && viaPs.binary !== null, JSON.stringify(viaPs));
  assertEquals(staleReason(recordFor(child.pid), viaPs), null);
  await child.end();
  assertEquals(await probeProcess(child.pid), { state: "gone" });
  assertEquals(await probeWithPs(child.pid), { state: "gone" });
});
