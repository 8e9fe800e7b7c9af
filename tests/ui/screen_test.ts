import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals, assertNotEquals, assertThrows } from "../assert.ts";
import { nodeAtPath, parseHierarchy } from "../../lib/ui/hierarchy.ts";
import { hashOutside, screenHash } from "../../lib/ui/screen_hash.ts";
import { buildElementList } from "../../lib/ui/element_list.ts";
import { parseTarget, resolveTarget } from "../../lib/ui/handles.ts";
import { findNodes, validateSelector } from "../../lib/ui/selectors.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { dump, type N, screen } from "./_xml.ts";

function app(opts: { clock?: string; title?: string; checked?: boolean } = {}): string {
  const kids: N[] = [
    { cls: "android.widget.TextView", text: opts.title ?? "Inbox", b: [0, 100, 1080, 200] },
    {
      cls: "android.widget.Button",
      text: "Compose",
      id: "com.example:id/compose",
      b: [800, 2000, 1000, 2200],
      click: true,
    },
    {
      cls: "android.widget.CheckBox",
      text: "Remember",
      b: [0, 300, 500, 400],
      click: true,
      checkable: true,
      checked: opts.checked ?? false,
    },
  ];
  return dump(screen(kids), {
    pkg: "com.android.systemui",
    b: [0, 0, 1080, 80],
    kids: [{
      pkg: "com.android.systemui",
      id: "com.android.systemui:id/clock",
      text: opts.clock ?? "12:00",
      b: [0, 0, 100, 80],
    }],
  });
}

Deno.test("screenHash() is stable across captures and ignores the status bar clock", () => {
  const a = screenHash(parseHierarchy(app()));
  assertEquals(screenHash(parseHierarchy(app())), a);
  assertEquals(screenHash(parseHierarchy(app({ clock: "12:01" }))), a);
  assertNotEquals(screenHash(parseHierarchy(app({ title: "Sent" }))), a);
  assertNotEquals(screenHash(parseHierarchy(app({ checked: true }))), a);
  assertEquals(a.length, 16);
});

Deno.test("hashOutside() ignores changes inside the touched element only", () => {
  const touched = { left: 0, top: 300, right: 500, bottom: 400 };
  const before = hashOutside(parseHierarchy(app()), touched);
  assertEquals(hashOutside(parseHierarchy(app({ checked: true })), touched), before);
  assertNotEquals(hashOutside(parseHierarchy(app({ title: "Sent" })), touched), before);
  assertNotEquals(
    hashOutside(parseHierarchy(app({ checked: true })), null),
    hashOutside(parseHierarchy(app()), null),
  );
});

Deno.test("resolveTarget() resolves a handle of the latest list on the same screen", () => {
  const tree = parseHierarchy(app());
  const list = buildElementList(tree);
  const compose = list.rows.find((r) => r.label === "Compose")!;
  const r = resolveTarget(tree, list.screenHash, parseTarget(compose.handle), list);
  assertEquals(r.node.text, "Compose");
  assertEquals([r.x, r.y], [900, 2100]);
  assertEquals(r.handle, compose.handle);
});

Deno.test("resolveTarget() refuses a handle or pinned path from a screen that changed", () => {
  const old = parseHierarchy(app());
  const list = buildElementList(old);
  const now = parseHierarchy(app({ title: "Sent" }));
  const hash = screenHash(now);
  const e = assertThrows(() => resolveTarget(now, hash, parseTarget("e1"), list), ToolError);
  assertEquals(e.code, "screen_changed");
  assert(e.message.includes("get_ui_hierarchy"), e.message);
  const p = assertThrows(
    () => resolveTarget(now, hash, parseTarget("0.1"), null, list.screenHash),
    ToolError,
  );
  assertEquals(p.code, "screen_changed");
  // Without a pin a tree path names a position on the current screen.
  assertEquals(resolveTarget(now, hash, parseTarget("0.1"), null).node.text, "Compose");
  const none = assertThrows(() => resolveTarget(now, hash, parseTarget("e1"), null), ToolError);
  assertEquals(none.code, "screen_changed");
});

Deno.test("resolveTarget() says not_found for a missing handle or path", () => {
  const tree = parseHierarchy(app());
  const list = buildElementList(tree);
  assertEquals(
    assertThrows(() => resolveTarget(tree, list.screenHash, parseTarget("e99"), list), ToolError)
      .code,
    "not_found",
  );
  assertEquals(
    assertThrows(() => resolveTarget(tree, list.screenHash, parseTarget("0.9"), list), ToolError)
      .code,
    "not_found",
  );
  assertEquals(nodeAtPath(tree, "0.2")?.text, "Remember");
});

Deno.test("parseTarget() refuses what is neither a handle nor a tree path", () => {
  for (
    const bad of ["", "e0", "e", "E7", "0.1;rm -rf /", "$(id)", "`x`", "e7\n", " e7", "*", "ée"]
  ) {
    const e = assertThrows(() => parseTarget(bad), ToolError);
    assertEquals(e.code, "invalid_params", bad);
  }
  assertEquals(parseTarget("e7"), { kind: "handle", handle: "e7" });
  assertEquals(parseTarget("0.1.2"), { kind: "path", path: "0.1.2" });
});

Deno.test("findNodes() matches selectors and bounds results", () => {
  const tree = parseHierarchy(app());
  const f = (s: unknown, limit?: number) => findNodes(tree, validateSelector(s), limit);
  assertEquals(f({ text: "Compose" }).nodes.map((i) => tree.nodes[i].path), ["0.1"]);
  assertEquals(f({ text_contains: "comp" }).total, 1);
  assertEquals(f({ resource_id: "compose" }).total, 1);
  assertEquals(f({ resource_id: "com.example:id/compose" }).total, 1);
  assertEquals(f({ class: "CheckBox", checked: false }).total, 1);
  assertEquals(f({ class: "CheckBox", checked: true }).total, 0);
  assertEquals(f({ class: "android.widget.TextView" }).total, 1);
  assertEquals(f({ package: "com.example" }, 2).nodes.length, 2);
  assertEquals(f({ package: "com.example" }, 2).total, 4);
  assertEquals(f({ text: "Compose; rm -rf / $(id) `x` *" }).total, 0);
});

Deno.test("validateSelector() refuses unknown keys, wrong types and state-only selectors", () => {
  for (
    const bad of [
      null,
      [],
      "text",
      {},
      { clickable: true },
      { txt: "a" },
      { text: 1 },
      { clickable: "yes", text: "a" },
      { text: "x".repeat(1001) },
      { text_contains: " " },
    ]
  ) {
    const e = assertThrows(() => validateSelector(bad), ToolError);
    assertEquals(e.code, "invalid_params");
  }
});
