/**
 * The UI worker: the message loop over lib/ui/ui_service.ts and lib/ui/fast_paths.ts. Started by
 * lib/ui/shared/client.ts with network access to the ADB server and the emulators' gRPC ports only, read
 * of the emulator discovery directories and the program's proto/, and read/write of the data
 * directory (UI Automator locks). It never starts the ADB server (that needs `run`); the main
 * thread already has. grpc-js loads on the first emulator call that has an endpoint.
 */
import "../lib/ui/xml_fallback.ts";
import { AdbClient } from "../lib/adb/client.ts";
import { mapEnv } from "../lib/core/env.ts";
import { serveWorker, workerScope } from "../lib/core/worker_rpc.ts";
import type { GrpcEndpoint } from "../lib/emulator/shared/discovery.ts";
import { EmulatorLink } from "../lib/emulator/link.ts";
import { FastPaths } from "../lib/ui/fast_paths.ts";
import { ActService } from "../lib/ui/act_service.ts";
import type { UiMethods } from "../lib/ui/shared/protocol.ts";
import { UiService } from "../lib/ui/ui_service.ts";
import { look } from "../lib/ui/look.ts";

const params = new URL(import.meta.url).searchParams;
const adb = new AdbClient({
  address: {
    host: params.get("adbHost") ?? "127.0.0.1",
    port: Number(params.get("adbPort") ?? 5037),
  },
  env: mapEnv({}),
  startServer: false,
});
const discoveryDirs = JSON.parse(params.get("discoveryDirs") ?? "[]") as string[];
const explicit = params.get("grpc") ? JSON.parse(params.get("grpc")!) as GrpcEndpoint : null;
const link = new EmulatorLink({ discoveryDirs, explicit });
let fast: FastPaths | null = null;
const service = new UiService({
  adb,
  dataDir: params.get("dataDir") ?? "",
  frameHash: async (serial, signal) => (await fast!.frameHash(serial, signal)).hash,
});
fast = new FastPaths({ link, adb, screens: service });
const actor = new ActService({ service, fast, adb });

serveWorker<UiMethods>(workerScope(), {
  "ui.act": (p, ctx) => actor.act(p, ctx),
  "ui.compare": (p, ctx) => service.compare(p, ctx),
  "ui.observe": (p, ctx) => service.observe(p, ctx),
  "ui.look": (p, ctx) => look(service, fast!, p, ctx),
  "ui.tree": (p, ctx) => service.tree(p, ctx),
  "ui.find": (p, ctx) => service.find(p, ctx),
  "ui.resolve": (p, ctx) => service.resolve(p, ctx),
  "ui.settle": (p, ctx) => service.settle(p, ctx),
  "ui.wait": (p, ctx) => service.wait(p, ctx),
  "ui.flowFind": (p, ctx) => service.flowFind(p, ctx),
  "ui.screenshot": (p, ctx) => fast!.screenshot(p, ctx.signal),
  "ui.rotateBody": (p, ctx) => fast!.rotateBody(p, ctx.signal),
  "ui.forget": ({ serial }) => {
    service.forget(serial);
    return null;
  },
}, { name: "ui" });
