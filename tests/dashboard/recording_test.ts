/**
 * Screen recordings end to end: an agent records through `keynobi app`, the MP4 lands in the data
 * directory and in the device's open debug session, and the dashboard serves it from that
 * session's timeline (and nothing outside the recordings folder).
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  BUILD_TIMEOUT_MS,
  call as callTool,
  errorOf,
  ok as okOf,
  startApp,
  startWorld,
  trusted,
} from "../e2e/harness.ts";
import { agent, dashboardUrl, login } from "./_app.ts";
import type { ScreenRecordService } from "../sim/screenrecord/service.ts";

/** stop_screen_recording (and start_screen_recording's pid). */
interface Recording {
  pid: number;
  ended_by: string;
  path: string;
  file: string;
  bytes: number;
}

/** GET /api/sessions/:id, the fields read. */
interface SessionView {
  timeline: { kind: string; data: { file: string } }[];
}

const SERIAL = "emulator-5554";
const PKG = "com.example.keynobi.sample.demo.debug";

async function ffprobe(path: string): Promise<string | null> {
  try {
    const out = await new Deno.Command("ffprobe", {
      args: ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path],
      stdout: "piped",
      stderr: "null",
    }).output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : null;
  } catch {
    return null;
  }
}

Deno.test("screen recording: start, stop, kept in the data dir and the session, served by the dashboard", async () => {
  await using world = await startWorld();
  const project = await trusted(world, "sample-kts", { realPath: true });
  await world.sim.gradle("sample-kts").setTaskDelay(0);
  await using app = await startApp(world, ["--project", project]);
  const url = await dashboardUrl(app);
  const cookie = await login(url);
  await using a = await agent(world, "recorder");
  const call = (name: string, args: Record<string, unknown>) =>
    callTool(a, name, args, { timeoutMs: BUILD_TIMEOUT_MS });
  const ok = async <T = Recording>(name: string, args: Record<string, unknown>) =>
    okOf<T>(await call(name, args), name);
  await ok("run_gradle_task", { task: "assembleDemoDebug" });
  await ok("install_apk", {
    device_serial: SERIAL,
    apk_path: "app/build/outputs/apk/demo/debug/app-demo-debug.apk",
  });
  await ok("launch_app", { device_serial: SERIAL, package: PKG });

  const bad = await call("start_screen_recording", { device_serial: SERIAL, size: "721x1280" });
  assertEquals(bad.isError, true);
  assertEquals(errorOf(bad).code, "invalid_params");
  const none = await call("stop_screen_recording", { device_serial: SERIAL });
  assertEquals(errorOf(none).code, "not_found");

  const rec = world.sim.device(SERIAL).service<ScreenRecordService>("screenrecord")!;
  const started = await ok("start_screen_recording", { device_serial: SERIAL, time_limit_s: 60 });
  assertEquals(rec.recordings.size, 1, "screenrecord runs on the device");
  assertEquals([...rec.recordings.keys()][0], started.pid);
  const twice = await call("start_screen_recording", { device_serial: SERIAL });
  assertEquals(errorOf(twice).code, "device_busy");
  await ok("ui_tap", { device_serial: SERIAL, x: 100, y: 300 });
  const stopped = await call("stop_screen_recording", { device_serial: SERIAL });
  const saved = okOf<Recording>(stopped, "stop_screen_recording");
  assertEquals([saved.ended_by, rec.recordings.size], ["stop", 0]);
  assertEquals(saved.path, `${world.dataDir}/recordings/${saved.file}`);
  assertStringIncludes(stopped.content[0].text!, `Saved ${saved.path}`);
  const bytes = await Deno.readFile(saved.path);
  assertEquals(new TextDecoder().decode(bytes.subarray(4, 8)), "ftyp");
  assertEquals(bytes.length, saved.bytes);
  assertEquals((await Deno.stat(saved.path)).mode! & 0o777, 0o600);
  // Taken off the device once copied.
  assertEquals(world.sim.device(SERIAL).files.has(rec.written[0]), false);
  const codec = await ffprobe(saved.path);
  if (codec === null) console.log("ffprobe not installed: the MP4's stream is not checked");
  else assertEquals(codec, "h264");

  // A recording that reached its time limit is still kept, and says so.
  await ok("start_screen_recording", { device_serial: SERIAL, time_limit_s: 1 });
  await new Promise((r) => setTimeout(r, 1_500));
  const limited = await ok("stop_screen_recording", { device_serial: SERIAL });
  assertEquals(limited.ended_by, "time_limit");

  // The session's timeline names the recording; the dashboard serves the file from it.
  const list = await ok<{ sessions: { id: string }[] }>("list_debug_sessions", { package: PKG });
  const id = list.sessions[0].id;
  const view: SessionView = await (await fetch(new URL(`/api/sessions/${id}`, url), {
    headers: { cookie },
  })).json();
  const shown = view.timeline.filter((e) => e.kind === "recording");
  assertEquals(shown.map((e) => e.data.file), [saved.file, limited.file]);
  const got = await fetch(new URL(`/api/recordings/${encodeURIComponent(saved.file)}`, url), {
    headers: { cookie },
  });
  assertEquals([got.status, got.headers.get("content-type")], [200, "video/mp4"]);
  assertEquals(new Uint8Array(await got.arrayBuffer()), bytes);
  // Only plain names inside the recordings folder, and only with the dashboard's cookie.
  for (const p of ["..%2Fsettings.json", "%2Fetc%2Fpasswd", "x.txt", ".hidden.mp4"]) {
    const r = await fetch(new URL(`/api/recordings/${p}`, url), { headers: { cookie } });
    await r.body?.cancel();
    assertEquals(r.status, 404, p);
  }
  const anon = await fetch(new URL(`/api/recordings/${encodeURIComponent(saved.file)}`, url));
  await anon.body?.cancel();
  assert(anon.status === 401 || anon.status === 403, `without the cookie: ${anon.status}`);
});
