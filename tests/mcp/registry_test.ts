/**
 * The registry is the single source of truth: these tests keep the docs, the skill, the prompts,
 * deno.json and the reference spec in step with it.
 */
import { assert, assertEquals } from "../assert.ts";
import { FAMILIES, fileOfTool, TOOLS } from "../../lib/tools/registry.ts";
import { z } from "zod";
import { PROMPTS } from "../../lib/tools/prompts.ts";
import { inputSchemaOf } from "../../lib/mcp/server.ts";
import {
  renderToolTable,
  TABLE_END,
  TABLE_START,
  withToolTable,
} from "../../lib/mcp/docs_table.ts";
import { RUN_FLAGS } from "../../lib/cli/permissions.ts";
import { VERSION } from "../../lib/version.ts";
import { buildInstructions } from "../../lib/mcp/instructions.ts";
import { TOOLSETS } from "../../lib/mcp/tool_def.ts";
import { readSkill } from "../../lib/tools/resources.ts";

const root = new URL("../../", import.meta.url);
const SPEC = new URL("../shared/spec/KEYNOBI_MCP_SERVER.md", root);
const specText = await Deno.readTextFile(SPEC).catch(() => null);
if (specText === null) {
  console.error(
    "note: ../shared/spec is absent; the checks against the reference spec are skipped",
  );
}

/** `{tool → {kind, toolset}}` from the spec's tables, plus the tools added by our issues. */
function specTools(text: string): Map<string, { kind?: string; toolset?: string }> {
  const out = new Map<string, { kind?: string; toolset?: string }>();
  for (const line of text.split("\n")) {
    const toolset = /^\| `(core|ui|device-admin)` \| [^|]+\| (.+) \|$/.exec(line);
    if (toolset) {
      for (const m of toolset[2].matchAll(/`([a-z_]+)`/g)) {
        out.set(m[1], { ...out.get(m[1]), toolset: toolset[1] });
      }
    }
    const row = /^\| ((?:`[a-z_]+`(?:, )?)+) \| ([RWDO]) \|/.exec(line);
    if (row) {
      for (const m of row[1].matchAll(/`([a-z_]+)`/g)) {
        out.set(m[1], { ...out.get(m[1]), kind: row[2] });
      }
    }
  }
  return out;
}

Deno.test("registry: names are unique snake_case and every parameter is described", () => {
  const names = TOOLS.map((t) => t.name);
  assertEquals(new Set(names).size, names.length);
  for (const t of TOOLS) {
    assert(/^[a-z][a-z0-9_]*$/.test(t.name), `${t.name} is snake_case`);
    assert((TOOLSETS as readonly string[]).includes(t.toolset), `${t.name} has a toolset`);
    assert(
      t.description.length > 10 && t.description.length <= 300,
      `${t.name}: description length`,
    );
    const props = (inputSchemaOf(t).properties ?? {}) as Record<string, { description?: string }>;
    for (const [key, schema] of Object.entries(props)) {
      assert(/^[a-z][a-z0-9_]*$/.test(key), `${t.name}.${key} is snake_case`);
      assert(schema.description && schema.description.length > 3, `${t.name}.${key} is described`);
    }
  }
});

Deno.test({
  name: "registry: each tool's toolset and kind match the reference spec",
  ignore: specText === null,
  fn() {
    const spec = specTools(specText!);
    assert(spec.size >= 60, `the spec's tables parse (${spec.size} tools)`);
    for (const t of TOOLS) {
      const s = spec.get(t.name);
      if (!s) continue; // A tool our issues add beyond the spec.
      if (s.toolset) assertEquals(t.toolset, s.toolset, `${t.name} toolset`);
      if (s.kind) assertEquals(t.kind, s.kind, `${t.name} kind`);
    }
  },
});

Deno.test({
  name: "prompts: name only tools the spec defines, and only the tools they declare",
  ignore: specText === null,
  fn() {
    const spec = specTools(specText!);
    const names = new Set([...spec.keys(), ...TOOLS.map((t) => t.name)]);
    for (const p of PROMPTS) {
      for (const t of p.tools) assert(names.has(t), `${p.name} names ${t}`);
      const args = Object.fromEntries(p.arguments.map((a) => [a.name, "x"]));
      const text = p.render(args);
      for (const m of text.matchAll(/\b([a-z]+(?:_[a-z]+)+)\b/g)) {
        if (p.arguments.some((a) => a.name === m[1])) continue;
        if (names.has(m[1])) assert(p.tools.includes(m[1]), `${p.name} declares ${m[1]}`);
      }
    }
  },
});

/**
 * Every call a prompt prescribes, `tool (name: value, …)`, with placeholders (`<…>`) read as
 * plausible values: the tool's own schema must accept it, unknown parameters included.
 */
Deno.test("prompts: every call they prescribe is one the server accepts", () => {
  const sample: Record<string, string> = {
    package: "com.example.app",
    device_serial: "emulator-5554",
    variant: "debug",
    task: "assembleDebug",
  };
  let checked = 0;
  for (const p of PROMPTS) {
    for (const withOptional of [false, true]) {
      const args = Object.fromEntries(
        p.arguments.filter((a) => a.required || withOptional).map((a) => [a.name, sample[a.name]]),
      );
      const text = p.render(args);
      for (const m of text.matchAll(/\b([a-z]+(?:_[a-z]+)+) \(([^()]*)\)/g)) {
        const tool = TOOLS.find((t) => t.name === m[1]);
        if (!tool) continue;
        const call: Record<string, unknown> = {};
        for (const pair of m[2].split(/,\s*/)) {
          const kv = /^([a-z_]+): (.+)$/.exec(pair.trim());
          assert(kv, `${p.name}: cannot read "${pair}" in ${m[0]}`);
          const [, key, raw] = kv;
          call[key] = raw === "true" || raw === "false"
            ? raw === "true"
            : /^\d+$/.test(raw)
            ? Number(raw)
            : raw.startsWith("<")
            ? (key === "apk_path"
              ? "app/build/outputs/apk/debug/app-debug.apk"
              : sample[key] ?? "x")
            : raw;
        }
        const unknown = Object.keys(call).filter((k) => !(k in tool.params));
        assertEquals(
          unknown,
          [],
          `${p.name}: ${m[0]} passes parameters ${tool.name} does not take`,
        );
        const parsed = z.object(tool.params).strict().safeParse(call);
        assert(parsed.success, `${p.name}: ${m[0]} is refused: ${parsed.error?.message}`);
        checked++;
      }
    }
  }
  assert(checked >= 10, `only ${checked} calls found in the prompts`);
});

Deno.test("skill: every snake_case name in backticks is a served tool; a parameter is `name: value`", async () => {
  const skill = await readSkill();
  assert(skill.startsWith("---\nname: keynobi\ndescription: "), "skill frontmatter");
  const tools = new Set(TOOLS.map((t) => t.name));
  for (const m of skill.matchAll(/`([a-z]+(?:_[a-z]+)+)(:[^`]*)?`/g)) {
    const name = m[1];
    if (m[2] === undefined) {
      assert(tools.has(name), `the skill puts ${name} in backticks, which is not a tool`);
    } else {
      assert(TOOLS.some((t) => name in t.params), `the skill writes ${m[0]}: not a parameter`);
    }
  }
});

Deno.test("instructions: name the served and hidden toolsets, and no tool (tools/list has them)", () => {
  for (const sets of [[...TOOLSETS], ["core"], ["ui", "device-admin"]] as const) {
    const text = buildInstructions({
      mode: "standalone",
      standaloneReason: "no Keynobi app is running",
      enabledToolsets: sets,
      project: null,
    });
    assert(text.startsWith("Keynobi MCP server, standalone (no Keynobi app is running)"));
    for (const set of TOOLSETS) {
      assertEquals(text.includes(`${set} (`), sets.includes(set as never), `${set} served`);
    }
    for (const t of TOOLS) {
      assert(!new RegExp(`\\b${t.name}\\b`).test(text), `${t.name} with ${sets.join(",")}`);
    }
  }
});

Deno.test("docs: docs/MCP_SERVER.md's tool table is the registry's", async () => {
  const doc = await Deno.readTextFile(new URL("docs/MCP_SERVER.md", root));
  const table = renderToolTable(TOOLS, fileOfTool);
  const start = doc.indexOf(TABLE_START), end = doc.indexOf(TABLE_END) + TABLE_END.length;
  assert(start >= 0 && end > start, "docs/MCP_SERVER.md has the table markers");
  assertEquals(doc.slice(start, end), table, "run `deno task docs` to regenerate the table");
  assertEquals(withToolTable(doc, table), doc);
  for (const set of TOOLSETS) assert(doc.includes(`\`${set}\``), `docs name the ${set} toolset`);
});

Deno.test("deno.json: tasks run with the shared permission flags and the version matches", async () => {
  const cfg = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  assertEquals(cfg.version, VERSION);
  for (const task of ["keynobi", "mcp", "app", "dev"]) {
    const cmd: string = cfg.tasks[task];
    for (const flag of RUN_FLAGS) assert(cmd.includes(flag), `${task} has ${flag}`);
    assert(!/\s-A\b|--allow-all/.test(cmd), `${task} never uses -A`);
  }
  assert(cfg.tasks.mcp.includes("main.ts --mcp"));
  for (const [name, cmd] of Object.entries(cfg.tasks)) {
    assert(!/\s-A\b|--allow-all/.test(cmd as string), `${name} never uses -A`);
  }
});

Deno.test("skill: names every UI tool, and deobfuscation (retrace) for crash traces", async () => {
  const skill = await readSkill();
  const named = new Set([...skill.matchAll(/`([a-z]+(?:_[a-z]+)*)(?::[^`]*)?`/g)].map((m) => m[1]));
  const missing = TOOLS.filter((t) => t.toolset === "ui" && !named.has(t.name)).map((t) => t.name);
  assertEquals(missing, [], "UI tools the skill never mentions");
  assert(/`retrace: true`/.test(skill), "the skill says how to deobfuscate a trace");
});

Deno.test("registry: each family file exists and defines exactly the tools the registry lists for it", async () => {
  const seen = new Set<string>();
  for (const f of FAMILIES) {
    assert(/^[a-z_]+\/[a-z_]+\.ts$/.test(f.file), `${f.file} is lib/tools/<area>/<family>.ts`);
    const mod = await import(new URL(`lib/tools/${f.file}`, root).href);
    const arrays = Object.values(mod).filter(Array.isArray) as { name?: string }[][];
    const defined = arrays.flat().map((t) => t.name);
    assertEquals(defined, f.tools.map((t) => t.name), `${f.file} exports the registry's tools`);
    for (const t of f.tools) {
      assert(!seen.has(t.name), `${t.name} is listed once`);
      seen.add(t.name);
      assertEquals(fileOfTool(t.name), f.file);
    }
  }
  assertEquals([...seen], TOOLS.map((t) => t.name), "TOOLS is the families in order");
  assertEquals(fileOfTool("no_such_tool"), undefined);
});
