/** Byte buffers: joining chunks read from a stream. The one place lib/ writes that loop. */

/**
 * `parts` in order, as one new array (`size`, when the caller counted it already, saves a pass).
 * Always a copy, so the result never shares memory with a chunk a reader may reuse.
 */
export function concatBytes(parts: readonly Uint8Array[], size?: number): Uint8Array {
  let total = size ?? 0;
  if (size === undefined) { for (const p of parts) total += p.length; }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Like `concatBytes`, but a single part is returned as it is (no copy). */
export function joinBytes(parts: readonly Uint8Array[], size?: number): Uint8Array {
  return parts.length === 1 ? parts[0] : concatBytes(parts, size);
}

/**
 * All of `stream` up to `max` bytes; `null` when it holds more (it is cancelled, the rest is not
 * read). No stream reads as empty. For request bodies.
 */
export async function readCapped(
  stream: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<Uint8Array | null> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}
