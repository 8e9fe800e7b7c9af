/**
 * ADB host-protocol framing (docs/dev/overview.md, adb_io.cpp, sockets.cpp): a request is four
 * lowercase hex digits of payload length then the payload; a reply status is exactly `OKAY` or
 * `FAIL`, and `FAIL` is followed by a length-prefixed message.
 */
import { ByteReader } from "./connection.ts";

/** sockets.cpp rejects a request of length 0 or more than MAX_PAYLOAD (1 MiB) by closing. */
const MAX_REQUEST_BYTES = 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The server answered `FAIL` + message. */
export class AdbFailure extends Error {
  readonly failMessage: string;
  constructor(failMessage: string) {
    super(`ADB server refused the request: ${failMessage}`);
    this.name = "AdbFailure";
    this.failMessage = failMessage;
  }
}

/** The stream ended early or carried bytes that are not the host protocol. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** `<hex4><payload>` for one request; `RangeError` when the payload is empty or too long. */
export function encodeRequest(service: string): Uint8Array {
  const payload = encoder.encode(service);
  if (payload.length === 0 || payload.length > MAX_REQUEST_BYTES) {
    throw new RangeError(
      `Cannot send ADB request: payload is ${payload.length} bytes, allowed 1..${MAX_REQUEST_BYTES}`,
    );
  }
  const out = new Uint8Array(4 + payload.length);
  out.set(encoder.encode(hex4(payload.length)));
  out.set(payload, 4);
  return out;
}

function hex4(n: number): string {
  return n.toString(16).padStart(4, "0");
}

/** Parses four hex digits (either case, as the server's `unhex()` accepts). */
function parseHex4(bytes: Uint8Array): number {
  const text = decoder.decode(bytes);
  if (!/^[0-9a-fA-F]{4}$/.test(text)) {
    throw new ProtocolError(`Bad length prefix from ADB server: ${JSON.stringify(text)}`);
  }
  return parseInt(text, 16);
}

/** Reads `OKAY` (returns) or `FAIL` + message (throws `AdbFailure`). */
export async function readStatus(reader: ByteReader): Promise<void> {
  const status = await reader.readExactly(4);
  if (status === null) {
    throw new ProtocolError("ADB server closed the connection before answering");
  }
  const text = decoder.decode(status);
  if (text === "OKAY") return;
  if (text === "FAIL") {
    const message = await readProtocolStringOrNull(reader);
    throw new AdbFailure(message ?? "(no message)");
  }
  throw new ProtocolError(`Unexpected reply from ADB server: ${JSON.stringify(text)}`);
}

/** Reads a length-prefixed string; throws `ProtocolError` if the stream ends first. */
export async function readProtocolString(reader: ByteReader): Promise<string> {
  const s = await readProtocolStringOrNull(reader);
  if (s === null) throw new ProtocolError("ADB server closed the connection mid-reply");
  return s;
}

async function readProtocolStringOrNull(reader: ByteReader): Promise<string | null> {
  const len = await reader.readExactly(4);
  if (len === null) return null;
  const n = parseHex4(len);
  const body = await reader.readExactly(n);
  return body === null ? null : decoder.decode(body);
}

/** The 8-byte transport id after `host:tport:*` (`uint64_t`, host order = little-endian). */
export function parseTransportId(bytes: Uint8Array): number {
  const id = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  return id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : Number.MAX_SAFE_INTEGER;
}
