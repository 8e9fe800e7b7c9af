/**
 * The build worker: the message loop over lib/build/build_service.ts. Started by
 * lib/build/shared/build_client.ts with permissions narrowed to the project, the SDK, the JDK, the data
 * directory, and running only the project's gradlew and the helpers git, ps and kill.
 */
import { serveWorker, workerScope } from "../lib/core/worker_rpc.ts";
import type { BuildMethods } from "../lib/build/shared/build_protocol.ts";
import { BuildService } from "../lib/build/build_service.ts";
import { describeOrigin } from "../lib/build/shared/build_record.ts";

const params = new URL(import.meta.url).searchParams;
const service = new BuildService({
  dataDir: params.get("dataDir") ?? "",
  binary: params.get("binary") ?? "",
  version: params.get("version") ?? "",
  owner: params.get("owner") ?? undefined,
});

serveWorker<BuildMethods>(workerScope(), {
  "build.run": (p, { signal, progress }) =>
    service.run(p, {
      signal,
      progress: (elapsedMs, task) => progress(elapsedMs, undefined, task ?? undefined),
    }),
  "build.cancel": async ({ by }) => ({
    cancelled: await service.cancel(by, `cancelled by ${describeOrigin(by)}`),
  }),
  "build.status": () => Promise.resolve({ running: service.status() }),
  "build.shutdown": async ({ reason }) => ({ stopped: await service.shutdown(reason) }),
}, { name: "build" });
