/**
 * The message protocol between the UI worker and its emulator gRPC client process
 * (workers/grpc_child.ts): length-prefixed frames on the child's stdin and stdout. A frame is an
 * 8-byte header (the JSON part's length and the binary part's length, both unsigned 32-bit big
 * endian), then the JSON part (UTF-8), then the binary part (a frame's pixels; empty otherwise).
 * Both parts are bounded; a frame over a bound ends the stream (the reader throws), because a
 * peer that sends one is broken and cannot be resynchronised.
 */
import { MAX_GRPC_RECEIVE_BYTES } from "./grpc_client.ts";

/** Largest JSON part of a frame (a call's request or answer without its pixels). */
export const MAX_CHILD_JSON_BYTES = 1024 * 1024;
/** Largest binary part: one frame's pixels, as the gRPC channel accepts them. */
const MAX_CHILD_BINARY_BYTES = MAX_GRPC_RECEIVE_BYTES;

/** The worker → child messages. */
export type ToChild =
  /** One unary call; `token` is the bearer token (never on the child's command line). */
  | {
    t: "call";
    id: number;
    method: string;
    req: unknown;
    token: string | null;
    deadlineMs: number;
  }
  | { t: "cancel"; id: number }
  /** Keep the channel open (a finger held down between calls), or let it close when idle. */
  | { t: "hold"; on: boolean };

/** The child → worker messages. `value.image`, when the answer has pixels, is the binary part. */
export type FromChild =
  | { t: "ready" }
  | { t: "ok"; id: number; value: unknown; binary: boolean }
  | { t: "err"; id: number; code: number; details: string };

const enc = new TextEncoder();
const dec = new TextDecoder();

/** One frame's bytes. */
export function encodeFrame(msg: ToChild | FromChild, binary?: Uint8Array): Uint8Array {
  const json = enc.encode(JSON.stringify(msg));
  const bin = binary ?? new Uint8Array(0);
  if (json.length > MAX_CHILD_JSON_BYTES) {
    throw new RangeError(`a message of ${json.length} bytes is over ${MAX_CHILD_JSON_BYTES}`);
  }
  if (bin.length > MAX_CHILD_BINARY_BYTES) {
    throw new RangeError(`a payload of ${bin.length} bytes is over ${MAX_CHILD_BINARY_BYTES}`);
  }
  const out = new Uint8Array(8 + json.length + bin.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, json.length);
  v.setUint32(4, bin.length);
  out.set(json, 8);
  out.set(bin, 8 + json.length);
  return out;
}

interface Frame<T> {
  msg: T;
  binary: Uint8Array;
}

/** Takes the first `n` bytes out of a list of chunks (copying only what it must). */
function take(chunks: Uint8Array[], n: number): Uint8Array {
  if (n === 0) return new Uint8Array(0);
  if (chunks[0].length >= n) {
    const out = chunks[0].subarray(0, n);
    if (chunks[0].length === n) chunks.shift();
    else chunks[0] = chunks[0].subarray(n);
    return out;
  }
  const out = new Uint8Array(n);
  let off = 0;
  while (off < n) {
    const c = chunks[0];
    const k = Math.min(c.length, n - off);
    out.set(c.subarray(0, k), off);
    off += k;
    if (k === c.length) chunks.shift();
    else chunks[0] = c.subarray(k);
  }
  return out;
}

/**
 * Reads frames from a byte stream until it ends; throws on a frame over a bound or a JSON part
 * that does not parse. Chunks are kept as they came and joined once per frame.
 */
export async function* readFrames<T>(stream: ReadableStream<Uint8Array>): AsyncGenerator<Frame<T>> {
  const chunks: Uint8Array[] = [];
  let have = 0;
  let head: { json: number; bin: number } | null = null;
  for await (const chunk of stream) {
    chunks.push(chunk);
    have += chunk.length;
    while (true) {
      if (head === null) {
        if (have < 8) break;
        const h = take(chunks, 8);
        have -= 8;
        const v = new DataView(h.buffer, h.byteOffset, 8);
        head = { json: v.getUint32(0), bin: v.getUint32(4) };
        if (head.json > MAX_CHILD_JSON_BYTES || head.bin > MAX_CHILD_BINARY_BYTES) {
          throw new RangeError(
            `a frame of ${head.json} + ${head.bin} bytes is over the protocol's bounds`,
          );
        }
      }
      if (have < head.json + head.bin) break;
      const msg = JSON.parse(dec.decode(take(chunks, head.json))) as T;
      const binary = head.bin === 0 ? new Uint8Array(0) : take(chunks, head.bin);
      have -= head.json + head.bin;
      head = null;
      yield { msg, binary };
    }
  }
}
