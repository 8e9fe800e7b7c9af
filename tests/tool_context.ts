/**
 * `testToolContext(overrides)`: a complete ToolContext for calling tool handlers directly, with
 * inert defaults for every field a test does not pass. A new ToolContext field needs one default
 * here.
 */
import { ScreenRecorder } from "../lib/android/screen_recording.ts";
import type { AdbClient } from "../lib/adb/client.ts";
import { mapEnv } from "../lib/core/env.ts";
import { BuildClient } from "../lib/build/shared/build_client.ts";
import { LogcatClient } from "../lib/logcat/shared/logcat_client.ts";
import { RetraceClient } from "../lib/retrace/shared/retrace_client.ts";
import type { ToolContext } from "../lib/tools/context.ts";
import { UiClient } from "../lib/ui/shared/client.ts";
import { DebugSessionRecorder } from "../lib/sessions/session_recorder.ts";

/** An adb whose every call rejects: a test that reaches a device passes its own `adb`. */
function missingAdb(): AdbClient {
  return new Proxy({}, {
    get: (_target, name) =>
      // Not thenable, so an awaited context field never hangs.
      name === "then" ? undefined : () =>
        Promise.reject(
          new Error(`testToolContext has no adb (called ${String(name)}): pass adb in overrides`),
        ),
  }) as AdbClient;
}

/**
 * A ToolContext: no project, standalone session, data dir `/nonexistent`, an empty environment,
 * a signal never aborted, progress dropped; the worker clients are created but start no worker
 * until called. `overrides` replace whole fields.
 */
export function testToolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    adb: missingAdb(),
    env: mapEnv({}),
    dataDir: "/nonexistent",
    project: null,
    session: {
      mode: "standalone",
      standaloneReason: "test",
      followsApp: false,
      pinnedProject: null,
    },
    signal: new AbortController().signal,
    request: { progress: () => {}, clientName: null, sessionId: "test" },
    builds: new BuildClient({ dataDir: "/nonexistent", version: "test" }),
    ui: new UiClient({ dataDir: "/nonexistent", adbServer: { host: "127.0.0.1", port: 5037 } }),
    uiActionIntervalMs: () => Promise.resolve(0),
    logcat: new LogcatClient({
      dataDir: "/nonexistent",
      address: { host: "127.0.0.1", port: 5037 },
    }),
    retrace: new RetraceClient({ dataDir: overrides.dataDir ?? "/nonexistent" }),
    sessions: new DebugSessionRecorder(overrides.dataDir ?? "/nonexistent"),
    recorder: new ScreenRecorder(overrides.adb ?? missingAdb()),
    ...overrides,
  };
}
