/**
 * The logcat worker: the message loop over lib/logcat/logcat_service.ts. Started by
 * lib/logcat/shared/logcat_client.ts with network access to the ADB server only; it opens its own ADB
 * connections (one stream per device) and never starts an ADB server itself.
 */
import { AdbClient } from "../lib/adb/client.ts";
import { parseServerSocketSpec } from "../lib/adb/server_address.ts";
import { mapEnv } from "../lib/core/env.ts";
import { serveWorker, workerScope } from "../lib/core/worker_rpc.ts";
import { type LogcatMethods, MAX_TRACES_PER_QUERY } from "../lib/logcat/shared/logcat_protocol.ts";
import { LogcatService, workerMemory } from "../lib/logcat/logcat_service.ts";

const params = new URL(import.meta.url).searchParams;
const address = parseServerSocketSpec(`tcp:${params.get("adb") ?? "127.0.0.1:5037"}`);
const adb = new AdbClient({ address, env: mapEnv({}), startServer: false });
const service = new LogcatService({ adb });

serveWorker<LogcatMethods>(workerScope(), {
  "logcat.start": (p, { signal }) => service.start(p, signal),
  "logcat.stop": ({ serial }) => service.stop(serial),
  "logcat.clear": ({ serial }) => service.clear(serial),
  "logcat.entries": (p) => service.entries(p),
  "logcat.stats": () => service.stats(),
  "logcat.crashes": ({ count }) => service.crashes(count),
  "logcat.trace": (p) => service.trace(p),
  "logcat.traces": ({ crash_group_ids }) =>
    crash_group_ids.slice(0, MAX_TRACES_PER_QUERY).map((id) =>
      service.trace({ crash_group_id: id })
    ),
  "logcat.session_crashes": ({ after_id }) => service.sessionCrashes(after_id),
  "logcat.rederive": ({ traces }) =>
    traces.slice(0, MAX_TRACES_PER_QUERY).map((p) => service.rederive(p)),
  "logcat.shutdown": async () => ({ stopped: await service.shutdown() }),
  "logcat.memory": () => workerMemory(),
}, { name: "logcat" });
