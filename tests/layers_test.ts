/**
 * Layers: every import in lib/, workers/ and main.ts points down, and no files import each other
 * in a circle. The imports are read by Deno's own module graph (`deno info --json`, the same
 * parser that runs the code): static, dynamic with a literal specifier, `export … from`, and
 * `import type` (a type-only import is a dependency of the reader too). The allowed directions are
 * written here once, in `LAYERS`; docs/ARCHITECTURE.md's layer list is checked against them.
 */
import { assert, assertEquals } from "./assert.ts";

const ROOT = new URL("../", import.meta.url);

/**
 * Rows from the top down. A file may import files of its own folder and of the folders in the
 * rows below its own; never a row above, and never another folder of its own row.
 * `cli → tools → services → adb → core`; `lib/mcp` knows tool definitions, not devices.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ["main.ts", "workers"], // entry points: the process, and the worker threads (started by URL)
  ["lib/cli"], // subcommands and the runtime they share
  ["lib/tools", "lib/attach", "lib/dashboard"], // the tools; keynobi app's socket, relay, page
  ["lib/mcp"], // the protocol: framing, sessions, tool definitions, toolsets, activity log
  ["lib/deploy"], // services, each above what it uses …
  ["lib/sessions"],
  ["lib/build"], // the build: its worker's service, client, parser, history, lock, APKs
  ["lib/project"], // the project without Gradle: root, trust, build files, model, variants
  ["lib/ui", "lib/logcat", "lib/retrace"],
  ["lib/android", "lib/emulator"], // … down to the device facts and the emulator endpoint
  ["lib/adb"], // the ADB host protocol
  ["lib/core", "lib/version.ts"], // what everything may use
];

/** Folders that may import only these, whatever their row allows. */
export const ONLY_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  "lib/mcp": ["lib/core"], // knows tool definitions, not devices
};

/**
 * Folders whose code runs in a worker thread (or a worker's child process). Only the files of
 * their `shared/` subfolder run on the main thread: a file outside the folder (but workers/, which
 * starts the worker's side) may import only `<folder>/shared/…`, and a shared file imports nothing
 * of its folder outside `shared/`. Every import counts, `import type` too: the types the two
 * threads exchange are part of what they share. A folder joins this list once it holds.
 */
export const WORKER_FOLDERS: readonly string[] = [
  "lib/build",
  "lib/emulator",
  "lib/logcat",
  "lib/retrace",
  "lib/ui",
];

/**
 * Worker folders whose worker-only code runs in another worker folder's thread, which may then
 * import it past shared/: lib/emulator's gRPC link, frames and touch run in the UI worker (and
 * its child process), called by lib/ui's fast paths.
 */
export const RUNS_IN: Readonly<Record<string, string>> = { "lib/emulator": "lib/ui" };

/**
 * npm packages only worker-only code of a worker folder may import (the folder rule then keeps
 * them off the main thread): the gRPC stack in lib/emulator, the XML fallback parser in lib/ui.
 */
export const WORKER_PACKAGES: Readonly<Record<string, string>> = {
  "@grpc/grpc-js": "lib/emulator",
  "@grpc/proto-loader": "lib/emulator",
  "fast-xml-parser": "lib/ui",
};

/** Where a path lies for the thread rule: outside every worker folder, shared, or worker-only. */
function threadSide(
  path: string,
  folders: readonly string[],
): { folder: string; shared: boolean } | null {
  const folder = folders.find((f) => path.startsWith(`${f}/`));
  if (folder === undefined) return null;
  return { folder, shared: path.startsWith(`${folder}/shared/`) };
}

/** What is wrong with one import under the thread rule, or `null`. */
export function threadProblem(
  i: Import,
  folders: readonly string[] = WORKER_FOLDERS,
  runsIn: Readonly<Record<string, string>> = RUNS_IN,
): string | null {
  const to = threadSide(i.to, folders);
  if (to === null || to.shared || i.from.startsWith("workers/")) return null;
  const from = threadSide(i.from, folders);
  if (from !== null && !from.shared && runsIn[to.folder] === from.folder) return null;
  if (from === null || from.folder !== to.folder) {
    return `${at(i)}: worker-only code of ${to.folder} imported from outside it ` +
      `(the main thread may import only ${to.folder}/shared/)`;
  }
  if (from.shared) {
    return `${at(i)}: a shared file imports worker-only code (${to.folder}/shared/ imports ` +
      `nothing of ${to.folder} outside shared/)`;
  }
  return null;
}

/** The npm package an import resolves to (`npm:@grpc/grpc-js@1.14.7` → `@grpc/grpc-js`), or `null`. */
export function packageOf(resolved: string): string | null {
  const m = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)/.exec(resolved);
  return m ? m[1] : null;
}

/** What is wrong with importing an npm package under `WORKER_PACKAGES`, or `null`. */
export function packageProblem(
  i: Import,
  homes: Readonly<Record<string, string>> = WORKER_PACKAGES,
  folders: readonly string[] = WORKER_FOLDERS,
): string | null {
  const name = packageOf(i.to);
  const home = name === null ? undefined : homes[name];
  if (home === undefined) return null;
  const side = threadSide(i.from, folders);
  if (side !== null && side.folder === home && !side.shared) return null;
  return `${at(i)}: ${name} is imported only by worker-only code of ${home} (never on the main ` +
    "thread)";
}

/** One import as read: the importing file, its line (1-based), what it wrote, what it names. */
export interface Import {
  from: string;
  line: number;
  specifier: string;
  to: string;
}

/** The layer folder a repository path belongs to, or `null` outside every layer. */
export function folderOf(path: string): string | null {
  const folders = LAYERS.flat();
  if (folders.includes(path)) return path;
  const parts = path.split("/");
  const folder = parts[0] === "lib" && parts.length > 2 ? `lib/${parts[1]}` : parts[0];
  return folders.includes(folder) ? folder : null;
}

function rowOf(folder: string): number {
  return LAYERS.findIndex((row) => row.includes(folder));
}

const at = (i: Import) => `${i.from}:${i.line} imports "${i.specifier}" (${i.to})`;

/** What is wrong with one import, or `null` when it points down or stays in its folder. */
export function importProblem(i: Import): string | null {
  const from = folderOf(i.from);
  if (from === null) return null; // not a file of the layers (tests, scripts)
  const to = folderOf(i.to);
  if (to === null) {
    return `${at(i)}: outside lib/ and workers/ (lib never imports tests/ or scripts/)`;
  }
  if (to === from) return null;
  const only = ONLY_IMPORTS[from];
  if (only && !only.includes(to)) {
    return `${at(i)}: ${from} may import only ${only.join(", ")}`;
  }
  const a = rowOf(from), b = rowOf(to);
  if (b < a) return `${at(i)}: an upward import (${to} is above ${from})`;
  if (b === a) return `${at(i)}: a sideways import (${from} and ${to} share a row)`;
  return null;
}

/** Files that import each other in a loop (Tarjan's strongly connected components), each sorted. */
export function circles(imports: readonly Import[]): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const i of imports) {
    if (!edges.has(i.from)) edges.set(i.from, new Set());
    edges.get(i.from)!.add(i.to);
  }
  const index = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>(), out: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next), low.set(v, next), next++;
    stack.push(v), onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || edges.get(v)?.has(v)) out.push(scc.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Each circle with the imports that tie it, one line per import. */
export function circleProblems(imports: readonly Import[]): string[] {
  return circles(imports).map((files) => {
    const inside = new Set(files);
    const ties = imports.filter((i) => inside.has(i.from) && inside.has(i.to)).map(at);
    return `a circle of ${files.length} file(s): ${files.join(", ")}\n    ${ties.join("\n    ")}`;
  });
}

async function sourceFiles(dir: URL, rel: string, out: string[]): Promise<void> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${rel}/${e.name}`;
    if (e.isDirectory) await sourceFiles(new URL(`${e.name}/`, dir), path, out);
    else if (e.isFile && e.name.endsWith(".ts")) out.push(path);
  }
}

/** Every `.ts` file of lib/ and workers/, and main.ts, as repository paths. */
async function layerFiles(): Promise<string[]> {
  const out = ["main.ts"];
  await sourceFiles(new URL("lib/", ROOT), "lib", out);
  await sourceFiles(new URL("workers/", ROOT), "workers", out);
  return out.sort();
}

interface InfoDependency {
  specifier: string;
  code?: { specifier?: string; span?: { start: { line: number } } };
  type?: { specifier?: string; span?: { start: { line: number } } };
}

/**
 * Every import of `files`, read by `deno info --json`: those between files of this repository, and
 * those of an npm package (`to` is then the resolved `npm:` specifier).
 */
async function readImports(
  files: readonly string[],
): Promise<{ imports: Import[]; packages: Import[] }> {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-layers-" });
  try {
    const entry = `${dir}/all.ts`;
    await Deno.writeTextFile(
      entry,
      files.map((f) => `import "${new URL(f, ROOT).href}";\n`).join(""),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", new URL("deno.json", ROOT).pathname, entry],
      cwd: new URL(".", ROOT).pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assert(out.success, `deno info failed: ${err}`);
    const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: { specifier: string; error?: string; dependencies?: InfoDependency[] }[];
    };
    const rel = (href: string | undefined) =>
      href?.startsWith(ROOT.href) ? decodeURIComponent(href.slice(ROOT.href.length)) : null;
    const imports: Import[] = [], packages: Import[] = [];
    for (const m of graph.modules) {
      const from = rel(m.specifier);
      if (from === null) continue;
      assertEquals(m.error, undefined, `${from} cannot be read: ${m.error}`);
      for (const d of m.dependencies ?? []) {
        for (const r of [d.code, d.type]) {
          if (!r?.specifier || !r.span) continue;
          const line = r.span.start.line + 1, to = rel(r.specifier);
          if (to !== null) imports.push({ from, line, specifier: d.specifier, to });
          else if (r.specifier.startsWith("npm:")) {
            packages.push({ from, line, specifier: d.specifier, to: r.specifier });
          }
        }
      }
    }
    return { imports, packages };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("layers: an upward, sideways or outside import is reported with its file and line", () => {
  const imp = (from: string, to: string): Import => ({ from, line: 7, specifier: "x", to });
  assertEquals(importProblem(imp("lib/tools/a.ts", "lib/build/b.ts")), null);
  assertEquals(importProblem(imp("lib/build/a.ts", "lib/build/b.ts")), null);
  assertEquals(importProblem(imp("workers/ui.ts", "lib/ui/ui_service.ts")), null);
  assertEquals(importProblem(imp("tests/x_test.ts", "lib/cli/main.ts")), null);
  assertEquals(
    importProblem(imp("lib/core/settings.ts", "lib/project/project_root.ts")),
    'lib/core/settings.ts:7 imports "x" (lib/project/project_root.ts): an upward import ' +
      "(lib/project is above lib/core)",
  );
  assertEquals(
    importProblem(imp("lib/ui/a.ts", "lib/logcat/b.ts")),
    'lib/ui/a.ts:7 imports "x" (lib/logcat/b.ts): a sideways import (lib/ui and lib/logcat ' +
      "share a row)",
  );
  assertEquals(
    importProblem(imp("lib/mcp/a.ts", "lib/adb/client.ts")),
    'lib/mcp/a.ts:7 imports "x" (lib/adb/client.ts): lib/mcp may import only lib/core',
  );
  assertEquals(
    importProblem(imp("lib/ui/a.ts", "tests/sim/mod.ts")),
    'lib/ui/a.ts:7 imports "x" (tests/sim/mod.ts): outside lib/ and workers/ (lib never ' +
      "imports tests/ or scripts/)",
  );
  assertEquals(
    importProblem(imp("lib/cli/a.ts", "main.ts")),
    'lib/cli/a.ts:7 imports "x" (main.ts): an upward import (main.ts is above lib/cli)',
  );
});

Deno.test("layers: the thread rule lets only workers/ and the folder itself past shared/", () => {
  const imp = (from: string, to: string): Import => ({ from, line: 3, specifier: "x", to });
  const ui = ["lib/ui"];
  assertEquals(threadProblem(imp("lib/tools/a.ts", "lib/ui/shared/client.ts"), ui), null);
  assertEquals(threadProblem(imp("workers/ui.ts", "lib/ui/ui_service.ts"), ui), null);
  assertEquals(threadProblem(imp("lib/ui/look.ts", "lib/ui/shared/limits.ts"), ui), null);
  assertEquals(threadProblem(imp("lib/ui/look.ts", "lib/ui/capture.ts"), ui), null);
  assertEquals(threadProblem(imp("lib/tools/a.ts", "lib/logcat/pipeline.ts"), ui), null);
  assertEquals(
    threadProblem(imp("lib/tools/a.ts", "lib/ui/capture.ts"), ui),
    'lib/tools/a.ts:3 imports "x" (lib/ui/capture.ts): worker-only code of lib/ui imported ' +
      "from outside it (the main thread may import only lib/ui/shared/)",
  );
  assertEquals(
    threadProblem(imp("lib/ui/shared/client.ts", "lib/ui/capture.ts"), ui),
    'lib/ui/shared/client.ts:3 imports "x" (lib/ui/capture.ts): a shared file imports ' +
      "worker-only code (lib/ui/shared/ imports nothing of lib/ui outside shared/)",
  );
});

Deno.test("layers: lib/emulator's worker code is lib/ui's; its npm packages stay off the main thread", () => {
  const imp = (from: string, to: string): Import => ({ from, line: 5, specifier: "x", to });
  const both = ["lib/ui", "lib/emulator"], runsIn = { "lib/emulator": "lib/ui" };
  const link = "lib/emulator/link.ts";
  assertEquals(threadProblem(imp("lib/ui/fast_paths.ts", link), both, runsIn), null);
  assertEquals(threadProblem(imp("lib/emulator/touch.ts", link), both, runsIn), null);
  assertEquals(
    threadProblem(imp("lib/ui/shared/client.ts", link), both, runsIn),
    'lib/ui/shared/client.ts:5 imports "x" (lib/emulator/link.ts): worker-only code of ' +
      "lib/emulator imported from outside it (the main thread may import only lib/emulator/shared/)",
  );
  assert(threadProblem(imp("lib/tools/ui/paths.ts", link), both, runsIn) !== null);
  assert(threadProblem(imp("lib/ui/fast_paths.ts", link), both, {}) !== null);
  assertEquals(packageOf("npm:@grpc/grpc-js@1.14.7"), "@grpc/grpc-js");
  assertEquals(
    packageOf("npm:/@modelcontextprotocol/sdk@1.32.2/types.js"),
    "@modelcontextprotocol/sdk",
  );
  assertEquals(packageOf("npm:fast-xml-parser@5.12.1"), "fast-xml-parser");
  assertEquals(packageOf("lib/ui/hierarchy.ts"), null);
  const grpc = "npm:@grpc/grpc-js@1.14.7";
  assertEquals(packageProblem(imp("lib/emulator/grpc_client.ts", grpc)), null);
  assertEquals(packageProblem(imp("lib/tools/a.ts", "npm:zod@4.6.7")), null);
  assertEquals(
    packageProblem(imp("lib/emulator/shared/discovery.ts", grpc)),
    'lib/emulator/shared/discovery.ts:5 imports "x" (npm:@grpc/grpc-js@1.14.7): @grpc/grpc-js is ' +
      "imported only by worker-only code of lib/emulator (never on the main thread)",
  );
  assert(packageProblem(imp("lib/tools/a.ts", "npm:fast-xml-parser@5.12.1")) !== null);
  assert(packageProblem(imp("lib/ui/grpc.ts", grpc)) !== null);
});

Deno.test("layers: a circle is reported with the imports that tie it", () => {
  const imp = (from: string, to: string, line: number): Import => ({
    from,
    line,
    specifier: `./${to.split("/").at(-1)}`,
    to,
  });
  const imports = [
    imp("lib/ui/a.ts", "lib/ui/b.ts", 3),
    imp("lib/ui/b.ts", "lib/ui/c.ts", 4),
    imp("lib/ui/c.ts", "lib/ui/a.ts", 5),
    imp("lib/ui/c.ts", "lib/ui/d.ts", 6),
    imp("lib/ui/e.ts", "lib/ui/e.ts", 1),
  ];
  assertEquals(circles(imports), [["lib/ui/a.ts", "lib/ui/b.ts", "lib/ui/c.ts"], ["lib/ui/e.ts"]]);
  assertEquals(circleProblems(imports.slice(0, 4)), [
    "a circle of 3 file(s): lib/ui/a.ts, lib/ui/b.ts, lib/ui/c.ts\n" +
    '    lib/ui/a.ts:3 imports "./b.ts" (lib/ui/b.ts)\n' +
    '    lib/ui/b.ts:4 imports "./c.ts" (lib/ui/c.ts)\n' +
    '    lib/ui/c.ts:5 imports "./a.ts" (lib/ui/a.ts)',
  ]);
  assertEquals(circles(imports.slice(3, 4)), []);
});

Deno.test("layers: every folder of lib/ has a row, and every row's folder exists", async () => {
  const existing = ["main.ts", "workers"];
  for await (const e of Deno.readDir(new URL("lib/", ROOT))) {
    if (e.isDirectory || e.name.endsWith(".ts")) existing.push(`lib/${e.name}`);
  }
  assertEquals(LAYERS.flat().sort(), existing.sort());
});

Deno.test("layers: no import in lib/, workers/ or main.ts points up or sideways, crosses a thread, or is in a circle", async () => {
  const files = await layerFiles();
  const { imports, packages } = await readImports(files);
  const read = new Set(imports.map((i) => i.from));
  assert(read.has("lib/cli/main.ts") && read.has("workers/ui.ts"), "the graph was read");
  assert(
    imports.some((i) => i.from === "lib/tools/ui/act.ts" && i.to === "lib/ui/shared/act_types.ts"),
    "type-only imports are read",
  );
  assert(
    packages.some((i) => i.from === "lib/emulator/grpc_client.ts" && i.to.includes("grpc-js")),
    "npm imports are read",
  );
  const problems = [
    ...imports.map(importProblem).filter((p) => p !== null),
    ...imports.map((i) => threadProblem(i)).filter((p) => p !== null),
    ...packages.map((i) => packageProblem(i)).filter((p) => p !== null),
    ...circleProblems(imports),
  ];
  assert(problems.length === 0, `\n${problems.join("\n")}\n`);
});

Deno.test("layers: docs/ARCHITECTURE.md lists every layer folder, in the rows' order", async () => {
  const doc = await Deno.readTextFile(new URL("docs/ARCHITECTURE.md", ROOT));
  const block = /```\n(main\.ts [\s\S]*?)```/.exec(doc)?.[1];
  assert(block, "ARCHITECTURE.md has its layer list (a code block starting at main.ts)");
  const listed = [...block.matchAll(/^(lib\/[a-z]+)\s/gm)].map((m) => m[1]);
  assertEquals(listed, LAYERS.flat().filter((f) => f.startsWith("lib/") && !f.endsWith(".ts")));
});

/**
 * Calls that send a device a command over the ADB client (`ctx.adb.shell(…)`, `adb.exec(…)`); a
 * tool asks a service instead. Listing devices asks the ADB server, not a device, and is allowed.
 */
const DEVICE_COMMAND_CALL = /[A-Za-z_$][\w$]*\.(shell|exec|openShellStream|features)\s*\(/g;

Deno.test("layers: no tool sends a device command itself (shell, exec, streams go through a service)", async () => {
  const files = (await layerFiles()).filter((f) => f.startsWith("lib/tools/"));
  assert(files.length > 10, "the tools were read");
  const found: string[] = [];
  for (const f of files) {
    const lines = (await Deno.readTextFile(new URL(f, ROOT))).split("\n");
    lines.forEach((line, i) => {
      if (/^\s*(\*|\/\/)/.test(line)) return;
      for (const m of line.matchAll(DEVICE_COMMAND_CALL)) found.push(`${f}:${i + 1}: ${m[0]}`);
    });
  }
  assertEquals(found, []);
});
