/**
 * The retrace worker: the message loop over lib/retrace/retrace_service.ts. Started by
 * lib/retrace/shared/retrace_client.ts with read access to the data directory (kept mappings)
 * and the project roots it serves (for `keynobi retrace`'s client, `anyFile`, the mapping files
 * it names too), and `readlink` (where an opened file really is); no network, no write.
 */
import { serveWorker, workerScope } from "../lib/core/worker_rpc.ts";
import type { RetraceMethods } from "../lib/retrace/shared/retrace_protocol.ts";
import { RetraceService } from "../lib/retrace/retrace_service.ts";

const params = new URL(import.meta.url).searchParams;
const budget = params.get("budget");
const service = new RetraceService({
  dataDir: params.get("dataDir") ?? "",
  budgetBytes: budget ? Number(budget) : undefined,
  anyFile: params.get("anyFile") === "1",
});

serveWorker<RetraceMethods>(workerScope(), {
  "retrace.run": (p) => service.run(p),
  "retrace.memory": () => service.memory(),
}, { name: "retrace" });
