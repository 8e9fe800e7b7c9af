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
