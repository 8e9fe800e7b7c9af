/**
 * Test-only readers for what the fake Gradle writes, written from the formats' specs and not from
 * the writer, so a wrong writer cannot hide behind a matching reader: ZIP through its central
 * directory (stored entries only, CRC checked) and the `<manifest>` attributes of binary XML.
 */

const CRC = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc(d: Uint8Array): number {
  let c = ~0;
  for (const b of d) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** Entry name → bytes, in central-directory order. Throws on anything malformed. */
export function readStoredZip(bytes: Uint8Array): Map<string, Uint8Array> {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = bytes.length - 22;
  if (v.getUint32(eocd, true) !== 0x06054b50) throw new Error("no end of central directory");
  const count = v.getUint16(eocd + 10, true);
  let at = v.getUint32(eocd + 16, true);
  const out = new Map<string, Uint8Array>();
  const dec = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (v.getUint32(at, true) !== 0x02014b50) throw new Error(`bad central header ${i}`);
    const method = v.getUint16(at + 10, true);
    const sum = v.getUint32(at + 16, true);
    const size = v.getUint32(at + 20, true);
    const nameLen = v.getUint16(at + 28, true);
    const extra = v.getUint16(at + 30, true);
    const comment = v.getUint16(at + 32, true);
    const local = v.getUint32(at + 42, true);
    const name = dec.decode(bytes.subarray(at + 46, at + 46 + nameLen));
    if (method !== 0) throw new Error(`${name} is not stored`);
    if (v.getUint32(local, true) !== 0x04034b50) throw new Error(`bad local header ${name}`);
    const start = local + 30 + v.getUint16(local + 26, true) + v.getUint16(local + 28, true);
    const data = bytes.subarray(start, start + size);
    if (crc(data) !== sum) throw new Error(`${name}: CRC mismatch`);
    out.set(name, data);
    at += 46 + nameLen + extra + comment;
  }
  return out;
}

/** `package`, `versionCode`, `versionName` of the root `<manifest>` element of an AXML file. */
export function readAxmlManifest(bytes: Uint8Array): Record<string, string | number> {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint16(0, true) !== 0x0003) throw new Error("not binary XML");
  let at = v.getUint16(2, true);
  let strings: string[] = [];
  while (at < bytes.length) {
    const type = v.getUint16(at, true);
    const headerSize = v.getUint16(at + 2, true);
    const size = v.getUint32(at + 4, true);
    if (type === 0x0001) {
      const n = v.getUint32(at + 8, true);
      if (v.getUint32(at + 16, true) & 0x100) throw new Error("UTF-8 pool not expected");
      const base = at + v.getUint32(at + 20, true);
      strings = Array.from({ length: n }, (_, i) => {
        const off = base + v.getUint32(at + headerSize + i * 4, true);
        const len = v.getUint16(off, true);
        let s = "";
        for (let k = 0; k < len; k++) s += String.fromCharCode(v.getUint16(off + 2 + k * 2, true));
        return s;
      });
    } else if (type === 0x0102 && strings[v.getUint32(at + 20, true)] === "manifest") {
      const start = at + 16 + v.getUint16(at + 24, true);
      const each = v.getUint16(at + 26, true);
      const out: Record<string, string | number> = {};
      for (let i = 0; i < v.getUint16(at + 28, true); i++) {
        const a = start + i * each;
        const name = strings[v.getUint32(a + 4, true)];
        const dataType = v.getUint8(a + 15);
        const data = v.getUint32(a + 16, true);
        out[name] = dataType === 0x03 ? strings[data] : data;
      }
      return out;
    }
    at += size;
  }
  throw new Error("no <manifest> element");
}
