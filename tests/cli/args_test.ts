import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import { parseArgs, UsageError } from "../../lib/cli/args.ts";
import { httpSetupLines, setupLines, shellQuote } from "../../lib/cli/setup.ts";
import { selfCommandFor } from "../../lib/cli/permissions.ts";
import { invocationDir } from "../../lib/cli/main.ts";
import { mapEnv } from "../../lib/core/env.ts";

Deno.test("parseArgs() reads --mcp with its options in both spellings", () => {
  assertEquals(parseArgs(["--mcp"]), {
    kind: "mcp",
    project: null,
    attachOnly: false,
    toolsets: null,
  });
  assertEquals(parseArgs(["--mcp", "--project", "/p", "--attach-only", "--toolsets", "core,ui"]), {
    kind: "mcp",
    project: "/p",
    attachOnly: true,
    toolsets: ["core", "ui"],
  });
  assertEquals(parseArgs(["--mcp", "--toolsets=ui", "--project=/x y"]), {
    kind: "mcp",
    project: "/x y",
    attachOnly: false,
    toolsets: ["ui"],
  });
  assertEquals(parseArgs(["--project", "/p", "--mcp"]).kind, "mcp");
});

Deno.test("parseArgs() refuses bad toolsets, missing values and unknown options", () => {
  const cases: [string[], string][] = [
    [["--mcp", "--toolsets"], "core, ui, device-admin"],
    [["--mcp", "--toolsets="], "core, ui, device-admin"],
    [["--mcp", "--toolsets", "--project", "/p"], "core, ui, device-admin"],
    [["--mcp", "--toolsets", "nope"], "core, ui, device-admin"],
    [["--mcp", "--project"], "--project needs a value"],
    [["--mcp", "--bogus"], "Unknown option"],
    [["trust"], "keynobi trust <path>"],
    [["trust", "a", "b"], "keynobi trust <path>"],
    [["projects", "x"], "takes no arguments"],
    [["frob"], "Unknown command"],
    [[], "No command"],
  ];
  for (const [argv, text] of cases) {
    assertThrows(() => parseArgs(argv), (e) => {
      assertEquals(e instanceof UsageError, true, argv.join(" "));
      assertStringIncludes((e as Error).message, text);
    });
  }
});

Deno.test("parseArgs() reads subcommands and setup options", () => {
  assertEquals(parseArgs(["trust", "/a"]), { kind: "trust", path: "/a" });
  assertEquals(parseArgs(["untrust", "rel/b"]), { kind: "untrust", path: "rel/b" });
  assertEquals(parseArgs(["setup", "--project", "/p", "--toolsets", "core"]), {
    kind: "setup",
    mcpArgs: ["--project", "/p", "--toolsets", "core"],
  });
  assertEquals(parseArgs(["--version"]).kind, "version");
  assertEquals(parseArgs(["setup", "--http", "9000"]), {
    kind: "setup",
    mcpArgs: [],
    http: { hostname: "127.0.0.1", port: 9000 },
  });
});

Deno.test("parseArgs() reads --http [HOST:]PORT and refuses what is not one", () => {
  assertEquals(parseArgs(["--mcp", "--http", "8848"]), {
    kind: "mcp",
    project: null,
    attachOnly: false,
    toolsets: null,
    http: { hostname: "127.0.0.1", port: 8848 },
  });
  const at = (v: string) => (parseArgs(["--mcp", `--http=${v}`]) as { http?: unknown }).http;
  assertEquals(at("0.0.0.0:80"), { hostname: "0.0.0.0", port: 80 });
  assertEquals(at("[::1]:0"), { hostname: "::1", port: 0 });
  assertEquals(at("lab-host.example:65535"), { hostname: "lab-host.example", port: 65535 });
  const bad: [string[], string][] = [
    [["--mcp", "--http"], "--http needs [HOST:]PORT"],
    [["--mcp", "--http", "65536"], "[HOST:]PORT"],
    [["--mcp", "--http", "host:"], "[HOST:]PORT"],
    [["--mcp", "--http", "::1:80"], "IPv6 address in brackets"],
    [["--mcp", "--http", "a b:80"], "[HOST:]PORT"],
    [["--mcp", "--http", "1", "--http", "2"], "given twice"],
    [["--mcp", "--http", "1", "--attach-only"], "cannot be combined with --attach-only"],
  ];
  for (const [argv, text] of bad) {
    assertThrows(() => parseArgs(argv), (e) => {
      assertEquals(e instanceof UsageError, true, argv.join(" "));
      assertStringIncludes((e as Error).message, text);
    });
  }
});

Deno.test("setupLines() quotes every argument for a POSIX shell", () => {
  assertEquals(shellQuote("/usr/bin/keynobi"), "/usr/bin/keynobi");
  assertEquals(shellQuote("/Users/me/My Apps/it's"), `'/Users/me/My Apps/it'\\''s'`);
  const [claude, codex] = setupLines(["/opt/k b/keynobi"], ["--project", "/src/app"]);
  assertEquals(
    claude,
    "claude mcp add --scope user --transport stdio keynobi -- '/opt/k b/keynobi' --mcp --project /src/app",
  );
  assertEquals(codex, "codex mcp add keynobi -- '/opt/k b/keynobi' --mcp --project /src/app");
});

Deno.test("setupLines() output survives a real shell round trip", async () => {
  const hostile = ["/tmp/a b/$(id)`x`;'\"*", "--mcp"];
  const [line] = setupLines(hostile, []);
  const words = line.split(" -- ")[1];
  const out = await new Deno.Command("/bin/sh", {
    args: ["-c", `printf '%s\\n' ${words}`],
  }).output();
  assertEquals(new TextDecoder().decode(out.stdout).split("\n").slice(0, 3), [...hostile, "--mcp"]);
});

Deno.test("invocationDir() uses INIT_CWD only when deno task ran us from this checkout", () => {
  const checkout = decodeURIComponent(new URL("../../", import.meta.url).pathname).replace(
    /\/$/,
    "",
  );
  assertEquals(invocationDir(mapEnv({ INIT_CWD: "/src/app" }), checkout), "/src/app");
  assertEquals(invocationDir(mapEnv({ INIT_CWD: "/src/app" }), "/elsewhere"), "/elsewhere");
  assertEquals(invocationDir(mapEnv({}), checkout), checkout);
});

Deno.test("parseArgs() reads --min-interval-ms in range and refuses the rest", () => {
  const cmd = parseArgs(["--mcp", "--min-interval-ms", "150"]);
  assertEquals((cmd as { minIntervalMs?: number }).minIntervalMs, 150);
  assertEquals(
    (parseArgs(["--mcp", "--min-interval-ms=0"]) as { minIntervalMs?: number }).minIntervalMs,
    0,
  );
  for (const bad of ["-1", "10001", "abc", "1.5", ""]) {
    assertThrows(() => parseArgs(["--mcp", `--min-interval-ms=${bad}`]), (e) => {
      assertEquals(e instanceof UsageError, true, bad);
    });
  }
});

Deno.test("selfCommandFor() names the binary, deno on disk, or npx for a deno npx fetched", () => {
  assertEquals(selfCommandFor("/opt/keynobi", "/src/main.ts", "2.9.6"), ["/opt/keynobi"]);
  const local = selfCommandFor("/usr/bin/deno", "/src/main.ts", "2.9.6");
  assertEquals(local[0], "/usr/bin/deno");
  assertEquals(local.at(-1), "/src/main.ts");
  const npx = selfCommandFor(
    "/home/me/.npm/_npx/1a2b3c/node_modules/deno/deno",
    "/src/main.ts",
    "2.9.6",
  );
  assertEquals(npx.slice(0, 4), ["npx", "-y", "deno@2.9.6", "run"]);
  assertEquals(npx.at(-1), "/src/main.ts");
});

Deno.test("httpSetupLines(): the start command and the claude/codex HTTP registrations with the token", () => {
  const token = "ab".repeat(32);
  const loop = httpSetupLines(["/opt/keynobi"], ["--project", "/src/app"], null, { token });
  assertEquals(loop[1], "/opt/keynobi --mcp --http 127.0.0.1:8848 --project /src/app");
  assertEquals(
    loop[3],
    "claude mcp add --scope user --transport http keynobi http://127.0.0.1:8848/mcp " +
      `--header "Authorization: Bearer ${token}"`,
  );
  assertEquals(loop[4], `export KEYNOBI_HTTP_TOKEN=${token}`);
  assertEquals(
    loop[5],
    "codex mcp add keynobi --url http://127.0.0.1:8848/mcp --bearer-token-env-var KEYNOBI_HTTP_TOKEN",
  );
  const open = httpSetupLines(["/opt/keynobi"], [], null, { noToken: true });
  assertStringIncludes(open[0], "single-user machines only");
  assertEquals(open[1], "/opt/keynobi --mcp --http 127.0.0.1:8848 --http-no-token");
  assertEquals(
    open[3],
    "claude mcp add --scope user --transport http keynobi http://127.0.0.1:8848/mcp",
  );
  assertEquals(open[4], "codex mcp add keynobi --url http://127.0.0.1:8848/mcp");
  // Off loopback the token is the environment's, never written, and there is no opting out.
  for (const auth of [{ token }, { noToken: true as const }]) {
    const lab = httpSetupLines(["/opt/keynobi"], [], { hostname: "0.0.0.0", port: 9000 }, auth);
    assertStringIncludes(lab[0], "KEYNOBI_HTTP_TOKEN");
    assertEquals(
      lab[1],
      'KEYNOBI_HTTP_TOKEN="$KEYNOBI_HTTP_TOKEN" /opt/keynobi --mcp --http 0.0.0.0:9000',
    );
    assertStringIncludes(lab[3], '--header "Authorization: Bearer $KEYNOBI_HTTP_TOKEN"');
    assertStringIncludes(lab[4], "--bearer-token-env-var KEYNOBI_HTTP_TOKEN");
    assert(!lab.join("\n").includes(token));
  }
  const v6 = httpSetupLines(["k"], [], { hostname: "::1", port: 1 }, { token });
  assertEquals(v6[1], "k --mcp --http '[::1]:1'");
  assertStringIncludes(v6[3], "http://[::1]:1/mcp");
});

Deno.test("parseArgs() takes --http-no-token with --http only, once", () => {
  assertEquals(parseArgs(["--mcp", "--http", "9000", "--http-no-token"]), {
    kind: "mcp",
    project: null,
    attachOnly: false,
    toolsets: null,
    http: { hostname: "127.0.0.1", port: 9000 },
    httpNoToken: true,
  });
  assertEquals(parseArgs(["setup", "--http", "9000", "--http-no-token"]), {
    kind: "setup",
    mcpArgs: [],
    http: { hostname: "127.0.0.1", port: 9000 },
    httpNoToken: true,
  });
  assertThrows(() => parseArgs(["--mcp", "--http-no-token"]), /goes with --http/);
  assertThrows(
    () => parseArgs(["--mcp", "--http", "1", "--http-no-token", "--http-no-token"]),
    /twice/,
  );
});

Deno.test("parseArgs() reads keynobi app's --ui-port and --no-ui; bad values are usage errors", () => {
  assertEquals(parseArgs(["app", "--ui-port", "8850"]), {
    kind: "app",
    project: null,
    uiPort: 8850,
  });
  assertEquals(parseArgs(["app", "--ui-port=0", "--project", "/p"]), {
    kind: "app",
    project: "/p",
    uiPort: 0,
  });
  assertEquals(parseArgs(["app", "--no-ui"]), { kind: "app", project: null, uiPort: null });
  for (const bad of [["--ui-port"], ["--ui-port", "65536"], ["--ui-port", "-1"], ["--ui-port=x"]]) {
    const e = assertThrows(() => parseArgs(["app", ...bad]), UsageError);
    assertStringIncludes(e.message, "--ui-port takes a port from 0 to 65535");
  }
  assertThrows(() => parseArgs(["app", "--no-ui", "--ui-port", "1"]), UsageError);
});

Deno.test("parseArgs() reads keynobi retrace --mapping FILE [TRACE_FILE]; a missing mapping is a usage error", () => {
  assertEquals(parseArgs(["retrace", "--mapping", "m.txt", "t.txt"]), {
    kind: "retrace",
    mapping: "m.txt",
    trace: "t.txt",
  });
  assertEquals(parseArgs(["retrace", "t.txt", "--mapping=m.txt"]), {
    kind: "retrace",
    mapping: "m.txt",
    trace: "t.txt",
  });
  assertEquals(parseArgs(["retrace", "--mapping", "m.txt"]).kind, "retrace");
  assertEquals(parseArgs(["retrace", "--mapping", "m.txt", "-"]), {
    kind: "retrace",
    mapping: "m.txt",
    trace: null,
  });
  assertStringIncludes(
    assertThrows(() => parseArgs(["retrace", "t.txt"]), UsageError).message,
    "keynobi retrace --mapping <mapping.txt> [<trace file>]",
  );
  assertThrows(() => parseArgs(["retrace", "--mapping"]), UsageError);
  assertThrows(() => parseArgs(["retrace", "--mapping", "a", "--mapping", "b"]), UsageError);
  assertThrows(() => parseArgs(["retrace", "--mapping", "m", "a.txt", "b.txt"]), UsageError);
  assertThrows(() => parseArgs(["retrace", "--mapping", "m", "--json"]), UsageError);
});
