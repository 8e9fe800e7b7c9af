/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, npm) against
 * `keynobi --mcp --http --http-no-token` on loopback. Every scenario that applies to a server with our
 * capabilities must pass; the ones that do not apply are named below with the reason, and must
 * fail only for that reason (so a real regression in them still shows).
 *
 * It needs Node >= 22 and the suite, which `.ci/run` installs from npm and names in
 * KEYNOBI_CONFORMANCE_NODE / KEYNOBI_CONFORMANCE_CLI; without them the test is skipped.
 */
import { assert, assertEquals } from "../assert.ts";
import { startHttpServer, startWorld } from "../e2e/harness.ts";

const NODE = Deno.env.get("KEYNOBI_CONFORMANCE_NODE");
const CLI = Deno.env.get("KEYNOBI_CONFORMANCE_CLI");

const TEST_TOOLS = "it calls the reference server's test_* tools; keynobi serves only its own " +
  "registry (the same behaviour is covered for our tools by tests/e2e)";
const TEST_PROMPTS = "it gets the reference server's test_* prompts; keynobi serves only its own";
const TEST_RESOURCES = "it reads the reference server's test:// resources; keynobi serves only " +
  "its project's";

/** Scenario → [why it does not apply, what its failure must say]. */
export const NOT_APPLICABLE: Record<string, [string, RegExp]> = {
  "logging-set-level": [
    "keynobi does not declare the logging capability (its logs go to stderr, never to the client)",
    /Method not found: logging\/setLevel/,
  ],
  "completion-complete": [
    "keynobi declares no completions capability (no prompt or resource template takes a " +
    "completable argument)",
    /Method not found: completion\/complete/,
  ],
  "tools-call-simple-text": [TEST_TOOLS, /Unknown tool: test_/],
  "tools-call-image": [TEST_TOOLS, /Unknown tool: test_/],
  "tools-call-audio": [TEST_TOOLS, /Unknown tool: test_/],
  "tools-call-embedded-resource": [TEST_TOOLS, /Unknown tool: test_/],
  "tools-call-mixed-content": [TEST_TOOLS, /Unknown tool: test_/],
  "tools-call-error": [TEST_TOOLS, /Unknown tool: test_/],
  "tools-call-with-progress": [TEST_TOOLS, /Unknown tool: test_/],
  "tools-call-with-logging": [
    "it needs the logging capability and a test_* tool",
    /Method not found: logging\/setLevel|Unknown tool: test_/,
  ],
  "tools-call-sampling": [
    "keynobi never sends sampling requests to the client; " + TEST_TOOLS,
    /Unknown tool: test_/,
  ],
  "tools-call-elicitation": [
    "keynobi never sends elicitation requests to the client; " + TEST_TOOLS,
    /Unknown tool: test_/,
  ],
  "elicitation-sep1034-defaults": [
    "keynobi never sends elicitation requests; " + TEST_TOOLS,
    /Unknown tool: test_/,
  ],
  "elicitation-sep1330-enums": [
    "keynobi never sends elicitation requests; " + TEST_TOOLS,
    /Unknown tool: test_/,
  ],
  "resources-read-text": [TEST_RESOURCES, /Resource not found: test:\/\//],
  "resources-read-binary": [TEST_RESOURCES, /Resource not found: test:\/\//],
  "resources-templates-read": [
    "keynobi serves no resource templates; " + TEST_RESOURCES,
    /Resource not found: test:\/\//,
  ],
  "resources-subscribe": [
    "keynobi does not declare resources.subscribe",
    /Method not found: resources\/subscribe/,
  ],
  "resources-unsubscribe": [
    "keynobi does not declare resources.subscribe",
    /Method not found: resources\/(un)?subscribe/,
  ],
  "json-schema-2020-12": [
    "it lists the reference server's json_schema_2020_12_tool; keynobi's tools are its own " +
    "(their schemas are JSON Schema from zod, checked by tests/mcp/registry_test.ts)",
    /Tool 'json_schema_2020_12_tool' not found/,
  ],
  "prompts-get-simple": [TEST_PROMPTS, /Unknown prompt: test_/],
  "prompts-get-with-args": [TEST_PROMPTS, /Unknown prompt: test_/],
  "prompts-get-embedded-resource": [TEST_PROMPTS, /Unknown prompt: test_/],
  "prompts-get-with-image": [TEST_PROMPTS, /Unknown prompt: test_/],
};

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

/** Each scenario's checks, from the suite's output folder (one `server-<name>-<time>/` each). */
async function readResults(dir: string): Promise<Map<string, Check[]>> {
  const out = new Map<string, Check[]>();
  for await (const e of Deno.readDir(dir)) {
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(e.name);
    if (!e.isDirectory || !m) continue;
    const checks = JSON.parse(await Deno.readTextFile(`${dir}/${e.name}/checks.json`));
    out.set(m[1], checks as Check[]);
  }
  return out;
}

Deno.test({
  name: "the MCP conformance suite passes every scenario that applies to keynobi --mcp --http",
  ignore: !NODE || !CLI,
  async fn() {
    await using world = await startWorld();
    // The suite is driven as a client without credentials (its command line takes a URL): the
    // server runs with the documented opt-out; the token itself is tested in tests/e2e/http_test.ts.
    await using server = await startHttpServer(world, [
      "--http-no-token",
      "--project",
      world.sim.projects["sample-kts"],
    ]);
    const outDir = await Deno.makeTempDir({ prefix: "keynobi-conformance-" });
    try {
      const run = await new Deno.Command(NODE!, {
        // "all": the active scenarios and the pending ones (json-schema-2020-12,
        // server-sse-polling).
        args: [CLI!, "server", "--suite", "all", "--url", server.url, "-o", outDir],
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1" },
      }).output();
      const log = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
      const results = await readResults(outDir);
      assert(results.size >= 20, `the suite ran its scenarios:\n${log.slice(-3000)}`);
      const summary: string[] = [];
      const problems: string[] = [];
      for (const [name, checks] of [...results].sort()) {
        const failed = checks.filter((c) => c.status === "FAILURE");
        const na = NOT_APPLICABLE[name];
        if (!na) {
          summary.push(`${name}: ${failed.length ? "FAILED" : "passed"}`);
          for (const f of failed) problems.push(`${name}: ${f.id}: ${f.errorMessage ?? ""}`);
          continue;
        }
        summary.push(`${name}: not applicable (${na[0]})`);
        for (const f of failed) {
          if (!na[1].test(f.errorMessage ?? "")) {
            problems.push(`${name} (not applicable) failed otherwise: ${f.errorMessage ?? f.id}`);
          }
        }
      }
      for (const name of Object.keys(NOT_APPLICABLE)) {
        if (!results.has(name)) {
          problems.push(`${name} is listed as not applicable but did not run`);
        }
      }
      console.log(summary.join("\n"));
      assertEquals(problems, [], problems.join("\n"));
      assert(results.has("server-initialize") && results.has("tools-list"));
    } finally {
      await Deno.remove(outDir, { recursive: true }).catch(() => {});
    }
  },
});
