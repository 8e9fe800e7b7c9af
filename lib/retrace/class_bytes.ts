/**
 * A class of a mapping read in place from the mapping's bytes (lib/retrace/mapping_index.ts holds
 * them): what lib/retrace/mapping.ts's lazyClassBlock() reads from the block's text, without
 * decoding the block or walking it. The class line's names and the class's metadata are read
 * now, the metadata from the lines lib/retrace/member_lines.ts recorded; a method's inline groups
 * when a frame names it, from the recorded lines whose name hash is its obfuscated name's, each
 * group's range read in place and its frames decoded only when asked for. A class line that is
 * not plain ASCII, or a method name or member line that is not, is left to lazyClassBlock (null
 * here): offsets then may not be what CLASS_LINE's `\S` reads.
 * A new trace's frames each name a different class: decoding or walking ~1.4 KB per class to read
 * one of its methods was most of a new trace's time and garbage. Pure.
 */
import {
  type ClassMapping,
  fieldNamesIn,
  type InlineGroup,
  LazyTable,
  MemberCache,
  type MemberEntry,
  metadataId,
} from "./mapping.ts";
import {
  CLOSE,
  endsWith,
  lineText,
  memberSpan,
  methodLineAt,
  MIN_END,
  MIN_START,
  NAME_FROM,
  OPEN,
  ORIG_END,
  ORIG_START,
  orNull,
  rangeHolds,
  read,
  SOURCE_FILE_HEAD,
  sourceFileEnd,
  span,
  SPAN_FROM,
  SPAN_TO,
  SPAN_TRIMMED,
  SYNTHESIZED,
  synthesizedMark,
  text,
  TYPE_FROM,
  TYPE_TO,
} from "./line_bytes.ts";
import {
  AFTER_OTHER,
  CLASS_META,
  HASH,
  KIND,
  KINDS,
  mayHold,
  MEMBER_META,
  NOT_ASCII,
  plainAscii,
  RANGE,
  READ_RANGE,
  RECORD,
  recordEnd,
  START,
} from "./member_lines.ts";

/**
 * One inline chain read in place: its minified range now (all a trace's line needs to pick
 * it), its frames decoded the first time they are asked for — a trace's frame names one group
 * of a method, and decoding every line a name ends with was most of a new trace's time. Its
 * lines are kept as offsets (past the indentation, the end without `\r`) and read again then.
 */
class BytesGroup implements InlineGroup {
  #frames: MemberEntry[] | null = null;
  /** The second and later lines: start, end, synthesized (1) — most chains have one line. */
  more: number[] | null = null;
  /** The first line's `com.android.tools.r8.synthesized` metadata. */
  synthesized = false;
  constructor(
    readonly minStart: number | null,
    readonly minEnd: number | null,
    readonly bytes: Uint8Array,
    readonly owner: string,
    readonly obfLength: number,
    readonly from: number,
    readonly to: number,
  ) {}

  /** Marks the last line added as synthesized. */
  markLast(): void {
    if (this.more) this.more[this.more.length - 1] = 1;
    else this.synthesized = true;
  }

  add(from: number, to: number): void {
    (this.more ??= []).push(from, to, 0);
  }

  get frames(): MemberEntry[] {
    if (this.#frames) return this.#frames;
    const frames = [this.#entry(this.from, this.to, this.synthesized)];
    const more = this.more ?? [];
    for (let k = 0; k < more.length; k += 3) {
      frames.push(this.#entry(more[k], more[k + 1], more[k + 2] === 1));
    }
    return this.#frames = frames;
  }

  #entry(i: number, e: number, synthesized: boolean): MemberEntry {
    // Read when the group was made: it reads the same now.
    methodLineAt(this.bytes, i, e, this.obfLength);
    const from = read[TYPE_FROM];
    const s = text(this.bytes, from, read[CLOSE]);
    const name = s.slice(read[NAME_FROM] - from, read[OPEN] - from);
    const dot = name.lastIndexOf(".");
    return {
      minStart: this.minStart,
      minEnd: this.minEnd,
      origStart: orNull(read[ORIG_START]),
      origEnd: orNull(read[ORIG_END]),
      returnType: s.slice(0, read[TYPE_TO] - from),
      className: dot > 0 ? name.slice(0, dot) : this.owner,
      methodName: dot > 0 ? name.slice(dot + 1) : name,
      args: s.slice(read[OPEN] + 1 - from),
      synthesized,
    };
  }
}

/**
 * methodGroupsIn (lib/retrace/mapping.ts) over the class's recorded lines `[from, to)` of `rec`
 * (lib/retrace/member_lines.ts), `obf` ASCII: the groups with their ranges, their frames read on
 * first use; `null` when a line that may be one of `obf`'s is not plain ASCII (methodGroupsIn
 * reads the class then). Only lines whose name hash is `obf`'s are read. With `line`, only the
 * groups whose range holds it: a line whose range does not is read no further than its range,
 * since it breaks a chain whether it is a method line or not (its range differs).
 */
function groupsOf(
  bytes: Uint8Array,
  rec: Uint32Array,
  from: number,
  to: number,
  owner: string,
  obf: string,
  line: number | null,
): InlineGroup[] | null {
  const groups: BytesGroup[] = [];
  const h = hashString(obf);
  // The group of the last member line while it was one of `obf`'s (metadata can mark it).
  let last: BytesGroup | null = null;
  for (let r = from * RECORD; r < to * RECORD; r += RECORD) {
    const kind = rec[r + KINDS];
    if (kind & AFTER_OTHER) last = null;
    if (kind & NOT_ASCII) return null;
    if ((kind & KIND) === CLASS_META) continue;
    const at = rec[r + START];
    if ((kind & KIND) === MEMBER_META) {
      if (last && synthesizedMark(bytes, at, recordEnd(bytes, rec, r))) last.markLast();
      continue;
    }
    const range = rec[r + RANGE];
    if (rec[r + HASH] !== h || (line !== null && !mayHold(range, line))) {
      last = null;
      continue;
    }
    memberSpan(bytes, at, recordEnd(bytes, rec, r));
    const i = span[SPAN_FROM];
    const lineTo = span[SPAN_TO];
    if (
      (line !== null && range === READ_RANGE && !rangeHolds(bytes, i, lineTo, line)) ||
      !endsWith(bytes, i, span[SPAN_TRIMMED], obf) || !methodLineAt(bytes, i, lineTo, obf.length)
    ) {
      last = null;
      continue;
    }
    const minStart = orNull(read[MIN_START]);
    const minEnd = orNull(read[MIN_END]);
    if (last && minStart !== null && last.minStart === minStart && last.minEnd === minEnd) {
      last.add(i, lineTo);
    } else {
      last = new BytesGroup(minStart, minEnd, bytes, owner, obf.length, i, lineTo);
      groups.push(last);
    }
  }
  return groups;
}

/** FNV-1a of `s`'s characters, `s` ASCII (as hashBytes of its bytes). */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function isAsciiName(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** A class's recorded lines: `records[first, last)` (RECORD numbers each), metadata before `metaEnd`. */
interface ClassLines {
  records: Uint32Array;
  first: number;
  last: number;
  metaEnd: number;
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
  fallback: (start: number, end: number) => ClassMapping,
  lines: ClassLines,
  name?: string,
  group?: 1 | 2,
): ClassMapping | null {
  if (!plainAscii(bytes, start, nl)) return null;
  const from = Math.min(nl + 1, end);
  const { records, first, last, metaEnd } = lines;
  // `name` is the original (`group` 1) or obfuscated name the class line was found by.
  let original = group === 1 && name !== undefined ? name : null;
  let sourceFile: string | null = null;
  let synthesized = false;
  // The class's metadata: `#` lines with `"id"` that are not indented.
  const rec = records;
  for (let r = first * RECORD; r < metaEnd * RECORD; r += RECORD) {
    if ((rec[r + KINDS] & KIND) !== CLASS_META) continue;
    const p = rec[r + START];
    const le = recordEnd(bytes, rec, r);
    const q = sourceFileEnd(bytes, p, le);
    if (q >= 0 && original === null && p === nl + 1) {
      // R8's `sourceFile` line right below the class line: both names in one decoding.
      const both = text(bytes, start, q);
      original = both.slice(0, at[0] - start);
      sourceFile = both.slice(p + SOURCE_FILE_HEAD.length - start);
    } else if (q >= 0) sourceFile = text(bytes, p + SOURCE_FILE_HEAD.length, q);
    else {
      const meta = metadataId(lineText(bytes, p, le));
      if (meta?.id === "sourceFile" && meta.fileName !== undefined) sourceFile = meta.fileName;
      else if (meta?.id === SYNTHESIZED) synthesized = true;
    }
  }
  original ??= text(bytes, start, at[0]);
  const obfuscated = group === 2 && name !== undefined ? name : text(bytes, at[1], at[2]);
  return new BytesClass(
    bytes,
    start,
    end,
    from,
    records,
    first,
    last,
    original,
    obfuscated,
    sourceFile,
    synthesized,
    fallback,
  );
}

/**
 * A class read from the bytes: one object per class a frame names, itself its method table (a
 * table and a closure per class were much of a new trace's garbage); its field table is made on
 * first use.
 */
class BytesClass extends MemberCache<InlineGroup[]> implements ClassMapping {
  /** The class is its own method table: `methods.get(obf)`. */
  readonly methods = this;
  #fields: LazyTable<string[]> | null = null;
  #whole: ClassMapping | null = null;
  constructor(
    readonly bytes: Uint8Array,
    readonly start: number,
    readonly end: number,
    /** Where the line after the class line starts. */
    readonly from: number,
    /** The mapping's recorded lines (lib/retrace/member_lines.ts), the class's `[first, last)`. */
    readonly records: Uint32Array,
    readonly first: number,
    readonly last: number,
    readonly original: string,
    readonly obfuscated: string,
    readonly sourceFile: string | null,
    readonly synthesized: boolean,
    /** The class read as decoded text, `fallback(start, end)` (one function per mapping). */
    readonly fallback: (start: number, end: number) => ClassMapping,
  ) {
    super();
  }

  /** The inline groups of the methods obfuscated as `obf`, file order (see groupsOf). */
  protected readMember(obf: string): InlineGroup[] | undefined {
    const g = isAsciiName(obf)
      ? groupsOf(this.bytes, this.records, this.first, this.last, this.original, obf, null)
      : null;
    if (g === null) return (this.#whole ??= this.fallback(this.start, this.end)).methods.get(obf);
    return g.length > 0 ? g : undefined;
  }

  holding(obf: string, line: number): InlineGroup[] | null {
    if (!isAsciiName(obf)) return null;
    const g = groupsOf(this.bytes, this.records, this.first, this.last, this.original, obf, line);
    return g === null || g.length === 0 ? null : g;
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
