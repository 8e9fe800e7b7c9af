/**
 * Shell protocol v2 (shell_protocol.h): packets of 1 byte id + 4 byte little-endian length +
 * payload, in both directions. adbd splits payloads as it likes, so the decoder accepts packets
 * split across reads and several per read; zero-length packets are legal.
 */
import { concatBytes } from "../core/bytes.ts";

export const ShellPacketId = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  exit: 3,
  closeStdin: 4,
  windowSizeChange: 5,
} as const;

interface ShellPacket {
  id: number;
  data: Uint8Array;
}

const HEADER_BYTES = 5;
/** A packet longer than this is not the shell protocol (adbd's MAX_PAYLOAD is 1 MiB). */
const MAX_SHELL_PACKET_BYTES = 16 * 1024 * 1024;

/** Incremental decoder: `push()` bytes as they arrive and get back every complete packet. */
export class ShellV2Decoder {
  #pending: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): ShellPacket[] {
    let buf = this.#pending.length === 0 ? chunk : concatBytes([this.#pending, chunk]);
    const out: ShellPacket[] = [];
    while (buf.length >= HEADER_BYTES) {
      const len = new DataView(buf.buffer, buf.byteOffset + 1, 4).getUint32(0, true);
      if (len > MAX_SHELL_PACKET_BYTES) {
        throw new RangeError(`Shell protocol packet of ${len} bytes is over the limit`);
      }
      if (buf.length < HEADER_BYTES + len) break;
      out.push({ id: buf[0], data: buf.slice(HEADER_BYTES, HEADER_BYTES + len) });
      buf = buf.subarray(HEADER_BYTES + len);
    }
    this.#pending = buf.slice();
    return out;
  }

  /** Bytes of an incomplete packet still waiting for the rest. */
  get pendingBytes(): number {
    return this.#pending.length;
  }
}
