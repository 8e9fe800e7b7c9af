/**
 * Messages of the ADB transport between a server and a device's adbd (AOSP adb `protocol.txt`,
 * `adb.h`): a 24-byte little-endian header — command, arg0, arg1, data length, data checksum,
 * magic (command XOR 0xffffffff) — then the data. Written from the protocol facts, not `lib/adb`.
 */
import { concat } from "./wire.ts";

const enc = new TextEncoder();

function id(four: string): number {
  return (four.charCodeAt(0) | four.charCodeAt(1) << 8 | four.charCodeAt(2) << 16 |
    four.charCodeAt(3) << 24) >>> 0;
}

export const Cmd = {
  SYNC: id("SYNC"),
  CNXN: id("CNXN"),
  AUTH: id("AUTH"),
  OPEN: id("OPEN"),
  OKAY: id("OKAY"),
  CLSE: id("CLSE"),
  WRTE: id("WRTE"),
  STLS: id("STLS"),
} as const;

/** `A_VERSION` of a current adbd (skips data checksums). */
export const A_VERSION = 0x01000001;
/** The most data one message may carry that this adbd announces in its CNXN (`MAX_PAYLOAD`). */
export const MAX_PAYLOAD = 1024 * 1024;
/** Largest data a received header may announce before the transport is dropped. */
export const MAX_INBOUND_PAYLOAD = 1024 * 1024;

/** `AUTH` arg0 values. */
export const AuthType = { token: 1, signature: 2, rsaPublicKey: 3 } as const;
/** Length of the random token adbd sends (`TOKEN_SIZE`). */
export const TOKEN_SIZE = 20;

export const HEADER_BYTES = 24;

export interface Message {
  command: number;
  arg0: number;
  arg1: number;
  data: Uint8Array;
}

export function commandName(command: number): string {
  return String.fromCharCode(
    command & 255,
    command >>> 8 & 255,
    command >>> 16 & 255,
    command >>> 24 & 255,
  );
}

export function encodeMessage(m: Message): Uint8Array {
  const head = new Uint8Array(HEADER_BYTES);
  const v = new DataView(head.buffer);
  let sum = 0;
  for (const b of m.data) sum += b;
  v.setUint32(0, m.command, true);
  v.setUint32(4, m.arg0 >>> 0, true);
  v.setUint32(8, m.arg1 >>> 0, true);
  v.setUint32(12, m.data.length, true);
  v.setUint32(16, sum >>> 0, true);
  v.setUint32(20, (m.command ^ 0xffffffff) >>> 0, true);
  return concat(head, m.data);
}

export function message(command: number, arg0: number, arg1: number, data?: string | Uint8Array) {
  return encodeMessage({
    command,
    arg0,
    arg1,
    data: data === undefined
      ? new Uint8Array()
      : typeof data === "string"
      ? enc.encode(data)
      : data,
  });
}

export interface Header {
  command: number;
  arg0: number;
  arg1: number;
  length: number;
}

/** Parses a header; null when the magic does not match (the transport is then dropped). */
export function parseHeader(b: Uint8Array): Header | null {
  const v = new DataView(b.buffer, b.byteOffset, HEADER_BYTES);
  const command = v.getUint32(0, true);
  if (((command ^ 0xffffffff) >>> 0) !== v.getUint32(20, true)) return null;
  return {
    command,
    arg0: v.getUint32(4, true),
    arg1: v.getUint32(8, true),
    length: v.getUint32(12, true),
  };
}

/**
 * The CNXN banner of a device: `device::` then `key=value;` properties and the feature list, the
 * shape a server parses for `devices -l` (`ro.product.name`, `ro.product.model`,
 * `ro.product.device`) and for `features`.
 */
export function deviceBanner(
  props: { name: string; model: string; device: string },
  features: readonly string[],
): string {
  return `device::ro.product.name=${props.name};ro.product.model=${props.model};` +
    `ro.product.device=${props.device};features=${features.join(",")}`;
}
