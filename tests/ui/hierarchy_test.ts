import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  isTreePath,
  MAX_ATTRIBUTE_CHARS,
  MAX_TREE_DEPTH,
  MAX_TREE_NODES,
  nodeAtPath,
  parseBounds,
  parseHierarchy,
} from "../../lib/ui/hierarchy.ts";
import { dump, type N, screen } from "./_xml.ts";

const tree = parseHierarchy(dump(
  screen([
    { text: "a", b: [0, 0, 10, 10] },
    {
      b: [0, 10, 10, 20],
      kids: [{ text: "b0", b: [0, 10, 5, 20] }, { text: "b1", b: [5, 10, 10, 20] }],
    },
  ]),
  { pkg: "com.ime", b: [0, 1600, 1080, 2400] },
));

Deno.test("parseHierarchy() gives tree paths as child indexes from the root", () => {
  assertEquals(tree.nodes.map((n) => n.path), ["0", "0.0", "0.1", "0.1.0", "0.1.1", "1"]);
  assertEquals(tree.roots, [0, 5]);
  assertEquals(nodeAtPath(tree, "0.1.1")?.text, "b1");
  assertEquals(nodeAtPath(tree, "0.1.2"), null);
  assertEquals(nodeAtPath(tree, "2"), null);
  assertEquals(nodeAtPath(tree, "0..1"), null);
  assertEquals(tree.nodes[4].parent, 2);
  assertEquals(tree.nodes[2].children, [3, 4]);
  assertEquals([tree.width, tree.height], [1080, 2400]);
});

Deno.test("isTreePath() accepts dotted indexes only", () => {
  assert(isTreePath("0"));
  assert(isTreePath("0.12.3"));
  for (const bad of ["", "e7", "0.", ".0", "0.-1", "0 .1", "0;1", "0.1\n"]) {
    assert(!isTreePath(bad), bad);
  }
});

Deno.test("parseBounds() reads [l,t][r,b] and tolerates garbage", () => {
  assertEquals(parseBounds("[18,498][702,894]"), { left: 18, top: 498, right: 702, bottom: 894 });
  assertEquals(parseBounds("[1,2]"), { left: 0, top: 0, right: 0, bottom: 0 });
});

Deno.test("parseHierarchy() drops nodes past MAX_TREE_NODES and says so", () => {
  const kids: N[] = [];
  for (let i = 0; i < MAX_TREE_NODES + 10; i++) kids.push({ text: `r${i}`, b: [0, i, 10, i + 1] });
  const t = parseHierarchy(dump(screen(kids)));
  assertEquals(t.nodes.length, MAX_TREE_NODES);
  assert(t.truncated);
});

Deno.test("parseHierarchy() drops nodes deeper than MAX_TREE_DEPTH without recursing", () => {
  let xml = "";
  const depth = MAX_TREE_DEPTH + 50;
  for (let i = 0; i < depth; i++) xml += `<node index="0" text="d${i}" bounds="[0,0][10,10]">`;
  xml += "</node>".repeat(depth);
  const t = parseHierarchy(`<hierarchy rotation="1">${xml}</hierarchy>`);
  assertEquals(t.nodes.length, MAX_TREE_DEPTH + 1);
  assertEquals(Math.max(...t.nodes.map((n) => n.depth)), MAX_TREE_DEPTH);
  assert(t.truncated);
  assertEquals(t.rotation, 1);
});

Deno.test("parseHierarchy() cuts long attribute values", () => {
  const t = parseHierarchy(
    dump(screen([{ text: "x".repeat(MAX_ATTRIBUTE_CHARS * 2), b: [0, 0, 1, 1] }])),
  );
  assertEquals(t.nodes[1].text.length, MAX_ATTRIBUTE_CHARS);
  assert(t.nodes[1].text.endsWith("…"));
});

Deno.test("parseHierarchy() reads numeric references, emoji written as surrogate pairs included", () => {
  const t = parseHierarchy(
    dump(screen([{ text: "PLACEHOLDER", b: [0, 0, 1, 1] }])).replace(
      "PLACEHOLDER",
      "&#55357;&#56832; caf&#xE9;",
    ),
  );
  assertEquals(t.nodes[1].text, "😀 café");
});
