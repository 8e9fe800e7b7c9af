import { assertEquals, assertThrows } from "../assert.ts";
import {
  assertLoopbackBind,
  checkRequest,
  cookieValue,
  sameSecret,
} from "../../lib/dashboard/security.ts";
import {
  CONFIRM_TTL_MS,
  Confirmations,
  MAX_PENDING_CONFIRMATIONS,
} from "../../lib/dashboard/confirmations.ts";

const secrets = { login: "a".repeat(64), session: "b".repeat(64) };
const PORT = 4321;
const req = (over: Partial<Parameters<typeof checkRequest>[0]> = {}) => ({
  method: "GET",
  url: new URL(`http://127.0.0.1:${PORT}/api/state`),
  host: `127.0.0.1:${PORT}`,
  origin: null,
  cookie: `keynobi_dashboard=${secrets.session}`,
  ...over,
});

Deno.test("checkRequest: Host first, then the secret, then Origin on changes", () => {
  assertEquals(checkRequest(req(), PORT, secrets), { ok: true, login: false });
  assertEquals(checkRequest(req({ host: "evil:4321" }), PORT, secrets).ok, false);
  assertEquals(
    (checkRequest(req({ host: null }), PORT, secrets) as { status: number }).status,
    421,
  );
  assertEquals(
    (checkRequest(req({ cookie: null }), PORT, secrets) as { status: number }).status,
    401,
  );
  assertEquals(
    (checkRequest(req({ cookie: `keynobi_dashboard=${secrets.login}` }), PORT, secrets) as {
      status: number;
    }).status,
    401,
    "the login secret is not the session cookie",
  );
  const login = req({ url: new URL(`http://127.0.0.1:${PORT}/?k=${secrets.login}`), cookie: null });
  assertEquals(checkRequest(login, PORT, secrets), { ok: true, login: true });
  const post = req({ method: "POST", url: new URL(`http://127.0.0.1:${PORT}/api/actions/run`) });
  assertEquals((checkRequest(post, PORT, secrets) as { status: number }).status, 403);
  assertEquals(
    checkRequest({ ...post, origin: `http://127.0.0.1:${PORT}` }, PORT, secrets).ok,
    true,
  );
  assertEquals(
    (checkRequest({ ...post, origin: `http://127.0.0.1:${PORT + 1}` }, PORT, secrets) as {
      status: number;
    }).status,
    403,
  );
  // The login URL never works as a POST (a change needs the cookie).
  const postLogin = { ...login, method: "POST", origin: `http://127.0.0.1:${PORT}` };
  assertEquals((checkRequest(postLogin, PORT, secrets) as { status: number }).status, 401);
});

Deno.test("cookieValue, sameSecret, assertLoopbackBind", () => {
  assertEquals(cookieValue("a=1; keynobi_dashboard=xyz; b=2", "keynobi_dashboard"), "xyz");
  assertEquals(cookieValue("a=1", "keynobi_dashboard"), null);
  assertEquals(cookieValue("x=" + "y".repeat(9000), "x"), null);
  assertEquals(sameSecret("abc", "abc"), true);
  assertEquals(sameSecret("abc", "abd"), false);
  assertEquals(sameSecret("abc", "abcd"), false);
  assertLoopbackBind("127.0.0.1");
  assertThrows(() => assertLoopbackBind("0.0.0.0"), RangeError);
});

Deno.test("Confirmations: single use, bound to the action, expire, bounded", () => {
  let now = 1_000;
  const c = new Confirmations<string>(() => now);
  const t = c.issue("trust /a");
  assertEquals(c.take("nope"), null);
  assertEquals(c.take(42), null);
  assertEquals(c.take(t), "trust /a");
  assertEquals(c.take(t), null, "used once");
  const late = c.issue("x");
  now += CONFIRM_TTL_MS;
  assertEquals(c.take(late), null, "expired");
  const tokens = Array.from({ length: MAX_PENDING_CONFIRMATIONS + 3 }, (_, i) => c.issue(`a${i}`));
  assertEquals(c.size, MAX_PENDING_CONFIRMATIONS);
  assertEquals(c.take(tokens[0]), null, "the oldest was dropped");
  assertEquals(c.take(tokens.at(-1)), `a${MAX_PENDING_CONFIRMATIONS + 2}`);
});
