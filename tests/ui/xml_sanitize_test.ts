import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";
import { NoHierarchyError, sanitizeHierarchyXml } from "../../lib/ui/xml_sanitize.ts";
import { HierarchyParseError, parseHierarchy } from "../../lib/ui/hierarchy.ts";
import { dump, screen } from "./_xml.ts";

const ok = dump(screen([{ text: "Hi", b: [0, 0, 100, 100] }]));

Deno.test("sanitizeHierarchyXml() leaves a clean dump alone", () => {
  const r = sanitizeHierarchyXml(ok);
  assertEquals(r.xml, ok);
  assertEquals(r.repairs, []);
});

Deno.test("sanitizeHierarchyXml() cuts the tty success line and leading warnings", () => {
  const r = sanitizeHierarchyXml(
    "WARNING: linker: something\n" + ok + "UI hierchary dumped to: /dev/tty\r\n",
  );
  assertEquals(r.xml, ok);
  assertEquals(r.repairs, ["leading_junk", "trailing_junk"]);
});

Deno.test("sanitizeHierarchyXml() replaces control characters and lone surrogates", () => {
  const bad = ok.replace('text="Hi"', 'text="H\u0001i\u0007\uD800x"');
  const r = sanitizeHierarchyXml(bad);
  assert(r.repairs.includes("control_chars"));
  assertEquals(parseHierarchy(bad).nodes[1].text, "H.i..x");
});

Deno.test("sanitizeHierarchyXml() escapes bare ampersands but keeps entities", () => {
  const bad = ok.replace('text="Hi"', 'text="Tom & Jerry &amp; &#233; &x"');
  const r = sanitizeHierarchyXml(bad);
  assertEquals(r.repairs, ["ampersands"]);
  assertEquals(parseHierarchy(bad).nodes[1].text, "Tom & Jerry & é &x");
});

Deno.test("sanitizeHierarchyXml() escapes < inside attribute values", () => {
  const bad = ok.replace('text="Hi"', 'text="a<b"');
  assertEquals(parseHierarchy(bad).nodes[1].text, "a<b");
});

Deno.test("sanitizeHierarchyXml() closes a dump cut off mid-node", () => {
  const full = dump(screen([{ text: "A", b: [0, 0, 10, 10] }, { text: "B", b: [0, 10, 10, 20] }]));
  const cut = full.slice(0, full.indexOf('text="B"') + 5);
  const r = sanitizeHierarchyXml(cut);
  assert(r.repairs.includes("truncated"));
  const tree = parseHierarchy(cut);
  assertEquals(tree.nodes.map((n) => n.text), ["", "A"]);
});

Deno.test("sanitizeHierarchyXml() refuses output without a hierarchy", () => {
  assertThrows(() => sanitizeHierarchyXml("UI hierchary dumped to: /dev/tty"), NoHierarchyError);
  assertThrows(() => parseHierarchy("ERROR: null root node returned"), HierarchyParseError);
  assertThrows(
    () => sanitizeHierarchyXml("<?xml version='1.0' ?><hierarchy rot"),
    NoHierarchyError,
  );
});
