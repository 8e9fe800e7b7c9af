import {
  ApkFormatError,
  listZipEntries,
  manifestFacts,
  parseAxml,
  qualifyClassName,
  readApkManifest,
  readZipEntry,
} from "../../lib/android/apk.ts";
import { sha256Hex } from "../../lib/core/hash.ts";
import { apkBytes, crc32, zip } from "../sim/gradle/artifacts.ts";
import { assertEquals, assertRejects, assertThrows } from "../assert.ts";

const enc = new TextEncoder();

// ── A small AXML writer of our own: UTF-8 string pool, no resource map (names by string). ────

interface El {
  name: string;
  attrs: [ns: boolean, name: string, value: string | number | boolean][];
  children: El[];
}

const NS = "http://schemas.android.com/apk/res/android";

function axmlUtf8(root: El): Uint8Array {
  const strings: string[] = [];
  const idx = (s: string) => {
    let i = strings.indexOf(s);
    if (i < 0) i = strings.push(s) - 1;
    return i;
  };
  idx("android");
  idx(NS);
  const walk = (e: El) => {
    idx(e.name);
    for (const [, n, v] of e.attrs) (idx(n), typeof v === "string" && idx(v));
    e.children.forEach(walk);
  };
  walk(root);
  const bodies = strings.map((s) => {
    const b = enc.encode(s);
    return new Uint8Array([s.length, b.length, ...b, 0]);
  });
  const data = bodies.reduce((n, b) => n + b.length, 0);
  const padded = (data + 3) & ~3;
  const pool = new DataView(new ArrayBuffer(28 + strings.length * 4 + padded));
  pool.setUint16(0, 1, true);
  pool.setUint16(2, 28, true);
  pool.setUint32(4, pool.byteLength, true);
  pool.setUint32(8, strings.length, true);
  pool.setUint32(16, 0x100, true);
  pool.setUint32(20, 28 + strings.length * 4, true);
  let off = 0;
  bodies.forEach((b, i) => {
    pool.setUint32(28 + i * 4, off, true);
    new Uint8Array(pool.buffer).set(b, 28 + strings.length * 4 + off);
    off += b.length;
  });
  const chunks: Uint8Array[] = [new Uint8Array(pool.buffer)];
  const emit = (e: El) => {
    const d = new DataView(new ArrayBuffer(36 + e.attrs.length * 20));
    d.setUint16(0, 0x0102, true);
    d.setUint16(2, 16, true);
    d.setUint32(4, d.byteLength, true);
    d.setUint32(16, 0xffffffff, true);
    d.setUint32(20, idx(e.name), true);
    d.setUint16(24, 20, true);
    d.setUint16(26, 20, true);
    d.setUint16(28, e.attrs.length, true);
    e.attrs.forEach(([ns, n, v], i) => {
      const at = 36 + i * 20;
      d.setUint32(at, ns ? idx(NS) : 0xffffffff, true);
      d.setUint32(at + 4, idx(n), true);
      d.setUint32(at + 8, typeof v === "string" ? idx(v) : 0xffffffff, true);
      d.setUint16(at + 12, 8, true);
      d.setUint8(at + 15, typeof v === "string" ? 3 : typeof v === "boolean" ? 0x12 : 0x10);
      d.setUint32(
        at + 16,
        typeof v === "string" ? idx(v) : typeof v === "boolean" ? (v ? 0xffffffff : 0) : v,
        true,
      );
    });
    chunks.push(new Uint8Array(d.buffer));
    e.children.forEach(emit);
    const end = new DataView(new ArrayBuffer(24));
    end.setUint16(0, 0x0103, true);
    end.setUint16(2, 16, true);
    end.setUint32(4, 24, true);
    end.setUint32(16, 0xffffffff, true);
    end.setUint32(20, idx(e.name), true);
    chunks.push(new Uint8Array(end.buffer));
  };
  emit(root);
  const total = 8 + chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(total);
  const h = new DataView(out.buffer);
  h.setUint16(0, 3, true);
  h.setUint16(2, 8, true);
  h.setUint32(4, total, true);
  let at = 8;
  for (const c of chunks) (out.set(c, at), at += c.length);
  return out;
}

async function deflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const s = new Blob([data as BlobPart]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/** A one-entry ZIP whose entry is deflated (method 8), as aapt2/zipalign usually write. */
async function deflatedZip(name: string, data: Uint8Array): Promise<Uint8Array> {
  const comp = await deflateRaw(data);
  const n = enc.encode(name);
  const local = new DataView(new ArrayBuffer(30));
  local.setUint32(0, 0x04034b50, true);
  local.setUint16(8, 8, true);
  local.setUint32(14, crc32(data), true);
  local.setUint32(18, comp.length, true);
  local.setUint32(22, data.length, true);
  local.setUint16(26, n.length, true);
  const cd = new DataView(new ArrayBuffer(46));
  cd.setUint32(0, 0x02014b50, true);
  cd.setUint16(10, 8, true);
  cd.setUint32(16, crc32(data), true);
  cd.setUint32(20, comp.length, true);
  cd.setUint32(24, data.length, true);
  cd.setUint16(28, n.length, true);
  const cdOffset = 30 + n.length + comp.length;
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, 1, true);
  end.setUint16(10, 1, true);
  end.setUint32(12, 46 + n.length, true);
  end.setUint32(16, cdOffset, true);
  const parts = [new Uint8Array(local.buffer), n, comp, new Uint8Array(cd.buffer), n];
  parts.push(new Uint8Array(end.buffer));
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), at += p.length);
  return out;
}

const launcherManifest: El = {
  name: "manifest",
  attrs: [[false, "package", "com.example.shop"], [true, "versionCode", 42], [
    true,
    "versionName",
    "2.1-beta",
  ]],
  children: [
    {
      name: "uses-sdk",
      attrs: [[true, "minSdkVersion", 24], [true, "targetSdkVersion", 35]],
      children: [],
    },
    {
      name: "application",
      attrs: [],
      children: [
        { name: "activity", attrs: [[true, "name", ".SettingsActivity"]], children: [] },
        {
          name: "activity",
          attrs: [[true, "name", ".ui.MainActivity"], [true, "exported", true]],
          children: [{
            name: "intent-filter",
            attrs: [],
            children: [
              {
                name: "action",
                attrs: [[true, "name", "android.intent.action.MAIN"]],
                children: [],
              },
              {
                name: "category",
                attrs: [[true, "name", "android.intent.category.LAUNCHER"]],
                children: [],
              },
            ],
          }],
        },
      ],
    },
  ],
};

Deno.test("readApkManifest() reads a deflated UTF-8 manifest with a launcher filter", async () => {
  const apk = await deflatedZip("AndroidManifest.xml", axmlUtf8(launcherManifest));
  assertEquals(listZipEntries(apk).map((e) => e.method), [8]);
  const m = await readApkManifest(apk);
  assertEquals(m.package, "com.example.shop");
  assertEquals(m.version_code, 42);
  assertEquals(m.version_name, "2.1-beta");
  assertEquals(m.min_sdk, 24);
  assertEquals(m.target_sdk, 35);
  assertEquals(m.launcher_activity, "com.example.shop.ui.MainActivity");
  assertEquals(m.activities, [
    "com.example.shop.SettingsActivity",
    "com.example.shop.ui.MainActivity",
  ]);
});

Deno.test("readApkManifest() reads the simulator's stored UTF-16 APK (resource-map names)", async () => {
  const variant = {
    name: "demoDebug",
    cap: "DemoDebug",
    flavor: "demo",
    buildType: { name: "debug", application_id_suffix: ".debug" },
    applicationId: "com.example.app.demo.debug",
    versionName: "1.4-demo",
  };
  const apk = apkBytes({
    variant,
    versionCode: 7,
    minSdk: 26,
    launcherActivity: "com.example.app.MainActivity",
    build: 3,
  });
  const m = await readApkManifest(apk);
  assertEquals(m.package, "com.example.app.demo.debug");
  assertEquals(m.version_code, 7);
  assertEquals(m.version_name, "1.4-demo");
  assertEquals(m.min_sdk, 26);
  // No intent filter in that manifest: the launcher is left to the device to resolve.
  assertEquals(m.launcher_activity, null);
  assertEquals(m.activities, ["com.example.app.MainActivity"]);
});

Deno.test("manifestFacts() ignores a disabled launcher and refuses a non-package", () => {
  const disabled: El = structuredClone(launcherManifest);
  disabled.children[1].children[1].attrs.push([true, "enabled", false]);
  assertEquals(manifestFacts(parseAxml(axmlUtf8(disabled))).launcher_activity, null);
  const bad: El = { ...launcherManifest, attrs: [[false, "package", "not a package"]] };
  assertThrows(() => manifestFacts(parseAxml(axmlUtf8(bad))), ApkFormatError);
});

Deno.test("readApkManifest() refuses what is not an APK", async () => {
  await assertRejects(() => readApkManifest(enc.encode("hello, not a zip")), /ZIP/);
  const noManifest = zip([{ name: "classes.dex", data: enc.encode("dex\n035\0") }]);
  await assertRejects(() => readApkManifest(noManifest), /AndroidManifest\.xml/);
  const textManifest = zip([{ name: "AndroidManifest.xml", data: enc.encode("<manifest/>") }]);
  await assertRejects(() => readApkManifest(textManifest), /not binary XML/);
  const truncated = axmlUtf8(launcherManifest).slice(0, 60);
  const cut = zip([{ name: "AndroidManifest.xml", data: truncated }]);
  await assertRejects(() => readApkManifest(cut), ApkFormatError);
});

Deno.test("readZipEntry() enforces the size bound", async () => {
  const big = zip([{ name: "AndroidManifest.xml", data: new Uint8Array(1000) }]);
  await assertRejects(() => readZipEntry(big, "AndroidManifest.xml", 100), /over 100/);
});

Deno.test("qualifyClassName() and sha256Hex()", async () => {
  assertEquals(qualifyClassName("a.b", ".Main"), "a.b.Main");
  assertEquals(qualifyClassName("a.b", "Main"), "a.b.Main");
  assertEquals(qualifyClassName("a.b", "x.y.Main"), "x.y.Main");
  assertEquals(
    await sha256Hex(enc.encode("abc")),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});
