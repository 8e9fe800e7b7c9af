/** Hex text of bytes, and SHA-256 as lowercase hex: the one place lib/ writes either. */

/** `bytes` as lowercase hex, two digits a byte. */
export function hexOf(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/** The SHA-256 of `data` (a string is hashed as its UTF-8 bytes). */
export async function sha256Bytes(data: Uint8Array | string): Promise<Uint8Array> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
}

/** Lowercase hex SHA-256 of `data` (a string is hashed as its UTF-8 bytes). */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  return hexOf(await sha256Bytes(data));
}

/** Whether `a` and `b` are equal, in a time that does not depend on where they differ. Pure. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
