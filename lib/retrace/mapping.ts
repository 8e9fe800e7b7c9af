/**
 * The R8 / ProGuard mapping format (`mapping.txt`) one class block at a time (the header is read
 * by lib/retrace/shared/mapping_file.ts). lib/retrace/mapping_index.ts finds the blocks; a
 * class's members are parsed here the first time a trace names the class.
 *
 * Format (R8's "Retrace" documentation, `r8.googlesource.com/r8/+/main/doc/retrace.md`, and the
 * ProGuard manual's "ReTrace" chapter):
 * - `original.Class -> obf.Class:` starts a class; member lines are indented below it.
 * - `[a:b:]type name(args)[:c[:d]] -> obf`: a method. `a:b` is the obfuscated (minified) line
 *   range, `c:d` the original one (`c` alone: every line of the range maps to `c`; none: the
 *   original line equals the minified one). `name` may be qualified (`other.Cls.name`): code
 *   inlined from another class.
 * - Consecutive method lines with the same obfuscated name and the same minified range are one
 *   inline chain: the first is the innermost (inlined) frame, the last the method that contains it.
 * - `type name -> obf` (no parentheses): a field.
 * - `# {"id":…}` JSON metadata: unindented right after a class line it is about the class
 *   (`sourceFile` with `fileName`, `com.android.tools.r8.synthesized`); indented after a member
 *   line it is about that member (`com.android.tools.r8.synthesized`). Other ids are ignored.
 * Pure: takes the text, does no I/O.
 */

/** The `sourceFile` R8 writes for synthesized classes: not a real file. */
export const SYNTHETIC_SOURCE_FILE = "R8$$SyntheticClass";

export interface MemberEntry {
  /** Minified line range (`a:b:`); `null` when the line gives none. */
  minStart: number | null;
  minEnd: number | null;
  /** Original line range (`:c:d`); `origStart` alone when one line; both `null` when none given. */
  origStart: number | null;
  origEnd: number | null;
  returnType: string;
  /** The original class: this class, or another one for code inlined from it. */
  className: string;
  methodName: string;
  args: string;
  synthesized: boolean;
}

/** One inline chain: the entries sharing an obfuscated name and a minified range, innermost first. */
export interface InlineGroup {
  minStart: number | null;
  minEnd: number | null;
  frames: MemberEntry[];
}

/** Obfuscated name → what it maps to: a `Map`, or read from the class block on first use. */
interface MemberTable<T> {
  get(obfuscated: string): T | undefined;
}

export interface ClassMapping {
  original: string;
  obfuscated: string;
  /** From `sourceFile` metadata; `null` when the mapping gives none. */
  sourceFile: string | null;
  synthesized: boolean;
  /** Obfuscated method name → its inline groups in file order. */
  methods: MemberTable<InlineGroup[]>;
  /** Obfuscated field name → original field names. */
  fields: MemberTable<string[]>;
  /**
   * Optional: the groups of `obf`'s methods whose minified range holds `line`, as
   * `methods.get(obf)` would list them, read without the others; `null` when none does (or the
   * class cannot tell this way): the caller reads `methods` then.
   */
  holding?(obf: string, line: number): InlineGroup[] | null;
}

export const CLASS_LINE = /^(\S+) -> (\S+):\s*$/;

const FIELD_LINE = /^\s+(\S+)\s+(\S+)\s+->\s+(\S+)\s*$/;

export function metadataId(line: string): { id: string; fileName?: string } | null {
  const brace = line.indexOf("{");
  if (brace < 0) return null;
  try {
    const v = JSON.parse(line.slice(brace));
    if (typeof v === "object" && v !== null && typeof v.id === "string") {
      return { id: v.id, fileName: typeof v.fileName === "string" ? v.fileName : undefined };
    }
  } catch {
    // Not JSON metadata: an ordinary comment.
  }
  return null;
}

/** `a:b:` at `i` in `line` → the two numbers and where they end, or `null`. Pure. */
function readNumber(line: string, i: number): { value: number; end: number } | null {
  let j = i;
  let v = 0;
  while (j < line.length) {
    const c = line.charCodeAt(j);
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
    j++;
  }
  return j === i ? null : { value: v, end: j };
}

/** One member line (after its indentation) → a method entry and its obfuscated name, or `null`. */
function parseMethodLine(
  line: string,
  from: number,
  owner: string,
): { entry: MemberEntry; obf: string } | null {
  const arrow = line.lastIndexOf(" -> ");
  const open = line.indexOf("(", from);
  if (arrow < 0 || open < 0 || open > arrow) return null;
  const close = line.indexOf(")", open);
  if (close < 0 || close > arrow) return null;
  let i = from;
  let minStart: number | null = null;
  let minEnd: number | null = null;
  const a = readNumber(line, i);
  if (a && line.charCodeAt(a.end) === 58) {
    const b = readNumber(line, a.end + 1);
    if (!b || line.charCodeAt(b.end) !== 58) return null;
    minStart = a.value;
    minEnd = b.value;
    i = b.end + 1;
  }
  const space = line.lastIndexOf(" ", open);
  if (space < i) return null;
  const returnType = line.slice(i, space).trim();
  const name = line.slice(space + 1, open);
  if (returnType === "" || name === "") return null;
  let origStart: number | null = null;
  let origEnd: number | null = null;
  let k = close + 1;
  if (line.charCodeAt(k) === 58) {
    const c = readNumber(line, k + 1);
    if (!c) return null;
    origStart = c.value;
    k = c.end;
    if (line.charCodeAt(k) === 58) {
      const d = readNumber(line, k + 1);
      if (!d) return null;
      origEnd = d.value;
      k = d.end;
    }
  }
  if (line.slice(k, arrow).trim() !== "") return null;
  const obf = line.slice(arrow + 4).trim();
  if (obf === "" || obf.includes(" ")) return null;
  const dot = name.lastIndexOf(".");
  return {
    obf,
    entry: {
      minStart,
      minEnd,
      origStart,
      origEnd,
      returnType,
      className: dot > 0 ? name.slice(0, dot) : owner,
      methodName: dot > 0 ? name.slice(dot + 1) : name,
      args: line.slice(open + 1, close),
      synthesized: false,
    },
  };
}

/** One class block (its class line and the lines below it) → the class. Pure. */
export function parseClassBlock(block: string): ClassMapping {
  let nl = block.indexOf("\n");
  if (nl < 0) nl = block.length;
  const head = CLASS_LINE.exec(block.slice(0, nl));
  if (!head) {
    throw new TypeError(`Cannot parse a mapping class line: ${block.slice(0, Math.min(nl, 200))}`);
  }
  const methods = new Map<string, InlineGroup[]>();
  const fields = new Map<string, string[]>();
  const cls = {
    original: head[1],
    obfuscated: head[2],
    sourceFile: null as string | null,
    synthesized: false,
    methods,
    fields,
  };
  let last: MemberEntry | null = null;
  let lastObf: string | null = null;
  let pos = nl + 1;
  while (pos < block.length) {
    let end = block.indexOf("\n", pos);
    if (end < 0) end = block.length;
    let line = block.slice(pos, end);
    pos = end + 1;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    let i = 0;
    while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
    if (i === line.length) continue;
    if (line.charCodeAt(i) === 35) {
      // `# {...}` metadata; any other comment is ignored.
      if (!line.includes('"id"')) continue;
      const meta = metadataId(line.slice(i));
      if (!meta) continue;
      const indented = i > 0;
      if (meta.id === "sourceFile" && meta.fileName !== undefined && !indented) {
        cls.sourceFile = meta.fileName;
      } else if (meta.id === "com.android.tools.r8.synthesized") {
        if (indented && last) last.synthesized = true;
        else if (!indented) cls.synthesized = true;
      }
      continue;
    }
    const m = parseMethodLine(line, i, cls.original);
    if (m) {
      const { entry, obf } = m;
      let groups = methods.get(obf);
      if (!groups) methods.set(obf, groups = []);
      const prev = groups.at(-1);
      if (
        prev && lastObf === obf && prev.minStart === entry.minStart &&
        prev.minEnd === entry.minEnd && entry.minStart !== null
      ) {
        prev.frames.push(entry);
      } else {
        groups.push({ minStart: entry.minStart, minEnd: entry.minEnd, frames: [entry] });
      }
      last = entry;
      lastObf = obf;
      continue;
    }
    const f = FIELD_LINE.exec(line);
    if (f) {
      const names = fields.get(f[3]) ?? [];
      names.push(f[2]);
      fields.set(f[3], names);
    }
    last = null;
    lastObf = null;
  }
  return cls;
}

/** Where the line at `pos` of `block` ends (its `\n`, or the block's end). */
function lineEnd(block: string, pos: number): number {
  const end = block.indexOf("\n", pos);
  return end < 0 ? block.length : end;
}

/** The line `block[pos, end)` without its `\r`. */
function lineAt(block: string, pos: number, end: number): string {
  return block.charCodeAt(end - 1) === 13 ? block.slice(pos, end - 1) : block.slice(pos, end);
}

/** Length of `line`'s indentation (spaces and tabs). */
function indentLength(line: string): number {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  return i;
}

/**
 * The inline groups of the methods obfuscated as `obf` in `block` (from `from`, past the class
 * line), exactly as parseClassBlock groups them, parsing only the lines that name `obf`. Pure.
 */
function methodGroupsIn(block: string, from: number, owner: string, obf: string): InlineGroup[] {
  const groups: InlineGroup[] = [];
  // The last member line's entry while it was one of `obf`'s (the only one metadata can mark).
  let last: MemberEntry | null = null;
  for (let pos = from; pos < block.length;) {
    const end = lineEnd(block, pos);
    const at = pos;
    pos = end + 1;
    let i = at;
    while (i < end && (block.charCodeAt(i) === 32 || block.charCodeAt(i) === 9)) i++;
    // A blank line (a lone `\r` too) changes nothing.
    if (i === end || (i === end - 1 && block.charCodeAt(i) === 13)) continue;
    if (block.charCodeAt(i) === 35) {
      if (last && i > at) {
        const line = lineAt(block, at, end);
        if (!line.includes('"id"')) continue;
        if (metadataId(line.slice(i - at))?.id === "com.android.tools.r8.synthesized") {
          last.synthesized = true;
        }
      }
      continue;
    }
    // Only a line whose text after its last ` -> ` is `obf` can be one of its methods: it ends
    // with `obf` once trimmed. Checked in place first, so the other lines are never copied.
    let e = end;
    while (e > i && isAsciiSpace(block.charCodeAt(e - 1))) e--;
    const tail = block.charCodeAt(e - 1);
    if (tail < 0x80 && !block.startsWith(obf, e - obf.length)) {
      last = null;
      continue;
    }
    const line = lineAt(block, at, end);
    const arrow = line.lastIndexOf(" -> ");
    const m = arrow >= 0 && line.slice(arrow + 4).trim() === obf
      ? parseMethodLine(line, i - at, owner)
      : null;
    if (!m) {
      last = null;
      continue;
    }
    const { entry } = m;
    const prev = groups.at(-1);
    if (
      prev && last && prev.minStart === entry.minStart && prev.minEnd === entry.minEnd &&
      entry.minStart !== null
    ) {
      prev.frames.push(entry);
    } else {
      groups.push({ minStart: entry.minStart, minEnd: entry.minEnd, frames: [entry] });
    }
    last = entry;
  }
  return groups;
}

/** The ASCII characters `String.prototype.trim` removes. */
function isAsciiSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** The original names of the fields obfuscated as `obf` in `block`, as parseClassBlock reads them. */
export function fieldNamesIn(block: string, from: number, owner: string, obf: string): string[] {
  const names: string[] = [];
  for (let pos = from; pos < block.length;) {
    const end = lineEnd(block, pos);
    const line = lineAt(block, pos, end);
    pos = end + 1;
    const i = indentLength(line);
    if (i === line.length || line.charCodeAt(i) === 35) continue;
    const f = FIELD_LINE.exec(line);
    if (f && f[3] === obf && !parseMethodLine(line, i, owner)) names.push(f[2]);
  }
  return names;
}

/**
 * A member table read one obfuscated name at a time, each kept once read: `readMember` reads one.
 * The first name read is kept in place: a class a trace names is mostly asked for one member,
 * and a Map per class was much of a new trace's garbage.
 */
export abstract class MemberCache<T> implements MemberTable<T> {
  #firstKey: string | null = null;
  #firstValue: T | undefined = undefined;
  #seen: Map<string, T | undefined> | null = null;

  protected abstract readMember(obf: string): T | undefined;

  get(obf: string): T | undefined {
    if (this.#firstKey === obf) return this.#firstValue;
    if (this.#seen?.has(obf)) return this.#seen.get(obf);
    const v = this.readMember(obf);
    if (this.#firstKey === null) {
      this.#firstKey = obf;
      this.#firstValue = v;
    } else (this.#seen ??= new Map()).set(obf, v);
    return v;
  }
}

/** A member table read from a class block by `read`, one obfuscated name at a time. */
export class LazyTable<T> extends MemberCache<T> {
  readonly #read: (obf: string) => T | undefined;
  constructor(read: (obf: string) => T | undefined) {
    super();
    this.#read = read;
  }
  protected readMember(obf: string): T | undefined {
    return this.#read(obf);
  }
}

/**
 * One class block → the class, as parseClassBlock reads it, but its members read only when a
 * trace asks for one (a new trace's frames each name one method of a class, not its dozens).
 * The class line and the class's metadata are read now. With `reread`, the block is not kept:
 * each member's first lookup reads it again (a cache of many classes then holds their names,
 * not their text). Pure.
 */
export function lazyClassBlock(block: string, reread?: () => string): ClassMapping {
  let nl = block.indexOf("\n");
  if (nl < 0) nl = block.length;
  const head = CLASS_LINE.exec(block.slice(0, nl));
  if (!head) {
    throw new TypeError(`Cannot parse a mapping class line: ${block.slice(0, Math.min(nl, 200))}`);
  }
  const original = head[1];
  const from = nl + 1;
  let sourceFile: string | null = null;
  let synthesized = false;
  // The class's metadata: unindented `#` lines, each right after a `\n`.
  for (let at = block.indexOf("\n#", nl); at >= 0; at = block.indexOf("\n#", at + 1)) {
    const line = lineAt(block, at + 1, lineEnd(block, at + 1));
    if (!line.includes('"id"')) continue;
    const meta = metadataId(line);
    if (meta?.id === "sourceFile" && meta.fileName !== undefined) sourceFile = meta.fileName;
    else if (meta?.id === "com.android.tools.r8.synthesized") synthesized = true;
  }
  // The first lookup, right after, reads the text at hand; later ones read it again.
  let held: string | null = block;
  const text = reread
    ? () => {
      const t = held ?? reread();
      held = null;
      return t;
    }
    : () => block;
  return {
    original,
    obfuscated: head[2],
    sourceFile,
    synthesized,
    methods: new LazyTable((obf) => {
      const g = methodGroupsIn(text(), from, original, obf);
      return g.length > 0 ? g : undefined;
    }),
    fields: new LazyTable((obf) => {
      const f = fieldNamesIn(text(), from, original, obf);
      return f.length > 0 ? f : undefined;
    }),
  };
}
