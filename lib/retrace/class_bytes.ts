/**
 * A class of a mapping read in place from the mapping's bytes (lib/retrace/mapping_index.ts holds
 * them): what lib/retrace/mapping.ts's lazyClassBlock() reads from the block's text, without
 * decoding the block. The class line's names and the class's metadata are read now; a method's
 * inline groups when a frame names it, decoding only the lines that end with its obfuscated name.
 * A class line that is not plain ASCII, or a method name that is not, is left to lazyClassBlock
 * (null here): the class line's offsets then may not be what CLASS_LINE's `\S` reads.
 * A new trace's frames each name a different class: decoding ~1.4 KB per class to read one of its
 * methods was most of a new trace's time and garbage. Pure.
 */
import {
  type ClassMapping,
  fieldNamesIn,
  type InlineGroup,
  LazyTable,
  type MemberEntry,
  metadataId,
  parseMethodLine,
} from "./mapping.ts";

const utf8 = new TextDecoder();

/** `bytes[from, to)` as text. */
function text(bytes: Uint8Array, from: number, to: number): string {
  return utf8.decode(bytes.subarray(from, to));
}

/** Whether `bytes[from, to)` is ASCII with no control byte but tabs and line ends. */
function plainAscii(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = bytes[i];
    if (c >= 0x80 || (c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 11 || c === 12) {
      return false;
    }
  }
  return true;
}

function lineEnd(bytes: Uint8Array, pos: number, end: number): number {
  const nl = bytes.indexOf(10, pos);
  return nl < 0 || nl > end ? end : nl;
}

/** The line `[at, end)` without its `\r`, as text. */
function lineText(bytes: Uint8Array, at: number, end: number): string {
  return text(bytes, at, end > at && bytes[end - 1] === 13 ? end - 1 : end);
}

/** The ASCII characters `String.prototype.trim` removes. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** Whether the line `[i, e)` (trailing spaces dropped) ends with `name`'s characters. */
function endsWith(bytes: Uint8Array, i: number, e: number, name: string): boolean {
  if (e - i < name.length) return false;
  const at = e - name.length;
  for (let k = 0; k < name.length; k++) if (bytes[at + k] !== name.charCodeAt(k)) return false;
  return true;
}

/** methodGroupsIn (lib/retrace/mapping.ts) over the bytes `[from, end)`; `obf` is ASCII. */
function methodGroupsAt(
  bytes: Uint8Array,
  from: number,
  end: number,
  owner: string,
  obf: string,
): InlineGroup[] {
  const groups: InlineGroup[] = [];
  let last: MemberEntry | null = null;
  for (let pos = from; pos < end;) {
    const le = lineEnd(bytes, pos, end);
    const at = pos;
    pos = le + 1;
    let i = at;
    while (i < le && (bytes[i] === 32 || bytes[i] === 9)) i++;
    if (i === le || (i === le - 1 && bytes[i] === 13)) continue;
    if (bytes[i] === 35) {
      if (last && i > at) {
        const line = lineText(bytes, at, le);
        if (line.includes('"id"') && metadataId(line.slice(i - at))?.id === SYNTHESIZED) {
          last.synthesized = true;
        }
      }
      continue;
    }
    // Only a line ending with `obf` once trimmed can be one of its methods (a line ending in a
    // non-ASCII character, which may be a space trim() removes, is decoded and checked).
    let e = le;
    while (e > i && isSpace(bytes[e - 1])) e--;
    if (bytes[e - 1] < 0x80 && !endsWith(bytes, i, e, obf)) {
      last = null;
      continue;
    }
    const line = lineText(bytes, at, le);
    const arrow = line.lastIndexOf(" -> ");
    const m = arrow >= 0 && line.slice(arrow + 4).trim() === obf
      ? parseMethodLine(line, i - at, owner)
      : null;
    if (!m) {
      last = null;
      continue;
    }
    const prev = groups.at(-1);
    if (
      prev && last && prev.minStart === m.entry.minStart && prev.minEnd === m.entry.minEnd &&
      m.entry.minStart !== null
    ) {
      prev.frames.push(m.entry);
    } else {
      groups.push({ minStart: m.entry.minStart, minEnd: m.entry.minEnd, frames: [m.entry] });
    }
    last = m.entry;
  }
  return groups;
}

const SYNTHESIZED = "com.android.tools.r8.synthesized";

/** The bytes a class's `sourceFile` line starts with, as R8 writes it. */
const SOURCE_FILE_HEAD = new TextEncoder().encode('# {"id":"sourceFile","fileName":"');

/**
 * The file name of the metadata line `[p, le)` when it is exactly R8's
 * `# {"id":"sourceFile","fileName":"X"}` with X plain ASCII and no escape (what metadataId()
 * reads of it, without decoding the line and parsing its JSON); `null` for any other line.
 */
function sourceFileAt(bytes: Uint8Array, p: number, le: number): string | null {
  const n = SOURCE_FILE_HEAD.length;
  if (le - p < n + 2) return null;
  for (let k = 0; k < n; k++) if (bytes[p + k] !== SOURCE_FILE_HEAD[k]) return null;
  let q = p + n;
  while (q < le) {
    const c = bytes[q];
    if (c === 34) break;
    if (c < 32 || c >= 0x7f || c === 92) return null;
    q++;
  }
  // `"}` ends the line (a `\r` before its `\n` allowed).
  const tail = bytes[le - 1] === 13 ? le - 1 : le;
  if (q + 2 !== tail || bytes[q] !== 34 || bytes[q + 1] !== 125) return null;
  return text(bytes, p + n, q);
}

function isAsciiName(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/**
 * The class whose block is `bytes[start, end)`, its class line `[start, nl)` named by the
 * offsets `at` (lib/retrace/mapping_index.ts's classLine: original end, obfuscated start and
 * end); null when the class line is not plain ASCII (lazyClassBlock reads it then).
 */
export function classAt(
  bytes: Uint8Array,
  start: number,
  end: number,
  nl: number,
  at: readonly [number, number, number],
  fallback: () => ClassMapping,
  name?: string,
  group?: 1 | 2,
): ClassMapping | null {
  if (!plainAscii(bytes, start, nl)) return null;
  // `name` is the original (`group` 1) or obfuscated name the class line was found by.
  const original = group === 1 && name !== undefined ? name : text(bytes, start, at[0]);
  const from = Math.min(nl + 1, end);
  let sourceFile: string | null = null;
  let synthesized = false;
  // The class's metadata: `#` lines that are not indented.
  for (let p = bytes.indexOf(35, from); p >= 0 && p < end; p = bytes.indexOf(35, p + 1)) {
    if (bytes[p - 1] !== 10) continue;
    const le = lineEnd(bytes, p, end);
    const file = sourceFileAt(bytes, p, le);
    if (file !== null) {
      sourceFile = file;
      continue;
    }
    const line = lineText(bytes, p, le);
    if (!line.includes('"id"')) continue;
    const meta = metadataId(line);
    if (meta?.id === "sourceFile" && meta.fileName !== undefined) sourceFile = meta.fileName;
    else if (meta?.id === SYNTHESIZED) synthesized = true;
  }
  const obfuscated = group === 2 && name !== undefined ? name : text(bytes, at[1], at[2]);
  return new BytesClass(
    bytes,
    start,
    end,
    from,
    original,
    obfuscated,
    sourceFile,
    synthesized,
    fallback,
  );
}

/**
 * A class read from the bytes: one object per class a trace names (its tables made on first
 * use), since every class kept in the index's cache is garbage the collector copies.
 */
class BytesClass implements ClassMapping {
  #methods: LazyTable<InlineGroup[]> | null = null;
  #fields: LazyTable<string[]> | null = null;
  #whole: ClassMapping | null = null;
  constructor(
    readonly bytes: Uint8Array,
    readonly start: number,
    readonly end: number,
    /** Where the line after the class line starts. */
    readonly from: number,
    readonly original: string,
    readonly obfuscated: string,
    readonly sourceFile: string | null,
    readonly synthesized: boolean,
    readonly fallback: () => ClassMapping,
  ) {}

  get methods(): LazyTable<InlineGroup[]> {
    return this.#methods ??= new LazyTable((obf) => {
      if (!isAsciiName(obf)) return (this.#whole ??= this.fallback()).methods.get(obf);
      const g = methodGroupsAt(this.bytes, this.from, this.end, this.original, obf);
      return g.length > 0 ? g : undefined;
    });
  }

  get fields(): LazyTable<string[]> {
    return this.#fields ??= new LazyTable((obf) => {
      const f = fieldNamesIn(
        text(this.bytes, this.start, this.end),
        this.from - this.start,
        this.original,
        obf,
      );
      return f.length > 0 ? f : undefined;
    });
  }
}
