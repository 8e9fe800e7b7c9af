/**
 * Child process of two_processes_test.ts: records `count` agent actions into the open session of
 * `serial`/`package` through its own DebugSessionRecorder, as a second keynobi process would.
 * argv: <data dir> <serial> <package> <label> <count>
 */
import { DebugSessionRecorder } from "../../lib/sessions/session_recorder.ts";

const [dataDir, serial, pkg, label, count] = Deno.args;
const recorder = new DebugSessionRecorder(dataDir);
for (let i = 0; i < Number(count); i++) {
  recorder.record({
    type: "event",
    serial,
    package: pkg,
    event: {
      at: new Date(),
      kind: "launch",
      by: { kind: "keynobi" },
      summary: `${label} ${i}`,
      data: { label, i },
    },
  });
  // Let the writer run between records, so the two processes interleave.
  if (i % 7 === 0) await new Promise((r) => setTimeout(r, 1));
}
await recorder.close();
