/**
 * What a build leaves behind, as bytes: a ZIP with stored entries (APK, AAB), a binary XML
 * AndroidManifest (AXML, the format aapt2 links, so APK readers find the package and version),
 * AGP's `output-metadata.json` and JUnit XML reports. Pure.
 *
 * ZIP layout: PKWARE APPNOTE 6.3 (local header 0x04034b50, central directory 0x02014b50, end
 * record 0x06054b50). AXML chunk types and attribute resource ids: AOSP
 * `frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h` and `public.xml`.
 */
import type { Variant } from "./manifest.ts";
import { dexTableLine, type FrameRewrite } from "./r8.ts";

const enc = new TextEncoder();

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of data) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export interface ZipEntry {
  name: string;
  data: Uint8Array;
}

/** A ZIP archive with every entry stored (method 0); names ending in `/` are folders. */
export function zip(entries: ZipEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  // 1980-01-01 00:00 in DOS time: reproducible bytes for equal inputs.
  const dosTime = 0;
  const dosDate = (0 << 9) | (1 << 5) | 1;
  for (const e of entries) {
    const name = enc.encode(e.name);
    const crc = crc32(e.data);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 10, true);
    local.setUint16(6, 0x0800, true); // UTF-8 names
    local.setUint16(8, 0, true);
    local.setUint16(10, dosTime, true);
    local.setUint16(12, dosDate, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, e.data.length, true);
    local.setUint32(22, e.data.length, true);
    local.setUint16(26, name.length, true);
    local.setUint16(28, 0, true);
    const cd = new DataView(new ArrayBuffer(46));
    cd.setUint32(0, 0x02014b50, true);
    cd.setUint16(4, 0x031e, true); // made by: unix, 3.0
    cd.setUint16(6, 10, true);
    cd.setUint16(8, 0x0800, true);
    cd.setUint16(10, 0, true);
    cd.setUint16(12, dosTime, true);
    cd.setUint16(14, dosDate, true);
    cd.setUint32(16, crc, true);
    cd.setUint32(20, e.data.length, true);
    cd.setUint32(24, e.data.length, true);
    cd.setUint16(28, name.length, true);
    cd.setUint32(38, (e.name.endsWith("/") ? 0o40755 : 0o100644) << 16, true);
    cd.setUint32(42, offset, true);
    parts.push(new Uint8Array(local.buffer), name, e.data);
    central.push(new Uint8Array(cd.buffer), name);
    offset += 30 + name.length + e.data.length;
  }
  const cdSize = central.reduce((n, p) => n + p.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, cdSize, true);
  end.setUint32(16, offset, true);
  return concat([...parts, ...central, new Uint8Array(end.buffer)]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), at += p.length);
  return out;
}

// --- binary XML -------------------------------------------------------------------------------

const ANDROID_NS = "http://schemas.android.com/apk/res/android";
/** android:versionCode, versionName, minSdkVersion, targetSdkVersion, name (public.xml). */
const ATTR_IDS: Record<string, number> = {
  versionCode: 0x0101021b,
  versionName: 0x0101021c,
  minSdkVersion: 0x0101020c,
  targetSdkVersion: 0x01010270,
  name: 0x01010003,
};
const TYPE_STRING = 0x03;
const TYPE_INT_DEC = 0x10;

interface XmlAttr {
  android: boolean;
  name: string;
  value: string | number;
}
interface XmlElement {
  name: string;
  attrs: XmlAttr[];
  children: XmlElement[];
}

/** Minimal AXML encoder: UTF-16 string pool, resource map, one namespace, elements. */
function axml(root: XmlElement): Uint8Array {
  // Attribute names with resource ids must come first in the pool, in resource-map order.
  const ids = Object.keys(ATTR_IDS);
  const strings: string[] = [...ids];
  const idx = (s: string) => {
    let i = strings.indexOf(s);
    if (i < 0) i = strings.push(s) - 1;
    return i;
  };
  const walk = (e: XmlElement) => {
    idx(e.name);
    for (const a of e.attrs) {
      idx(a.name);
      if (typeof a.value === "string") idx(a.value);
    }
    e.children.forEach(walk);
  };
  idx("android");
  idx(ANDROID_NS);
  walk(root);

  const chunks: Uint8Array[] = [];
  // String pool (RES_STRING_POOL_TYPE 0x0001), UTF-16.
  const bodies = strings.map((s) => {
    const b = new DataView(new ArrayBuffer(2 + s.length * 2 + 2));
    b.setUint16(0, s.length, true);
    for (let i = 0; i < s.length; i++) b.setUint16(2 + i * 2, s.charCodeAt(i), true);
    return new Uint8Array(b.buffer);
  });
  const dataLen = bodies.reduce((n, b) => n + b.length, 0);
  const padded = (dataLen + 3) & ~3;
  const poolHeader = 28;
  const poolSize = poolHeader + strings.length * 4 + padded;
  const pool = new DataView(new ArrayBuffer(poolSize));
  pool.setUint16(0, 0x0001, true);
  pool.setUint16(2, poolHeader, true);
  pool.setUint32(4, poolSize, true);
  pool.setUint32(8, strings.length, true);
  pool.setUint32(12, 0, true);
  pool.setUint32(16, 0, true);
  pool.setUint32(20, poolHeader + strings.length * 4, true);
  pool.setUint32(24, 0, true);
  let off = 0;
  bodies.forEach((b, i) => {
    pool.setUint32(poolHeader + i * 4, off, true);
    new Uint8Array(pool.buffer).set(b, poolHeader + strings.length * 4 + off);
    off += b.length;
  });
  chunks.push(new Uint8Array(pool.buffer));
  // Resource map (RES_XML_RESOURCE_MAP_TYPE 0x0180).
  const map = new DataView(new ArrayBuffer(8 + ids.length * 4));
  map.setUint16(0, 0x0180, true);
  map.setUint16(2, 8, true);
  map.setUint32(4, 8 + ids.length * 4, true);
  ids.forEach((k, i) => map.setUint32(8 + i * 4, ATTR_IDS[k], true));
  chunks.push(new Uint8Array(map.buffer));

  const node = (type: number, size: number, line: number) => {
    const d = new DataView(new ArrayBuffer(size));
    d.setUint16(0, type, true);
    d.setUint16(2, 16, true);
    d.setUint32(4, size, true);
    d.setUint32(8, line, true);
    d.setUint32(12, 0xffffffff, true);
    return d;
  };
  const nsIdx = strings.indexOf(ANDROID_NS);
  const ns = (type: number) => {
    const d = node(type, 24, 1);
    d.setUint32(16, strings.indexOf("android"), true);
    d.setUint32(20, nsIdx, true);
    chunks.push(new Uint8Array(d.buffer));
  };
  ns(0x0100);
  let line = 1;
  const emit = (e: XmlElement) => {
    line++;
    const d = node(0x0102, 36 + e.attrs.length * 20, line);
    d.setUint32(16, 0xffffffff, true);
    d.setUint32(20, strings.indexOf(e.name), true);
    d.setUint16(24, 20, true);
    d.setUint16(26, 20, true);
    d.setUint16(28, e.attrs.length, true);
    e.attrs.forEach((a, i) => {
      const at = 36 + i * 20;
      d.setUint32(at, a.android ? nsIdx : 0xffffffff, true);
      d.setUint32(at + 4, strings.indexOf(a.name), true);
      const isStr = typeof a.value === "string";
      d.setUint32(at + 8, isStr ? strings.indexOf(a.value as string) : 0xffffffff, true);
      d.setUint16(at + 12, 8, true);
      d.setUint8(at + 15, isStr ? TYPE_STRING : TYPE_INT_DEC);
      d.setUint32(at + 16, isStr ? strings.indexOf(a.value as string) : a.value as number, true);
    });
    chunks.push(new Uint8Array(d.buffer));
    e.children.forEach(emit);
    const end = node(0x0103, 24, line);
    end.setUint32(16, 0xffffffff, true);
    end.setUint32(20, strings.indexOf(e.name), true);
    chunks.push(new Uint8Array(end.buffer));
  };
  emit(root);
  ns(0x0101);
  const body = concat(chunks);
  const head = new DataView(new ArrayBuffer(8));
  head.setUint16(0, 0x0003, true);
  head.setUint16(2, 8, true);
  head.setUint32(4, 8 + body.length, true);
  return concat([new Uint8Array(head.buffer), body]);
}

// --- build outputs ----------------------------------------------------------------------------

export interface BuildIdentity {
  variant: Variant;
  versionCode: number;
  minSdk: number;
  launcherActivity: string;
  /** Build number of this sim: makes each build's bytes (and SHA-256) differ. */
  build: number;
  /** A minified build: how R8 rewrote the app's frames (carried in classes.dex). */
  r8?: readonly FrameRewrite[];
  /** What is broken in this build's app (`sign_in`), stamped in classes.dex. */
  defects?: readonly string[];
}

/** The binary AndroidManifest.xml of an APK for this variant. */
export function manifestAxml(b: BuildIdentity): Uint8Array {
  return axml({
    name: "manifest",
    attrs: [
      { android: true, name: "versionCode", value: b.versionCode },
      { android: true, name: "versionName", value: b.variant.versionName },
      { android: false, name: "package", value: b.variant.applicationId },
    ],
    children: [
      {
        name: "uses-sdk",
        attrs: [
          { android: true, name: "minSdkVersion", value: b.minSdk },
          { android: true, name: "targetSdkVersion", value: 35 },
        ],
        children: [],
      },
      {
        name: "application",
        attrs: [],
        children: [{
          name: "activity",
          attrs: [{ android: true, name: "name", value: b.launcherActivity }],
          children: [],
        }],
      },
    ],
  });
}

function stamp(b: BuildIdentity, what: string): Uint8Array {
  return enc.encode(
    `keynobi simulator ${what}\nvariant=${b.variant.name}\napplicationId=${b.variant.applicationId}\n` +
      `build=${b.build}\n`,
  );
}

/** APK bytes: manifest, a dex placeholder (real magic), resources, and META-INF. */
export function apkBytes(b: BuildIdentity): Uint8Array {
  const dexMagic = enc.encode("dex\n035\0");
  return zip([
    { name: "AndroidManifest.xml", data: manifestAxml(b) },
    {
      name: "classes.dex",
      data: concat([
        dexMagic,
        stamp(b, "classes.dex"),
        ...(b.defects?.length ? [enc.encode(`defects=${b.defects.join(",")}\n`)] : []),
        ...(b.r8 ? [enc.encode(dexTableLine(b.r8))] : []),
      ]),
    },
    { name: "resources.arsc", data: stamp(b, "resources.arsc") },
    { name: "META-INF/", data: new Uint8Array() },
    {
      name: "META-INF/MANIFEST.MF",
      data: enc.encode("Manifest-Version: 1.0\r\nCreated-By: keynobi simulator\r\n\r\n"),
    },
  ]);
}

/** Android App Bundle bytes: the module layout bundletool expects, placeholders inside. */
export function aabBytes(b: BuildIdentity): Uint8Array {
  return zip([
    { name: "BundleConfig.pb", data: stamp(b, "BundleConfig.pb") },
    { name: "base/manifest/AndroidManifest.xml", data: manifestAxml(b) },
    { name: "base/dex/classes.dex", data: stamp(b, "classes.dex") },
    { name: "base/resources.pb", data: stamp(b, "resources.pb") },
    { name: "META-INF/", data: new Uint8Array() },
  ]);
}

/** `app-demo-debug.apk`: module name, flavor, build type joined by dashes. */
export function apkFileName(moduleDir: string, v: Variant): string {
  return [moduleDir, ...(v.flavor ? [v.flavor] : []), v.buildType.name].join("-") + ".apk";
}

/** AGP's `output-metadata.json` (version 3) for one APK. */
export function outputMetadata(
  v: Variant,
  versionCode: number,
  minSdk: number,
  outputFile: string,
): string {
  return JSON.stringify(
    {
      version: 3,
      artifactType: { type: "APK", kind: "Directory" },
      applicationId: v.applicationId,
      variantName: v.name,
      elements: [{
        type: "SINGLE",
        filters: [],
        attributes: [],
        versionCode,
        versionName: v.versionName,
        outputFile,
      }],
      elementType: "File",
      minSdkVersionForDexing: minSdk,
    },
    null,
    2,
  );
}

function xmlEscape(s: string): string {
  return s.replace(
    /[<>&"]/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]!,
  );
}

/** A JUnit XML report as Gradle's `test` task writes it. */
export function junitXml(
  className: string,
  tests: { name: string; failure?: string }[],
  timestamp: string,
): string {
  const failures = tests.filter((x) => x.failure).length;
  const cases = tests.map((x) => {
    const open = `  <testcase name="${xmlEscape(x.name)}" classname="${className}" time="0.004"`;
    if (!x.failure) return `${open}/>`;
    const first = x.failure.split("\n")[0];
    return `${open}>\n    <failure message="${xmlEscape(first)}" type="${
      xmlEscape(first.split(":")[0])
    }">${xmlEscape(x.failure)}</failure>\n  </testcase>`;
  }).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="${className}" tests="${tests.length}" ` +
    `skipped="0" failures="${failures}" errors="0" timestamp="${timestamp}" hostname="localhost" ` +
    `time="0.012">\n  <properties/>\n${cases}\n  <system-out><![CDATA[]]></system-out>\n` +
    `  <system-err><![CDATA[]]></system-err>\n</testsuite>\n`;
}
