/**
 * The simulated Android world: an ADB server on 127.0.0.1 with three virtual devices, a fake SDK
 * and sample projects in a temp dir, and a journal of every device command.
 *
 * ```ts
 * await using sim = await startSimulator();
 * // ADB_SERVER_SOCKET=sim.adbServerSocket → the code under test talks to it over TCP
 * ```
 *
 * Nothing here imports `lib/`: the simulator is an independent implementation of the protocol.
 *
 * Each sample project's `gradlew` runs the fake Gradle (tests/sim/gradle/fake_gradle.ts). Tests
 * steer it through `sim.gradle("sample-kts")`:
 *
 * ```ts
 * const g = sim.gradle("sample-kts");
 * await g.setScenario("assembleDemoDebug", "kotlin_error"); // or "default" for every task
 * await g.setTaskDelay(0); // ms between task lines (default 20)
 * await g.hangAt("compileDemoDebugKotlin"); // the build stops there until killed; null = no hang
 * const runs = await g.readJournal(); // GradleRun[]: argv, env, tasks, outcome, exit_code, outputs
 * ```
 *
 * Scenarios: success, kotlin_error, java_error, aapt_error, sdk_location, dependency_resolution,
 * lint_error, kotlin_warning_success, ui_regression (builds, but the app's sign-in is broken),
 * test_failure, hang. `sim.gradleJournalPath` is the journal
 * of every project's runs.
 */
import { join } from "node:path";
import { AdbServer } from "./adb_server.ts";
import { defaultFleet } from "./catalog.ts";
import { type DeviceKind, type DeviceState, SETTABLE_STATES, VirtualDevice } from "./device.ts";
import { Journal, type JournalEntry } from "./journal.ts";
import { copyProjects, createSdk } from "./sdk.ts";
import { SERVICES, type SimWorld } from "./services.ts";
import type { GradleRun, Scenario } from "./gradle/control.ts";
import { type GradleControl, gradleControl, installFakeGradle } from "./gradle/install.ts";
import { createAvdHome, EmulatorHost, installEmulator } from "./apps/emulator.ts";
import { EmulatorGrpcService, type GrpcControl } from "./emulator/grpc_service.ts";
import { RealAdbFront } from "./real_adb_front.ts";
import type { RealAdbServer } from "./real_adb_server.ts";

export type {
  DeviceKind,
  DeviceState,
  GradleControl,
  GradleRun,
  GrpcControl,
  JournalEntry,
  Scenario,
  VirtualDevice,
};
export { SETTABLE_STATES };

export interface SimulatorOptions {
  /** Root folder for the SDK, projects and journal; default a new temp dir (removed on close). */
  dir?: string;
  /** TCP port of the ADB server on 127.0.0.1; 0 (default) = any free port. */
  port?: number;
  /**
   * Emulators serve the emulator's gRPC service (tests/sim/emulator/grpc_service.ts) and
   * advertise it in `<discoveryRoot>/avd/running`. Default false (grpc-js is not loaded).
   */
  grpc?: boolean;
  /**
   * Google's ADB server (Debian's `adb`) in front of the devices (tests/sim/real_adb_front.ts):
   * `adbServerSocket` is then its socket, and the devices carry the serials it gives them
   * (`serialOf`). Throws when no `adb` is installed. Default false.
   */
  realAdb?: boolean;
}

export interface DeviceSummary {
  serial: string;
  state: string;
  kind: DeviceKind;
  model: string;
  api: number;
}

export interface Simulator extends AsyncDisposable {
  /** `tcp:127.0.0.1:PORT`, the value for `ADB_SERVER_SOCKET` (the real server's with realAdb). */
  readonly adbServerSocket: string;
  /** The simulator's own ADB server, whether or not a real one is in front. */
  readonly simAdbServerSocket: string;
  /** The port of the simulator's own server. */
  readonly port: number;
  /** The real ADB server (with `realAdb`), else null. */
  readonly realAdb: RealAdbServer | null;
  /** `adb kill-server` and the same server started again, the devices registered again. */
  restartRealAdb(): Promise<void>;
  /**
   * A catalog device's serial in this run (`emulator-5554`, `R5CT1234ABC`, `192.168.1.23:5555`
   * are renamed behind a real server: `emulator-<port>`, `127.0.0.1:<port>`).
   */
  serialOf(catalogSerial: string): string;
  /** Devices on the server's list now (a disconnected device is absent). */
  readonly devices: DeviceSummary[];
  readonly sdkRoot: string;
  /** The AVD home (`ANDROID_AVD_HOME`) the fake `<sdk>/emulator/emulator` reads. */
  readonly avdHome: string;
  readonly projects: Record<string, string>;
  readonly journalPath: string;
  readonly root: string;
  /**
   * The runtime directory emulators advertise their gRPC endpoint under (`avd/running`): the
   * `XDG_RUNTIME_DIR` to give a client. Exists (empty) even without `grpc`.
   */
  readonly discoveryRoot: string;
  /** The gRPC endpoint of an emulator (needs `grpc: true`). */
  grpc(serial: string): GrpcControl;
  readJournal(): Promise<JournalEntry[]>;
  /** The fake Gradle's journal: one JSON line (`GradleRun`) per `gradlew` invocation. */
  readonly gradleJournalPath: string;
  /** The fake Gradle's control file (written by `gradle(...)`). */
  readonly gradleControlPath: string;
  /** The fake Gradle of one sample project (`sample-kts`, `sample-groovy`). */
  gradle(project: string): GradleControl;
  /** A virtual device's live state (props, screen, battery, files, features...). */
  device(serial: string): VirtualDevice;
  /** From now on, commands whose argv starts with `prefix` print the host file, exit 0. */
  respond(serial: string, prefix: string[], hostFile: string): void;
  /** Takes the device off the list (its streams close) for `seconds`, then brings it back. */
  disconnect(serial: string, seconds: number): void;
  setState(serial: string, state: DeviceState): void;
  setFeatures(serial: string, features: string[]): void;
  close(): Promise<void>;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const port = opts.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`Cannot start simulator: port ${port} is not in 0..65535`);
  }
  const ownsRoot = opts.dir === undefined;
  const root = opts.dir ?? await Deno.makeTempDir({ prefix: "keynobi-sim-" });
  await Deno.mkdir(root, { recursive: true });
  const sdkRoot = await createSdk(root);
  const projects = await copyProjects(root);
  const gradlePaths = await installFakeGradle(root, projects);
  const avdHome = await createAvdHome(root);
  const journalPath = join(root, "journal.jsonl");
  await Deno.writeTextFile(journalPath, "");
  const journal = new Journal(journalPath);
  const front = opts.realAdb ? new RealAdbFront() : null;
  const specs = front ? front.prepare(defaultFleet()) : defaultFleet();
  const devices = specs.map((spec) => new VirtualDevice(spec));
  const server = new AdbServer(devices, journal);
  const world: SimWorld = {
    root,
    sdkRoot,
    projects,
    adbPort: () => server.port,
    devices: () => [...server.devices],
    addDevice: (spec) => {
      const d = new VirtualDevice(spec);
      attachServices(d);
      server.addDevice(d);
      return d;
    },
    removeDevice: (serial) => {
      const d = server.devices.find((x) => x.serial === serial);
      if (d) {
        server.removeDevice(d);
        for (const svc of d.services) void svc.close?.();
      }
    },
  };
  const discoveryRoot = join(root, "run");
  await Deno.mkdir(discoveryRoot, { recursive: true, mode: 0o700 });
  const grpcStarts: Promise<unknown>[] = [];
  const attachServices = (d: VirtualDevice) => {
    for (const make of SERVICES) d.addService(make(d, world));
    if (opts.grpc && d.kind === "emulator") {
      const g = new EmulatorGrpcService(d, discoveryRoot);
      d.addService(g);
      const started = g.start();
      started.catch(() => {}); // an emulator booted later: tests see it through sim.grpc()
      grpcStarts.push(started);
    }
  };
  for (const d of devices) attachServices(d);
  await Promise.all(grpcStarts);
  server.listen(port);
  if (front) {
    server.onDeviceChanged = (d) => front.changed(d);
    try {
      await front.start(
        root,
        devices,
        (d, service, stream) => server.runDeviceService(d, service, stream),
      );
    } catch (e) {
      await front.close();
      await server.close();
      if (ownsRoot) await Deno.remove(root, { recursive: true }).catch(() => {});
      throw e;
    }
  }
  const emulators = new EmulatorHost(root, (spec, state) => {
    const d = new VirtualDevice(spec);
    d.state = state;
    attachServices(d);
    server.addDevice(d);
    return d;
  }, (serial) => server.devices.some((d) => d.serial === serial));
  server.onEmulator = (consolePort) => emulators.announce(consolePort);
  await installEmulator(sdkRoot, { root, avdHome, adbPort: server.port });

  const find = (serial: string) => {
    const d = server.devices.find((x) => x.serial === serial);
    if (!d) {
      throw new RangeError(
        `Unknown simulated device: ${serial}: use one of ${
          server.devices.map((x) => x.serial).join(", ")
        }`,
      );
    }
    return d;
  };
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    emulators.close();
    await front?.close();
    for (const d of server.devices) {
      for (const svc of d.services) await svc.close?.();
    }
    await server.close();
    await journal.flush();
    if (ownsRoot) await Deno.remove(root, { recursive: true }).catch(() => {});
  };
  const ownSocket = `tcp:127.0.0.1:${server.port}`;
  return {
    adbServerSocket: front?.server ? front.server.socket : ownSocket,
    simAdbServerSocket: ownSocket,
    port: server.port,
    realAdb: front?.server ?? null,
    restartRealAdb: async () => {
      if (!front) throw new RangeError("No real ADB server: start the simulator with realAdb");
      await front.restartServer();
    },
    serialOf: (catalogSerial) => front?.renamed.get(catalogSerial) ?? catalogSerial,
    get devices() {
      return server.present().map((d) => ({
        serial: d.serial,
        state: d.state,
        kind: d.kind,
        model: d.model,
        api: d.api,
      }));
    },
    sdkRoot,
    avdHome,
    projects,
    journalPath,
    root,
    discoveryRoot,
    grpc: (serial) => {
      const g = find(serial).service<EmulatorGrpcService>("emulator-grpc")?.control;
      if (!g) throw new RangeError(`${serial} serves no gRPC: start the simulator with grpc: true`);
      return g;
    },
    readJournal: () => journal.read(),
    gradleJournalPath: gradlePaths.journalPath,
    gradleControlPath: gradlePaths.controlPath,
    gradle: (project) => {
      if (!Object.hasOwn(projects, project)) {
        throw new RangeError(
          `Unknown sample project: ${project}: use one of ${Object.keys(projects).join(", ")}`,
        );
      }
      return gradleControl(gradlePaths, project);
    },
    device: find,
    respond: (serial, prefix, hostFile) => find(serial).addResponder([...prefix], hostFile),
    disconnect: (serial, seconds) => server.disconnectFor(find(serial), seconds),
    setState: (serial, state) => {
      if (!SETTABLE_STATES.includes(state)) {
        throw new RangeError(`Cannot set state ${state}: use ${SETTABLE_STATES.join(", ")}`);
      }
      find(serial).setState(state);
    },
    setFeatures: (serial, features) => find(serial).setFeatures(features),
    close,
    [Symbol.asyncDispose]: close,
  };
}
