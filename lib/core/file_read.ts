/** Reading a byte range of an open file. */

/** Up to `len` bytes of `file` from offset `start` (fewer when the file ends first). */
export async function readFileAt(
  file: Deno.FsFile,
  start: number,
  len: number,
): Promise<Uint8Array> {
  const buf = new Uint8Array(len);
  await file.seek(start, Deno.SeekMode.Start);
  let filled = 0;
  while (filled < len) {
    const n = await file.read(buf.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}

/**
 * Something read by position: an open file, an APK being installed. `read` fills up to
 * `buf.length` bytes at `position` and answers how many (0 at the end).
 */
export interface RandomAccess {
  readonly size: number;
  read(buf: Uint8Array, position: number): Promise<number>;
}

/** Up to `length` bytes of `src` from `position` (fewer when it ends first). */
export async function readAt(
  src: Pick<RandomAccess, "read">,
  position: number,
  length: number,
): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const n = await src.read(buf.subarray(filled), position + filled);
    if (n === 0) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}
