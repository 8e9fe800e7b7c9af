import { assert, assertEquals, assertMatch, assertRejects, assertThrows } from "../assert.ts";
import { httpTokenPath, installHttpToken, noTokenFromEnv } from "../../lib/mcp/http_token.ts";
import { httpAuthFor } from "../../lib/mcp/http_address.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-http-token-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("installHttpToken() creates one 0600 token and returns it every time, also when raced", async () => {
  await withDir(async (dir) => {
    const tokens = await Promise.all(Array.from({ length: 8 }, () => installHttpToken(dir)));
    assertMatch(tokens[0], /^[0-9a-f]{64}$/);
    assertEquals(new Set(tokens).size, 1, "concurrent servers agree on one token");
    assertEquals((await Deno.lstat(httpTokenPath(dir))).mode! & 0o777, 0o600);
    assertEquals(await installHttpToken(dir), tokens[0]);
    const left = [...Deno.readDirSync(dir)].map((e) => e.name);
    assertEquals(left, ["http-token"], "no temporary file is left behind");
  });
});

Deno.test("installHttpToken() refuses a token file others can read, a symlink, a FIFO or garbage", async () => {
  await withDir(async (dir) => {
    const path = httpTokenPath(dir);
    await Deno.writeTextFile(path, "ab".repeat(32), { mode: 0o644 });
    await Deno.chmod(path, 0o644);
    await assertRejects(() => installHttpToken(dir), /other users can read it/);
    await Deno.remove(path);
    const outside = `${dir}/outside`;
    await Deno.writeTextFile(outside, "cd".repeat(32), { mode: 0o600 });
    await Deno.symlink(outside, path);
    await assertRejects(() => installHttpToken(dir), /symlink/);
    await Deno.remove(path);
    await new Deno.Command("mkfifo", { args: [path] }).output();
    await assertRejects(() => installHttpToken(dir), /Cannot use the HTTP token/);
    await Deno.remove(path);
    await Deno.writeTextFile(path, "not a token\n", { mode: 0o600 });
    const e = await assertRejects(() => installHttpToken(dir), /64 hex characters/);
    assert(e.message.includes("delete it"), "says what to do");
  });
});

Deno.test("httpAuthFor(): loopback uses the install token unless opted out; off loopback needs KEYNOBI_HTTP_TOKEN", () => {
  const loop = { hostname: "127.0.0.1", port: 1 };
  const far = { hostname: "0.0.0.0", port: 1 };
  const t = "s3cret-token-for-the-lab-0123456789";
  assertEquals(httpAuthFor(loop, undefined), { kind: "install" });
  assertEquals(httpAuthFor(loop, "", true), { kind: "none" });
  assertEquals(httpAuthFor(loop, t), { kind: "token", token: t });
  assertEquals(httpAuthFor(far, t), { kind: "token", token: t });
  assertThrows(() => httpAuthFor(far, undefined), /KEYNOBI_HTTP_TOKEN/);
  assertThrows(() => httpAuthFor(far, undefined, true), /loopback only/);
  assertThrows(() => httpAuthFor(loop, t, true), /drop one of them/);
  assertThrows(() => httpAuthFor(loop, "short"), /16/);
  assertEquals([noTokenFromEnv(undefined), noTokenFromEnv(""), noTokenFromEnv("1")], [
    false,
    false,
    true,
  ]);
  assertThrows(() => noTokenFromEnv("true"), /takes 1/);
});
