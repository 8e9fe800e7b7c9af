import { assert, assertEquals } from "../assert.ts";
import { RawClient } from "./_raw_client.ts";
import { startSimulator } from "./mod.ts";
import { ShellId, V2Decoder, type V2Packet, v2Packet } from "./wire.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

async function openService(port: number, serial: string, service: string): Promise<RawClient> {
  const c = await RawClient.connect(port);
  await c.request(`host:transport:${serial}`);
  assertEquals(await c.readText(4), "OKAY");
  await c.request(service);
  return c;
}

/** Reads raw v2 packet headers by hand: id byte + LE uint32 length. */
async function readPackets(c: RawClient): Promise<V2Packet[]> {
  const all = await c.readAll();
  const out: V2Packet[] = [];
  let off = 0;
  while (off < all.length) {
    assert(all.length - off >= 5, "truncated packet header");
    const len = new DataView(all.buffer, all.byteOffset + off + 1, 4).getUint32(0, true);
    out.push({ id: all[off], payload: all.slice(off + 5, off + 5 + len) });
    off += 5 + len;
  }
  assertEquals(off, all.length, "trailing bytes after the last packet");
  return out;
}

Deno.test("shell,v2 frames stdout id 1, stderr id 2, then exit id 3 with one byte", async () => {
  await using sim = await startSimulator();
  using c = await openService(
    sim.port,
    "emulator-5554",
    "shell,v2,TERM=xterm-256color,raw:echo out; echo err >&2; exit 5",
  );
  assertEquals(await c.readText(4), "OKAY");
  const packets = await readPackets(c);
  assertEquals(packets.map((p) => [p.id, dec.decode(p.payload)]), [
    [1, "out\n"],
    [2, "err\n"],
    [3, "\x05"],
  ]);
  assertEquals(packets[2].payload.length, 1);
});

Deno.test("shell,v2 accepts stdin id 0 and close-stdin id 4", async () => {
  await using sim = await startSimulator();
  using c = await openService(sim.port, "R5CT1234ABC", "shell,v2,raw:cat");
  assertEquals(await c.readText(4), "OKAY");
  await c.write(v2Packet(ShellId.stdin, enc.encode("hello ")));
  await c.write(v2Packet(ShellId.stdin, enc.encode("device\n")));
  await c.write(v2Packet(ShellId.closeStdin));
  const packets = await readPackets(c);
  const stdout = packets.filter((p) => p.id === 1).map((p) => dec.decode(p.payload)).join("");
  assertEquals(stdout, "hello device\n");
  assertEquals(packets.at(-1), { id: 3, payload: new Uint8Array([0]) });
});

Deno.test("shell,v2 unknown command: mksh message on stderr, exit 127", async () => {
  await using sim = await startSimulator();
  using c = await openService(sim.port, "emulator-5554", "shell,v2,raw:nosuchtool -x");
  assertEquals(await c.readText(4), "OKAY");
  const packets = await readPackets(c);
  assertEquals(packets, [
    { id: 2, payload: enc.encode("/system/bin/sh: nosuchtool: inaccessible or not found\n") },
    { id: 3, payload: new Uint8Array([127]) },
  ]);
});

Deno.test("shell: (v1) sends raw bytes with stderr merged and no exit code", async () => {
  await using sim = await startSimulator();
  using c = await openService(sim.port, "emulator-5554", "shell:echo a; echo b >&2; exit 9");
  assertEquals(dec.decode(await c.readAll()), "OKAYa\nb\n");
});

Deno.test("exec: sends raw bytes, stderr merged", async () => {
  await using sim = await startSimulator();
  using c = await openService(sim.port, "192.168.1.23:5555", "exec:cat /nope; wm density");
  assertEquals(
    dec.decode(await c.readAll()),
    "OKAYcat: /nope: No such file or directory\nPhysical density: 420\n",
  );
});

Deno.test("shell,v2,pty translates LF to CRLF and merges stderr into stdout", async () => {
  await using sim = await startSimulator();
  using c = await openService(sim.port, "emulator-5554", "shell,v2,pty:echo a; echo b >&2");
  assertEquals(await c.readText(4), "OKAY");
  const packets = await readPackets(c);
  assertEquals(packets.filter((p) => p.id !== 3).map((p) => [p.id, dec.decode(p.payload)]), [
    [1, "a\r\n"],
    [1, "b\r\n"],
  ]);
});

Deno.test("a device without shell_v2 refuses shell,v2 with FAIL closed", async () => {
  await using sim = await startSimulator();
  sim.setFeatures("emulator-5554", ["cmd"]);
  {
    using c = await openService(sim.port, "emulator-5554", "shell,v2,raw:echo hi");
    assertEquals(dec.decode(await c.readAll()), "FAIL0006closed");
  }
  using v1 = await openService(sim.port, "emulator-5554", "shell:echo hi");
  assertEquals(dec.decode(await v1.readAll()), "OKAYhi\n");
  assertEquals(
    (await sim.readJournal()).map((e) => e.service),
    ["shell"],
    "a refused stream runs nothing",
  );
});

Deno.test("unsimulated device services (sync:, framebuffer:) FAIL closed", async () => {
  await using sim = await startSimulator();
  for (const svc of ["sync:", "framebuffer:"]) {
    using c = await openService(sim.port, "emulator-5554", svc);
    assertEquals(dec.decode(await c.readAll()), "FAIL0006closed");
  }
});

Deno.test("getprop, wm size with override, dumpsys battery answer in the real formats", async () => {
  await using sim = await startSimulator();
  const run = async (serial: string, cmd: string) => {
    using c = await openService(sim.port, serial, `exec:${cmd}`);
    return dec.decode(await c.readAll()).slice(4);
  };
  const props = await run("emulator-5554", "getprop");
  const lines = props.split("\n").filter((l) => l.startsWith("["));
  const keys = lines.map((l) => l.slice(1, l.indexOf("]")));
  assertEquals(keys, [...keys].sort());
  assert(props.includes("[ro.boot.qemu.avd_name]: [Pixel_8_API_35]\n"));
  assert(props.includes("[ro.hardware]: [ranchu]\n"));
  assert(/\[persist\.sys\.boot\.reason\.history\]: \[reboot,[^\]]*\n[^\]]*\]/.test(props));
  assertEquals(await run("R5CT1234ABC", "getprop ro.build.version.sdk"), "34\n");
  assertEquals(await run("R5CT1234ABC", "getprop no.such.prop fallback"), "fallback\n");
  sim.device("192.168.1.23:5555").overrideSize = { width: 720, height: 1600 };
  assertEquals(
    await run("192.168.1.23:5555", "wm size"),
    "Physical size: 1080x2400\nOverride size: 720x1600\n",
  );
  const battery = await run("R5CT1234ABC", "dumpsys battery");
  assert(battery.startsWith("Current Battery Service state:\n  AC powered: false\n"));
  for (const l of ["  level: 85\n", "  scale: 100\n", "  status: 2\n", "  health: 2\n"]) {
    assert(battery.includes(l), `missing ${JSON.stringify(l)}`);
  }
});

Deno.test("V2Decoder reassembles packets split at any byte", () => {
  const a = v2Packet(1, enc.encode("hello"));
  const b = v2Packet(3, new Uint8Array([7]));
  const all = new Uint8Array([...a, ...b]);
  for (let cut = 0; cut <= all.length; cut++) {
    const d = new V2Decoder();
    const got = [...d.push(all.slice(0, cut)), ...d.push(all.slice(cut))];
    assertEquals(got, [{ id: 1, payload: enc.encode("hello") }, {
      id: 3,
      payload: new Uint8Array([7]),
    }]);
  }
});
