/** Hex text of bytes, and SHA-256 as lowercase hex: the one place lib/ writes either. */

/** `bytes` as lowercase hex, two digits a byte. */
export function hexOf(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/** Lowercase hex SHA-256 of `data` (a string is hashed as its UTF-8 bytes). */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return hexOf(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource)));
}
