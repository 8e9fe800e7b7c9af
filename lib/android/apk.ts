/**
 * What an APK says about itself: the ZIP's `AndroidManifest.xml`, in Android's binary XML (AXML),
 * read without the SDK. Pure: callers hand in the APK's bytes (the install path reads them from
 * the very file it checked).
 *
 * ZIP: PKWARE APPNOTE 6.3 (end record 0x06054b50, central directory 0x02014b50, local header
 * 0x04034b50; methods 0 stored and 8 deflate). AXML chunk layout and attribute resource ids:
 * AOSP `libs/androidfw/include/androidfw/ResourceTypes.h` (ResChunk_header, ResStringPool_header
 * with UTF8_FLAG 0x100, ResXMLTree_node / attrExt / attribute, Res_value) and the framework's
 * `public.xml` (android:name 0x01010003, versionCode 0x0101021b, versionName 0x0101021c,
 * minSdkVersion 0x0101020c, targetSdkVersion 0x01010270, enabled 0x0101000e, exported 0x01010010).
 */
import { concatBytes } from "../core/bytes.ts";
import { type RandomAccess, readAt } from "../core/file_read.ts";

/** Largest APK the install path reads into memory. */
export const MAX_APK_BYTES = 1024 * 1024 * 1024;
/** Largest (uncompressed) AndroidManifest.xml we decode. */
const MAX_MANIFEST_ENTRY_BYTES = 8 * 1024 * 1024;
/** Central-directory entries scanned for the manifest. */
const MAX_ZIP_ENTRIES = 100_000;
/** Strings read from the manifest's pool. */
const MAX_AXML_STRINGS = 200_000;
/** Element depth and count we walk. */
const MAX_AXML_DEPTH = 64;
const MAX_AXML_ELEMENTS = 100_000;
/** Activities (and aliases) listed in a manifest summary. */
const MAX_LISTED_ACTIVITIES = 200;

const MANIFEST_ENTRY = "AndroidManifest.xml";

/** The APK could not be read as a ZIP with a binary manifest. */
export class ApkFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApkFormatError";
  }
}

const fail = (why: string): never => {
  throw new ApkFormatError(why);
};

// ── ZIP ──────────────────────────────────────────────────────────────────────────────────────

interface CentralEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const EOCD_SIG = 0x06054b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const EOCD_MIN = 22;
const MAX_COMMENT = 0xffff;

function findEndRecord(view: DataView): number {
  const last = view.byteLength - EOCD_MIN;
  const first = Math.max(0, last - MAX_COMMENT);
  for (let at = last; at >= first; at--) {
    if (view.getUint32(at, true) === EOCD_SIG) return at;
  }
  return fail("no ZIP end record (not an APK, or truncated)");
}

/** The ZIP's central directory. Pure. */
export function listZipEntries(bytes: Uint8Array): CentralEntry[] {
  if (bytes.length < EOCD_MIN) fail("the file is too short to be a ZIP");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndRecord(view);
  const { count, cdSize, cdOffset } = endRecordFields(view, end);
  if (cdOffset + cdSize > end) fail("the central directory lies outside the file");
  return parseCentralDirectory(bytes.subarray(cdOffset, cdOffset + cdSize), count);
}

function endRecordFields(view: DataView, end: number) {
  const count = view.getUint16(end + 10, true);
  const cdSize = view.getUint32(end + 12, true);
  const cdOffset = view.getUint32(end + 16, true);
  if (cdOffset === 0xffffffff || count === 0xffff) fail("ZIP64 archives are not supported");
  return { count, cdSize, cdOffset };
}

/** Entries of a central directory's bytes (`count` of them, at most `MAX_ZIP_ENTRIES`). Pure. */
function parseCentralDirectory(cd: Uint8Array, count: number): CentralEntry[] {
  const view = new DataView(cd.buffer, cd.byteOffset, cd.byteLength);
  const out: CentralEntry[] = [];
  const dec = new TextDecoder();
  let at = 0;
  for (let i = 0; i < Math.min(count, MAX_ZIP_ENTRIES); i++) {
    if (at + 46 > cd.length || view.getUint32(at, true) !== CENTRAL_SIG) {
      fail("a central directory entry is damaged");
    }
    const nameLen = view.getUint16(at + 28, true);
    const extraLen = view.getUint16(at + 30, true);
    const commentLen = view.getUint16(at + 32, true);
    out.push({
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
      name: dec.decode(cd.subarray(at + 46, at + 46 + nameLen)),
    });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** Bytes that can be read at any position: an open file, or bytes in memory. */

/** `bytes` as a `RandomAccess`. */
function bytesAccess(bytes: Uint8Array): RandomAccess {
  return {
    size: bytes.length,
    read(buf, position) {
      const part = bytes.subarray(position, position + buf.length);
      buf.set(part);
      return Promise.resolve(part.length);
    },
  };
}

/** Exactly `length` bytes at `position`, or an `ApkFormatError` naming `what` when short. */
async function readExactly(
  src: RandomAccess,
  position: number,
  length: number,
  what: string,
): Promise<Uint8Array> {
  const buf = await readAt(src, position, length);
  if (buf.length !== length) fail(`${what} is truncated`);
  return buf;
}

/** Largest central directory read (100,000 entries of ordinary names fit well within it). */
const MAX_CENTRAL_DIRECTORY_BYTES = 32 * 1024 * 1024;

/**
 * The bytes of one entry (stored or deflated, at most `max`), read from `src` by position: the
 * end record, the central directory and that entry only — never the whole file.
 */
async function readZipEntryFrom(
  src: RandomAccess,
  name: string,
  max = MAX_MANIFEST_ENTRY_BYTES,
): Promise<Uint8Array> {
  if (src.size < EOCD_MIN) fail("the file is too short to be a ZIP");
  const tailLen = Math.min(src.size, EOCD_MIN + MAX_COMMENT);
  const tailStart = src.size - tailLen;
  const tail = await readExactly(src, tailStart, tailLen, "the ZIP end record");
  const tailView = new DataView(tail.buffer);
  const endRel = findEndRecord(tailView);
  const { count, cdSize, cdOffset } = endRecordFields(tailView, endRel);
  if (cdOffset + cdSize > tailStart + endRel) fail("the central directory lies outside the file");
  if (cdSize > MAX_CENTRAL_DIRECTORY_BYTES) {
    fail(`the central directory is ${cdSize} bytes (over ${MAX_CENTRAL_DIRECTORY_BYTES})`);
  }
  const cd = await readExactly(src, cdOffset, cdSize, "the central directory");
  const entry = parseCentralDirectory(cd, count).find((e) => e.name === name) ??
    fail(`it has no ${name}`);
  if (entry.size > max) fail(`${name} is ${entry.size} bytes (over ${max})`);
  if (entry.compressedSize > max) fail(`${name} is ${entry.compressedSize} bytes compressed`);
  if (entry.localOffset + 30 > src.size) fail(`the local header of ${name} is damaged`);
  const local = await readExactly(src, entry.localOffset, 30, `the local header of ${name}`);
  const lv = new DataView(local.buffer);
  if (lv.getUint32(0, true) !== LOCAL_SIG) fail(`the local header of ${name} is damaged`);
  const start = entry.localOffset + 30 + lv.getUint16(26, true) + lv.getUint16(28, true);
  const data = await readExactly(src, start, entry.compressedSize, name);
  if (entry.method === 0) return data;
  if (entry.method === 8) return await inflateRaw(data, max);
  return fail(`${name} uses ZIP method ${entry.method} (only stored and deflate are read)`);
}

async function inflateRaw(data: Uint8Array, max: number): Promise<Uint8Array> {
  const stream = new Blob([data as BlobPart]).stream().pipeThrough(
    new DecompressionStream("deflate-raw"),
  );
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > max) fail(`the entry inflates to more than ${max} bytes`);
    parts.push(chunk);
  }
  return concatBytes(parts, total);
}

/** The bytes of one entry (stored or deflated), at most `max`. */
export async function readZipEntry(
  bytes: Uint8Array,
  name: string,
  max = MAX_MANIFEST_ENTRY_BYTES,
): Promise<Uint8Array> {
  return await readZipEntryFrom(bytesAccess(bytes), name, max);
}

// ── Binary XML ───────────────────────────────────────────────────────────────────────────────

interface XmlAttribute {
  /** The namespace URI, `""` for none. */
  ns: string;
  name: string;
  /** Strings as written; ints and booleans in decimal; references as `@0x7f…`. */
  value: string;
}

interface XmlElement {
  name: string;
  attrs: XmlAttribute[];
  children: XmlElement[];
}

const ANDROID_NS = "http://schemas.android.com/apk/res/android";
const CHUNK_XML = 0x0003;
const CHUNK_STRING_POOL = 0x0001;
const CHUNK_RESOURCE_MAP = 0x0180;
const CHUNK_START_ELEMENT = 0x0102;
const CHUNK_END_ELEMENT = 0x0103;
const UTF8_FLAG = 0x100;
const NO_INDEX = 0xffffffff;

/** Framework attribute ids → names, for manifests whose attribute-name strings were stripped. */
const ATTR_NAMES: Record<number, string> = {
  0x01010003: "name",
  0x0101000e: "enabled",
  0x01010010: "exported",
  0x0101020c: "minSdkVersion",
  0x0101021b: "versionCode",
  0x0101021c: "versionName",
  0x01010270: "targetSdkVersion",
};

const TYPE_REFERENCE = 0x01;
const TYPE_STRING = 0x03;
const TYPE_INT_DEC = 0x10;
const TYPE_INT_HEX = 0x11;
const TYPE_BOOLEAN = 0x12;

function readStringPool(view: DataView, at: number, bytes: Uint8Array): string[] {
  const headerSize = view.getUint16(at + 2, true);
  const count = view.getUint32(at + 8, true);
  const flags = view.getUint32(at + 16, true);
  const stringsStart = view.getUint32(at + 20, true);
  if (count > MAX_AXML_STRINGS) fail(`the manifest has ${count} strings`);
  const utf8 = (flags & UTF8_FLAG) !== 0;
  const base = at + stringsStart;
  const out: string[] = [];
  const u8 = new TextDecoder("utf-8");
  for (let i = 0; i < count; i++) {
    let p = base + view.getUint32(at + headerSize + i * 4, true);
    if (utf8) {
      // UTF-16 length (skipped), then UTF-8 byte length, each 1 or 2 bytes (high bit = 2).
      p += (view.getUint8(p) & 0x80) ? 2 : 1;
      let len = view.getUint8(p);
      if (len & 0x80) len = ((len & 0x7f) << 8) | view.getUint8(p + 1), p += 2;
      else p += 1;
      out.push(u8.decode(bytes.subarray(p, p + len)));
    } else {
      let len = view.getUint16(p, true);
      if (len & 0x8000) len = ((len & 0x7fff) << 16) | view.getUint16(p + 2, true), p += 4;
      else p += 2;
      const codes: number[] = [];
      for (let k = 0; k < len; k++) codes.push(view.getUint16(p + k * 2, true));
      let s = "";
      for (let k = 0; k < codes.length; k += 4096) {
        s += String.fromCharCode(...codes.slice(k, k + 4096));
      }
      out.push(s);
    }
  }
  return out;
}

/** Decodes a binary XML document into an element tree. Pure. */
export function parseAxml(bytes: Uint8Array): XmlElement {
  try {
    return parseAxmlUnchecked(bytes);
  } catch (e) {
    if (e instanceof ApkFormatError) throw e;
    // RangeError from DataView: an offset points past the end.
    throw new ApkFormatError(`the binary manifest is damaged (${(e as Error).message})`);
  }
}

function parseAxmlUnchecked(bytes: Uint8Array): XmlElement {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 || view.getUint16(0, true) !== CHUNK_XML) {
    fail("AndroidManifest.xml is not binary XML (was the APK built by aapt?)");
  }
  let strings: string[] = [];
  let resIds: number[] = [];
  const str = (i: number) => (i === NO_INDEX ? "" : strings[i] ?? "");
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let elements = 0;
  let at = view.getUint16(2, true);
  const end = Math.min(bytes.length, view.getUint32(4, true));
  while (at + 8 <= end) {
    const type = view.getUint16(at, true);
    const headerSize = view.getUint16(at + 2, true);
    const size = view.getUint32(at + 4, true);
    if (size < 8 || at + size > end) fail("a binary XML chunk overruns the file");
    if (type === CHUNK_STRING_POOL) strings = readStringPool(view, at, bytes);
    else if (type === CHUNK_RESOURCE_MAP) {
      resIds = [];
      for (let p = at + headerSize; p + 4 <= at + size; p += 4) {
        resIds.push(view.getUint32(p, true));
      }
    } else if (type === CHUNK_START_ELEMENT) {
      if (++elements > MAX_AXML_ELEMENTS) fail("the manifest has too many elements");
      if (stack.length >= MAX_AXML_DEPTH) fail("the manifest nests too deeply");
      const ext = at + headerSize;
      const attrStart = view.getUint16(ext + 8, true);
      const attrSize = view.getUint16(ext + 10, true);
      const attrCount = view.getUint16(ext + 12, true);
      const el: XmlElement = { name: str(view.getUint32(ext + 4, true)), attrs: [], children: [] };
      for (let k = 0; k < attrCount; k++) {
        const a = ext + attrStart + k * attrSize;
        const nameIdx = view.getUint32(a + 4, true);
        let name = str(nameIdx);
        if (name === "" || (nameIdx < resIds.length && ATTR_NAMES[resIds[nameIdx]])) {
          name = ATTR_NAMES[resIds[nameIdx]] ?? name;
        }
        const raw = view.getUint32(a + 8, true);
        const dataType = view.getUint8(a + 15);
        const data = view.getUint32(a + 16, true);
        let value: string;
        if (raw !== NO_INDEX) value = str(raw);
        else if (dataType === TYPE_STRING) value = str(data);
        else if (dataType === TYPE_INT_DEC) value = String(data | 0);
        else if (dataType === TYPE_INT_HEX) value = `0x${data.toString(16)}`;
        else if (dataType === TYPE_BOOLEAN) value = data !== 0 ? "true" : "false";
        else if (dataType === TYPE_REFERENCE) value = `@0x${data.toString(16).padStart(8, "0")}`;
        else value = String(data);
        el.attrs.push({ ns: str(view.getUint32(a, true)), name, value });
      }
      if (stack.length === 0) {
        if (root !== null) fail("the manifest has two root elements");
        root = el;
      } else stack[stack.length - 1].children.push(el);
      stack.push(el);
    } else if (type === CHUNK_END_ELEMENT) {
      stack.pop();
    }
    at += size;
  }
  return root ?? fail("the manifest has no elements");
}

// ── The manifest ─────────────────────────────────────────────────────────────────────────────

export interface ApkManifest {
  package: string;
  version_code: number | null;
  version_name: string | null;
  min_sdk: number | null;
  target_sdk: number | null;
  /** The activity (or alias) with MAIN + LAUNCHER, fully qualified; `null` when none. */
  launcher_activity: string | null;
  /** Declared activities and aliases, fully qualified (at most `MAX_LISTED_ACTIVITIES`). */
  activities: string[];
}

function attr(el: XmlElement, name: string, android = true): string | null {
  const a = el.attrs.find((x) => x.name === name && (android ? x.ns === ANDROID_NS : x.ns === ""));
  return a ? a.value : null;
}

function intOrNull(v: string | null): number | null {
  if (v === null || !/^-?\d+$/.test(v)) return null;
  return Number(v);
}

/** `.Main` / `Main` → `pkg.Main`; fully qualified names stay. Pure. */
export function qualifyClassName(pkg: string, name: string): string {
  if (name.startsWith(".")) return pkg + name;
  return name.includes(".") ? name : `${pkg}.${name}`;
}

function isLauncher(el: XmlElement): boolean {
  return el.children.some((f) =>
    f.name === "intent-filter" &&
    f.children.some((c) =>
      c.name === "action" && attr(c, "name") === "android.intent.action.MAIN"
    ) &&
    f.children.some((c) =>
      c.name === "category" && attr(c, "name") === "android.intent.category.LAUNCHER"
    )
  );
}

/** The facts of a decoded manifest tree. Pure. */
export function manifestFacts(root: XmlElement): ApkManifest {
  if (root.name !== "manifest") fail(`the root element is <${root.name}>, not <manifest>`);
  const pkg = attr(root, "package", false) ?? fail("the manifest has no package attribute");
  if (!/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/.test(pkg)) {
    fail(`the manifest's package ${JSON.stringify(pkg.slice(0, 100))} is not a package name`);
  }
  const usesSdk = root.children.find((c) => c.name === "uses-sdk");
  const app = root.children.find((c) => c.name === "application");
  const activities: string[] = [];
  let launcher: string | null = null;
  for (const c of app?.children ?? []) {
    if (c.name !== "activity" && c.name !== "activity-alias") continue;
    const name = attr(c, "name");
    if (!name) continue;
    const full = qualifyClassName(pkg, name);
    if (activities.length < MAX_LISTED_ACTIVITIES) activities.push(full);
    if (launcher === null && attr(c, "enabled") !== "false" && isLauncher(c)) launcher = full;
  }
  return {
    package: pkg,
    version_code: intOrNull(attr(root, "versionCode")),
    version_name: attr(root, "versionName"),
    min_sdk: usesSdk ? intOrNull(attr(usesSdk, "minSdkVersion")) : null,
    target_sdk: usesSdk ? intOrNull(attr(usesSdk, "targetSdkVersion")) : null,
    launcher_activity: launcher,
    activities,
  };
}

/** The manifest facts of an APK's bytes; `ApkFormatError` says why it cannot be read. */
export async function readApkManifest(apk: Uint8Array): Promise<ApkManifest> {
  return await readApkManifestFrom(bytesAccess(apk));
}

/** The manifest facts of an APK read by position (an open file): only the entries it needs. */
export async function readApkManifestFrom(src: RandomAccess): Promise<ApkManifest> {
  return manifestFacts(parseAxml(await readZipEntryFrom(src, MANIFEST_ENTRY)));
}

/** Chunk size `sha256OfAccess` reads. */
const HASH_CHUNK_BYTES = 1024 * 1024;

/** Lowercase hex SHA-256 of everything `src` holds, read in `HASH_CHUNK_BYTES` chunks. */
export async function sha256OfAccess(src: RandomAccess): Promise<string> {
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256");
  const buf = new Uint8Array(Math.min(HASH_CHUNK_BYTES, Math.max(1, src.size)));
  let pos = 0;
  while (pos < src.size) {
    const n = await src.read(buf.subarray(0, Math.min(buf.length, src.size - pos)), pos);
    if (n === 0) throw new ApkFormatError(`the file ended after ${pos} of ${src.size} bytes`);
    hash.update(buf.subarray(0, n));
    pos += n;
  }
  return hash.digest("hex");
}
