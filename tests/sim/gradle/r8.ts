/**
 * What R8 does to the sample app in a minified (release) build, for the simulator: the
 * `mapping.txt` it writes (`build/outputs/mapping/<variant>/mapping.txt`, R8 8.x format with
 * `pg_map_id` / `pg_map_hash`, Kotlin `sourceFile` metadata, an inlined call, a synthesized
 * member), and how the sample's crash frames look once obfuscated. R8 8.x names the source file of
 * every obfuscated class `r8-map-id-<map id>`, so a release crash names its mapping in each frame.
 *
 * The obfuscation table rides in the APK's `classes.dex` placeholder (the simulator's stand-in for
 * obfuscated bytecode); the device's crash writer reads it from the installed APK. Pure.
 *
 * Frames are the ones tests/sim/logcat/crashes.ts prints for the sample app (`<pkg>.MainActivity`,
 * `<pkg>.data.SampleRepository`, …), `<pkg>` being the application id the process runs as.
 */

const enc = new TextEncoder();

/** One obfuscation: consecutive original frames (innermost first) → the one frame R8 leaves. */
export interface FrameRewrite {
  from: string[];
  to: string;
}

/** The marker line in classes.dex that carries the table (JSON after it). */
export const DEX_TABLE_MARKER = "keynobi-sim-r8-frames:";

function body(pkg: string): string {
  return [
    `${pkg}.MainActivity -> ${pkg}.MainActivity:`,
    `# {"id":"sourceFile","fileName":"MainActivity.kt"}`,
    `    1:10:void onCreate(android.os.Bundle):20:29 -> onCreate`,
    `    1:1:void $r8$lambda$Xq3(android.view.View):0:0 -> a`,
    `      # {"id":"com.android.tools.r8.synthesized"}`,
    `${pkg}.data.SampleRepository -> a.a:`,
    `# {"id":"sourceFile","fileName":"SampleRepository.kt"}`,
    `    1:3:void load():36:38 -> a`,
    `    4:4:int ${pkg}.data.SampleParser.parseCount(java.lang.String):17:17 -> a`,
    `    4:4:void load():39 -> a`,
    `    5:7:void load():40:42 -> a`,
    `${pkg}.data.SampleParser -> a.b:`,
    `# {"id":"sourceFile","fileName":"SampleParser.kt"}`,
    `    1:3:int parseCount(java.lang.String):15:17 -> a`,
    `${pkg}.ui.DetailActivity -> ${pkg}.ui.DetailActivity:`,
    `# {"id":"sourceFile","fileName":"DetailActivity.kt"}`,
    `    1:12:void onSaveClicked(android.view.View):50:61 -> onSaveClicked`,
    `${pkg}.net.ApiClient -> a.c:`,
    `# {"id":"sourceFile","fileName":"ApiClient.kt"}`,
    `    1:6:java.util.List fetchItems():30:35 -> a`,
    `${pkg}.sync.SyncWorker$run$1 -> a.d:`,
    `# {"id":"sourceFile","fileName":"SyncWorker.kt"}`,
    `    1:4:java.lang.Object invokeSuspend(java.lang.Object):19:22 -> m`,
    "",
  ].join("\n");
}

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", enc.encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export interface R8Output {
  mapping: string;
  mapId: string;
  table: FrameRewrite[];
}

/**
 * The mapping R8 writes for the sample app as `pkg`, and the frame rewrites it implies. The map id
 * is the first 7 hex digits of the hash of the mapping's body, as R8's `pg_map_id`.
 */
export async function sampleR8(pkg: string): Promise<R8Output> {
  const text = body(pkg);
  const hash = await sha256Hex(text);
  const mapId = hash.slice(0, 7);
  const header = [
    "# compiler: R8",
    "# compiler_version: 8.5.35",
    "# min_api: 24",
    `# {"id":"com.android.tools.r8.mapping","version":"2.2"}`,
    `# pg_map_id: ${mapId}`,
    `# pg_map_hash: SHA-256 ${hash}`,
  ].join("\n");
  const src = `r8-map-id-${mapId}`;
  const table: FrameRewrite[] = [
    {
      from: [
        `${pkg}.data.SampleParser.parseCount(SampleParser.kt:17)`,
        `${pkg}.data.SampleRepository.load(SampleRepository.kt:39)`,
      ],
      to: `a.a.a(${src}:4)`,
    },
    { from: [`${pkg}.data.SampleRepository.load(SampleRepository.kt:42)`], to: `a.a.a(${src}:7)` },
    {
      from: [`${pkg}.MainActivity.onCreate(MainActivity.kt:27)`],
      to: `${pkg}.MainActivity.onCreate(${src}:8)`,
    },
    {
      from: [`${pkg}.ui.DetailActivity.onSaveClicked(DetailActivity.kt:58)`],
      to: `${pkg}.ui.DetailActivity.onSaveClicked(${src}:9)`,
    },
    { from: [`${pkg}.net.ApiClient.fetchItems(ApiClient.kt:33)`], to: `a.c.a(${src}:4)` },
    {
      from: [`${pkg}.sync.SyncWorker$run$1.invokeSuspend(SyncWorker.kt:21)`],
      to: `a.d.m(${src}:3)`,
    },
  ];
  return { mapping: `${header}\n${body(pkg)}`, mapId, table };
}

/** The classes.dex line that carries `table`. */
export function dexTableLine(table: readonly FrameRewrite[]): string {
  return `${DEX_TABLE_MARKER}${JSON.stringify(table)}\n`;
}

/** The table in a classes.dex placeholder, or `null` for a build R8 did not touch. */
export function readDexTable(dex: Uint8Array): FrameRewrite[] | null {
  const text = new TextDecoder().decode(dex);
  const at = text.indexOf(DEX_TABLE_MARKER);
  if (at < 0) return null;
  const end = text.indexOf("\n", at);
  try {
    const v = JSON.parse(text.slice(at + DEX_TABLE_MARKER.length, end < 0 ? undefined : end));
    return Array.isArray(v) ? v as FrameRewrite[] : null;
  } catch {
    return null;
  }
}

/** `frames` (innermost first, as printed after `at `) with R8's rewrites applied. Pure. */
export function obfuscateFrames(
  frames: readonly string[],
  table: readonly FrameRewrite[],
): string[] {
  const out: string[] = [];
  for (let k = 0; k < frames.length;) {
    const hit = table.find((r) => r.from.every((f, j) => frames[k + j] === f));
    if (hit) {
      out.push(hit.to);
      k += hit.from.length;
    } else {
      out.push(frames[k]);
      k++;
    }
  }
  return out;
}
