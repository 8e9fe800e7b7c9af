/** Test helper: run one device command over `shell,v2,raw:` and collect stdout, stderr, exit. */
import { RawClient } from "../_raw_client.ts";
import { concat } from "../wire.ts";

const dec = new TextDecoder();

export interface ShellResult {
  out: string;
  err: string;
  code: number | null;
}

/** Quotes one argument for the device's sh (what a careful client does). */
export function q(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

export async function shell(port: number, serial: string, command: string): Promise<ShellResult> {
  using c = await RawClient.connect(port);
  await c.request(`host:transport:${serial}`);
  const st = await c.readText(4);
  if (st !== "OKAY") throw new Error(`transport ${serial}: ${st}`);
  await c.request(`shell,v2,raw:${command}`);
  const ok = await c.readText(4);
  if (ok !== "OKAY") throw new Error(`shell refused: ${ok}`);
  const all = await c.readAll();
  const out: Uint8Array[] = [];
  const err: Uint8Array[] = [];
  let code: number | null = null;
  let off = 0;
  while (off + 5 <= all.length) {
    const len = new DataView(all.buffer, all.byteOffset + off + 1, 4).getUint32(0, true);
    const payload = all.subarray(off + 5, off + 5 + len);
    if (all[off] === 1) out.push(payload);
    else if (all[off] === 2) err.push(payload);
    else if (all[off] === 3) code = payload[0];
    off += 5 + len;
  }
  return { out: dec.decode(concat(...out)), err: dec.decode(concat(...err)), code };
}

/** `exec:<command>` with `stdin` written first; everything the device sends until it closes. */
export async function exec(port: number, serial: string, command: string, stdin: Uint8Array) {
  using c = await RawClient.connect(port);
  await c.request(`host:transport:${serial}`);
  if (await c.readText(4) !== "OKAY") throw new Error(`transport ${serial} refused`);
  await c.request(`exec:${command}`);
  if (await c.readText(4) !== "OKAY") throw new Error("exec refused");
  await c.write(stdin);
  return dec.decode(await c.readAll());
}
