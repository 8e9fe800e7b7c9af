/**
 * Reads what the package manager needs from an APK: the ZIP central directory (stored and
 * deflated entries), then `AndroidManifest.xml` as Android binary XML (AXML). Written from the
 * formats (PKWARE APPNOTE; AOSP `ResourceTypes.h` chunk layout and `public.xml` attribute ids),
 * independently of the fake Gradle's writer, so a wrong writer cannot hide behind this reader.
 */

/** Largest APK the simulated package manager accepts. */
export const MAX_APK_BYTES = 64 * 1024 * 1024;
/** Largest inflated manifest read. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Bound on AXML strings and elements read. */
export const MAX_AXML_ITEMS = 100_000;

export class ApkError extends Error {}

export interface ZipDirEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** The central directory of a ZIP archive. Throws ApkError when it is not one. */
export function zipDirectory(bytes: Uint8Array): ZipDirEntry[] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65535); at--) {
    if (v.getUint32(at, true) === 0x06054b50) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new ApkError("no end of central directory record");
  const count = v.getUint16(eocd + 10, true);
  let at = v.getUint32(eocd + 16, true);
  const out: ZipDirEntry[] = [];
  for (let k = 0; k < count; k++) {
    if (at + 46 > bytes.length || v.getUint32(at, true) !== 0x02014b50) {
      throw new ApkError("bad central directory entry");
    }
    const nameLen = v.getUint16(at + 28, true);
    const extraLen = v.getUint16(at + 30, true);
    const commentLen = v.getUint16(at + 32, true);
    out.push({
      method: v.getUint16(at + 10, true),
      compressedSize: v.getUint32(at + 20, true),
      size: v.getUint32(at + 24, true),
      localOffset: v.getUint32(at + 42, true),
      name: new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLen)),
    });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** One stored (uncompressed) entry's bytes, synchronously; `null` when absent or deflated. */
export function storedZipEntry(bytes: Uint8Array, name: string): Uint8Array | null {
  let e: ZipDirEntry | undefined;
  try {
    e = zipDirectory(bytes).find((x) => x.name === name);
  } catch {
    return null;
  }
  if (!e || e.method !== 0) return null;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = e.localOffset;
  if (at + 30 > bytes.length || v.getUint32(at, true) !== 0x04034b50) return null;
  const start = at + 30 + v.getUint16(at + 26, true) + v.getUint16(at + 28, true);
  const raw = bytes.subarray(start, start + e.compressedSize);
  return raw.length === e.compressedSize ? raw : null;
}

/** What the fake Gradle stamped as broken in an APK's app (`defects=` in classes.dex). */
export function apkDefects(bytes: Uint8Array): string[] {
  const dex = storedZipEntry(bytes, "classes.dex");
  if (!dex) return [];
  const m = /^defects=(.*)$/m.exec(new TextDecoder().decode(dex));
  return m ? m[1].split(",").filter(Boolean) : [];
}

/** One entry's bytes (stored or deflated). */
export async function zipEntry(bytes: Uint8Array, e: ZipDirEntry): Promise<Uint8Array> {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = e.localOffset;
  if (at + 30 > bytes.length || v.getUint32(at, true) !== 0x04034b50) {
    throw new ApkError(`bad local header for ${e.name}`);
  }
  const start = at + 30 + v.getUint16(at + 26, true) + v.getUint16(at + 28, true);
  const raw = bytes.subarray(start, start + e.compressedSize);
  if (raw.length !== e.compressedSize) throw new ApkError(`truncated entry ${e.name}`);
  if (e.size > MAX_MANIFEST_BYTES) throw new ApkError(`entry ${e.name} too large`);
  if (e.method === 0) return raw;
  if (e.method !== 8) throw new ApkError(`unsupported compression ${e.method}`);
  const stream = new Blob([raw.slice()]).stream().pipeThrough(
    new DecompressionStream("deflate-raw"),
  );
  const out = new Uint8Array(await new Response(stream).arrayBuffer());
  if (out.length !== e.size) throw new ApkError(`inflated size mismatch for ${e.name}`);
  return out;
}

// --- AXML ---------------------------------------------------------------------------------------

export interface AxmlElement {
  name: string;
  /** Attribute values by name (android: prefix dropped); strings, numbers or booleans. */
  attrs: Record<string, string | number | boolean>;
  children: AxmlElement[];
}

/** Framework attribute resource ids (public.xml) → the names we read. */
const ATTR_BY_ID: Record<number, string> = {
  0x01010003: "name",
  0x01010010: "exported",
  0x0101020c: "minSdkVersion",
  0x0101021b: "versionCode",
  0x0101021c: "versionName",
  0x01010270: "targetSdkVersion",
  0x01010026: "mimeType",
  0x01010027: "scheme",
  0x01010028: "host",
  0x0101002a: "path",
  0x0101002b: "pathPrefix",
  0x0101002c: "pathPattern",
};

function readPool(b: Uint8Array, v: DataView, at: number): string[] {
  const headerSize = v.getUint16(at + 2, true);
  const count = v.getUint32(at + 8, true);
  const flags = v.getUint32(at + 16, true);
  const stringsStart = at + v.getUint32(at + 20, true);
  if (count > MAX_AXML_ITEMS) throw new ApkError("string pool too large");
  const utf8 = (flags & 0x100) !== 0;
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    let p = stringsStart + v.getUint32(at + headerSize + k * 4, true);
    if (utf8) {
      // u16 char count then u8 byte count, each one or two bytes (high bit = two).
      p += (b[p] & 0x80) ? 2 : 1;
      let len = b[p];
      if (len & 0x80) {
        len = ((len & 0x7f) << 8) | b[p + 1];
        p += 2;
      } else p += 1;
      out.push(new TextDecoder().decode(b.subarray(p, p + len)));
    } else {
      let len = v.getUint16(p, true);
      if (len & 0x8000) {
        len = ((len & 0x7fff) << 16) | v.getUint16(p + 2, true);
        p += 4;
      } else p += 2;
      let s = "";
      for (let i = 0; i < len; i++) s += String.fromCharCode(v.getUint16(p + i * 2, true));
      out.push(s);
    }
  }
  return out;
}

/** Parses binary XML into its element tree. Throws ApkError on anything malformed. */
export function parseAxml(b: Uint8Array): AxmlElement {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length < 8 || v.getUint16(0, true) !== 0x0003) throw new ApkError("not binary XML");
  let strings: string[] = [];
  let resIds: number[] = [];
  const stack: AxmlElement[] = [];
  let root: AxmlElement | null = null;
  let at = v.getUint16(2, true);
  let items = 0;
  try {
    while (at + 8 <= b.length) {
      const type = v.getUint16(at, true);
      const headerSize = v.getUint16(at + 2, true);
      const size = v.getUint32(at + 4, true);
      if (size < 8 || at + size > b.length) throw new ApkError("bad chunk size");
      if (++items > MAX_AXML_ITEMS) throw new ApkError("too many chunks");
      if (type === 0x0001) strings = readPool(b, v, at);
      else if (type === 0x0180) {
        resIds = [];
        for (let p = at + headerSize; p + 4 <= at + size; p += 4) resIds.push(v.getUint32(p, true));
      } else if (type === 0x0102) {
        const ext = at + headerSize;
        const name = strings[v.getUint32(ext + 4, true)] ?? "";
        const attrStart = v.getUint16(ext + 8, true);
        const attrSize = v.getUint16(ext + 10, true);
        const attrCount = v.getUint16(ext + 12, true);
        const el: AxmlElement = { name, attrs: {}, children: [] };
        for (let k = 0; k < attrCount; k++) {
          const a = ext + attrStart + k * attrSize;
          const nameIdx = v.getUint32(a + 4, true);
          const attrName = ATTR_BY_ID[resIds[nameIdx]] ?? strings[nameIdx] ?? "";
          const raw = v.getUint32(a + 8, true);
          const dataType = v.getUint8(a + 15);
          const data = v.getUint32(a + 16, true);
          let value: string | number | boolean;
          if (dataType === 0x03) value = strings[data] ?? strings[raw] ?? "";
          else if (dataType === 0x12) value = data !== 0;
          else if (dataType === 0x10 || dataType === 0x11) value = data | 0;
          else if (dataType === 0x01) value = `@0x${data.toString(16).padStart(8, "0")}`;
          else value = raw !== 0xffffffff ? (strings[raw] ?? data) : data;
          el.attrs[attrName] = value;
        }
        if (stack.length) stack[stack.length - 1].children.push(el);
        else if (!root) root = el;
        stack.push(el);
      } else if (type === 0x0103) {
        stack.pop();
      }
      at += size;
    }
  } catch (e) {
    if (e instanceof ApkError) throw e;
    throw new ApkError(`malformed binary XML: ${(e as Error).message}`);
  }
  if (!root) throw new ApkError("no root element");
  return root;
}

// --- the manifest as the package manager sees it --------------------------------------------

export interface IntentFilter {
  actions: string[];
  categories: string[];
  schemes: string[];
  hosts: string[];
  pathPrefixes: string[];
}

export interface ActivityInfo {
  /** Fully qualified class name. */
  name: string;
  exported: boolean;
  filters: IntentFilter[];
}

export interface ApkInfo {
  packageName: string;
  versionCode: number;
  versionName: string;
  minSdk: number;
  targetSdk: number;
  activities: ActivityInfo[];
  /** `uses-permission` names, in manifest order. */
  permissions: string[];
}

/** The manifest facts of an APK's bytes. Throws ApkError when they are not an APK. */
export async function readApk(bytes: Uint8Array): Promise<ApkInfo> {
  if (bytes.length > MAX_APK_BYTES) throw new ApkError("APK too large");
  const entry = zipDirectory(bytes).find((e) => e.name === "AndroidManifest.xml");
  if (!entry) throw new ApkError("no AndroidManifest.xml");
  const root = parseAxml(await zipEntry(bytes, entry));
  if (root.name !== "manifest") throw new ApkError("root element is not <manifest>");
  const pkg = String(root.attrs.package ?? "");
  if (!/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/.test(pkg)) {
    throw new ApkError(`invalid package name ${JSON.stringify(pkg)}`);
  }
  const sdk = root.children.find((c) => c.name === "uses-sdk");
  const app = root.children.find((c) => c.name === "application");
  const qualify = (n: string) => n.startsWith(".") ? pkg + n : n.includes(".") ? n : `${pkg}.${n}`;
  const activities: ActivityInfo[] = (app?.children ?? [])
    .filter((c) => c.name === "activity" || c.name === "activity-alias")
    .map((a) => ({
      name: qualify(String(a.attrs.name ?? "")),
      exported: a.attrs.exported === true,
      filters: a.children.filter((f) => f.name === "intent-filter").map((f) => {
        const pick = (tag: string, attr: string) =>
          f.children.filter((c) => c.name === tag && c.attrs[attr] !== undefined)
            .map((c) => String(c.attrs[attr]));
        return {
          actions: pick("action", "name"),
          categories: pick("category", "name"),
          schemes: pick("data", "scheme"),
          hosts: pick("data", "host"),
          pathPrefixes: pick("data", "pathPrefix"),
        };
      }),
    }));
  return {
    packageName: pkg,
    versionCode: Number(root.attrs.versionCode ?? 0),
    versionName: String(root.attrs.versionName ?? ""),
    minSdk: Number(sdk?.attrs.minSdkVersion ?? 1),
    targetSdk: Number(sdk?.attrs.targetSdkVersion ?? sdk?.attrs.minSdkVersion ?? 1),
    activities,
    permissions: root.children.filter((c) => c.name === "uses-permission")
      .map((c) => String(c.attrs.name ?? "")).filter(Boolean),
  };
}
