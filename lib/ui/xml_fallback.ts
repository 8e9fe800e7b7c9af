/**
 * The fallback XML reader: fast-xml-parser, for dumps the scanner (lib/ui/xml_scan.ts) does not
 * read (a DOCTYPE, unquoted values, unclosed markup, odd names). Importing this module registers it
 * with lib/ui/hierarchy.ts; the UI worker does, the main thread does not.
 */
import { XMLParser } from "fast-xml-parser";
import {
  HierarchyParseError,
  makeNode,
  MAX_TREE_DEPTH,
  MAX_TREE_NODES,
  MAX_XML_NESTING,
  type ReadTree,
  registerFallbackReader,
  type UiNode,
} from "./hierarchy.ts";

type Ordered = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseAttributeValue: false,
  parseTagValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Entities are decoded by `attr()` only in the few values that hold one: faster.
  processEntities: false,
  htmlEntities: false,
  trimValues: true,
  maxNestedTags: MAX_XML_NESTING,
});

/** Children of an ordered element that are `<node>`s, with their attributes. */
function nodeChildren(list: unknown): { attrs: Record<string, string>; kids: unknown }[] {
  const out: { attrs: Record<string, string>; kids: unknown }[] = [];
  if (!Array.isArray(list)) return out;
  for (const item of list as Ordered[]) {
    if (item && Object.hasOwn(item, "node")) {
      out.push({ attrs: (item[":@"] as Record<string, string>) ?? {}, kids: item.node });
    }
  }
  return out;
}

/** Reads the XML with `fast-xml-parser` and walks its ordered output. */
function readWithFastXmlParser(xml: string): ReadTree {
  let doc: unknown;
  try {
    doc = parser.parse(xml);
  } catch (e) {
    throw new HierarchyParseError((e as Error).message, { cause: e });
  }
  const top = Array.isArray(doc) ? (doc as Ordered[]) : [];
  const hierarchy = top.find((item) => item && Object.hasOwn(item, "hierarchy"));
  if (!hierarchy) throw new HierarchyParseError("no <hierarchy> element after parsing");
  const hierarchyAttrs = (hierarchy[":@"] as Record<string, string>) ?? {};

  const nodes: UiNode[] = [];
  const roots: number[] = [];
  let truncated = false;
  // Depth-first in document order with an explicit stack (no recursion on hostile depth).
  type Frame = { attrs: Record<string, string>; kids: unknown; path: string; parent: number };
  const stack: Frame[] = [];
  const rootKids = nodeChildren(hierarchy.hierarchy);
  for (let i = rootKids.length - 1; i >= 0; i--) {
    stack.push({ ...rootKids[i], path: String(i), parent: -1 });
  }
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (nodes.length >= MAX_TREE_NODES) {
      truncated = true;
      break;
    }
    const depth = f.parent < 0 ? 0 : nodes[f.parent].depth + 1;
    const node = makeNode(f.attrs, nodes.length, f.path, f.parent, depth);
    nodes.push(node);
    if (f.parent < 0) roots.push(node.id);
    else nodes[f.parent].children.push(node.id);
    const kids = nodeChildren(f.kids);
    if (kids.length === 0) continue;
    if (depth + 1 > MAX_TREE_DEPTH) {
      truncated = true;
      continue;
    }
    for (let i = kids.length - 1; i >= 0; i--) {
      stack.push({ ...kids[i], path: `${f.path}.${i}`, parent: node.id });
    }
  }
  return { hierarchyAttrs, nodes, roots, truncated };
}

registerFallbackReader(readWithFastXmlParser);
