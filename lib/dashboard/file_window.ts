/**
 * Byte-offset windows on append-only text files (a build's log, the activity log): the lines
 * written after an offset (what streams live) and the lines before one (what the page fetches when
 * the user scrolls up). Offsets are byte offsets of line starts, so the page can ask for "the 500
 * lines before the oldest one I hold" without the server keeping anything per page.
 */
import { readFileAt } from "../core/file_read.ts";

/** Most bytes one read of new lines takes; the rest waits for the next read. */
const MAX_FORWARD_READ_BYTES = 1024 * 1024;
/** Most bytes one read of older lines looks at. */
const MAX_BACKWARD_READ_BYTES = 1024 * 1024;
/** Most lines one read of older lines returns … */
export const MAX_BACKWARD_LINES = 2_000;
/** … and by default. */
export const DEFAULT_BACKWARD_LINES = 500;

const decoder = new TextDecoder();

interface LinesAfter {
  /** Offset of the first returned line. */
  from: number;
  /** Offset just past the last returned line (where the next read starts). */
  next: number;
  lines: string[];
  /** The file's size when read. */
  size: number;
}

/**
 * Whole lines written at or after `from` (at most `maxBytes` of them; a line still being written
 * waits). A file shorter than `from` (replaced or rotated) answers `size < from` and no lines.
 * A missing file is NotFound.
 */
export async function readLinesAfter(
  path: string,
  from: number,
  maxBytes = MAX_FORWARD_READ_BYTES,
): Promise<LinesAfter> {
  const file = await Deno.open(path, { read: true });
  try {
    const size = (await file.stat()).size;
    if (size <= from) return { from, next: from, lines: [], size };
    const buf = await readFileAt(file, from, Math.min(size - from, maxBytes));
    const end = buf.lastIndexOf(0x0a);
    if (end < 0) {
      // One line longer than a read: hand it out cut, so the stream never stalls on it.
      if (buf.length < maxBytes) return { from, next: from, lines: [], size };
      return { from, next: from + buf.length, lines: [decoder.decode(buf)], size };
    }
    const text = decoder.decode(buf.subarray(0, end));
    return { from, next: from + end + 1, lines: text.split("\n"), size };
  } finally {
    file.close();
  }
}

interface LinesBefore {
  /** Offset of the first returned line (0 at the start of the file). */
  from: number;
  lines: string[];
}

/** The last `count` whole lines that end before byte `before` (default: the file's end). */
export async function readLinesBefore(
  path: string,
  before: number | null,
  count = DEFAULT_BACKWARD_LINES,
): Promise<LinesBefore> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_BACKWARD_LINES) {
    throw new RangeError(`lines must be 1..${MAX_BACKWARD_LINES}, got ${count}`);
  }
  const file = await Deno.open(path, { read: true });
  try {
    const size = (await file.stat()).size;
    let end = before === null ? size : Math.min(Math.max(0, before), size);
    if (end === 0) return { from: 0, lines: [] };
    const start = Math.max(0, end - MAX_BACKWARD_READ_BYTES);
    const buf = await readFileAt(file, start, end - start);
    // Only whole lines: a line still being written (no newline yet) stays out.
    end = buf.length > 0 && buf[buf.length - 1] !== 0x0a ? buf.lastIndexOf(0x0a) + 1 : buf.length;
    let first = end; // where the earliest line taken starts
    let pos = end - 1; // the newline ending the line looked at
    let taken = 0;
    while (taken < count && pos >= 0) {
      // (lastIndexOf with a negative index would count from the end)
      const prev = pos === 0 ? -1 : buf.lastIndexOf(0x0a, pos - 1);
      if (prev < 0 && start > 0) break; // that line starts outside the window
      first = prev + 1;
      taken++;
      pos = prev;
    }
    if (taken === 0) return { from: start + end, lines: [] };
    return {
      from: start + first,
      lines: decoder.decode(buf.subarray(first, end - 1)).split("\n"),
    };
  } finally {
    file.close();
  }
}
