/**
 * The UI Automator scanner against the reference (`fast-xml-parser`): the same tree from every
 * real dump, every simulated screen and random trees; the same refusals; and what the scanner
 * leaves to the general parser.
 */
import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  HierarchyReader,
  MAX_TREE_DEPTH,
  MAX_TREE_NODES,
  MAX_XML_NESTING,
  parseHierarchy,
  type UiTree,
} from "../../lib/ui/hierarchy.ts";
import { scanUiXml, type XmlAttrs } from "../../lib/ui/xml_scan.ts";
import { syntheticDump } from "../../scripts/bench_ui.ts";
import { HAVE_REAL, REAL_DIR } from "./_xml.ts";
import { simScreens } from "./_sim_screens.ts";

type Outcome = { tree: UiTree } | { error: string };

function read(xml: string, reader: HierarchyReader): Outcome {
  try {
    return { tree: parseHierarchy(xml, reader) };
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

/** Both readers on `xml`: the scanner must read it, and give the reference's tree. */
function assertSameTree(xml: string, what: string): UiTree {
  const scanned = parseHierarchy(xml, HierarchyReader.scan);
  const reference = parseHierarchy(xml, HierarchyReader.fastXmlParser);
  assertEquals(scanned, reference, what);
  return scanned;
}

/**
 * Any input: when the scanner reads it, the reference reads it to the same tree; when it does
 * not, the default reader gives exactly what the reference gives. Returns whether it scanned.
 */
function assertAgrees(xml: string, what: string): boolean {
  const scanned = read(xml, HierarchyReader.scan);
  const reference = read(xml, HierarchyReader.fastXmlParser);
  const auto = read(xml, HierarchyReader.auto);
  assertEquals(auto, reference, `${what} (default reader)`);
  if ("tree" in scanned) {
    assertEquals(scanned, reference, `${what} (scanner)`);
    return true;
  }
  if ("error" in reference) return false;
  // The scanner refused; refusals before scanning (sanitizer, size) are the same for both.
  assertStringIncludes(scanned.error, "the scanner does not read", what);
  return false;
}

// ---- scanUiXml() itself

function events(xml: string): { log: string[]; unhandled: string | null } {
  const log: string[] = [];
  const unhandled = scanUiXml(xml, {
    open(name: string, attrs: XmlAttrs, selfClosing: boolean) {
      log.push(`${selfClosing ? "empty" : "open"} ${name} ${JSON.stringify(attrs)}`);
    },
    close() {
      log.push("close");
    },
  });
  return { log, unhandled };
}

Deno.test("scanUiXml() reports elements in order with trimmed, still-encoded values", () => {
  const r = events(
    `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<!-- a > comment -->` +
      `<hierarchy rotation="1"><node text=' a &amp; "b" ' bounds = "[0,0][1,1]"\t/>` +
      `<![CDATA[ <node> ]]>text<node a="x\r\ny"b='2'></node ></hierarchy>`,
  );
  assertEquals(r.unhandled, null);
  assertEquals(r.log, [
    `open hierarchy {"rotation":"1"}`,
    `empty node {"text":"a &amp; \\"b\\"","bounds":"[0,0][1,1]"}`,
    `open node {"a":"x\\ny","b":"2"}`,
    "close",
    "close",
  ]);
});

Deno.test("scanUiXml() ends the innermost element on any end tag and skips stray ones", () => {
  const r = events(`</node><hierarchy><node></other></hierarchy></hierarchy>`);
  assertEquals(r.unhandled, null);
  assertEquals(r.log, ["open hierarchy {}", "open node {}", "close", "close"]);
});

Deno.test("scanUiXml() names what it does not handle", () => {
  const cases: [string, string][] = [
    [`<!DOCTYPE hierarchy><hierarchy/>`, "declaration"],
    [`<hierarchy><node text="x></hierarchy>`, "unclosed attribute value"],
    [`<hierarchy><node text=x/></hierarchy>`, "unquoted attribute value"],
    [`<hierarchy><node checked></node></hierarchy>`, "attribute without a value"],
    [`<hierarchy><node / ></hierarchy>`, `"/" inside a tag`],
    [`<hierarchy><nöde/></hierarchy>`, "unexpected character"],
    [`<hierarchy>< node/></hierarchy>`, "tag without a name"],
    [`<hierarchy><node __proto__="x"/></hierarchy>`, "reserved name"],
    [`<hierarchy><constructor/></hierarchy>`, "reserved name"],
    [`<?xml prototype="1"?><hierarchy/>`, "reserved name"],
    [`<hierarchy><!-- open</hierarchy>`, "unclosed comment"],
    [`<hierarchy></hierarchy`, "unclosed end tag"],
    [`<?xml version="1.0"<hierarchy/>`, "unclosed processing instruction"],
  ];
  for (const [xml, why] of cases) {
    const r = events(xml);
    assert(r.unhandled !== null, xml);
    assertStringIncludes(r.unhandled, why, xml);
  }
});

Deno.test("scanUiXml() stops at the nesting limit", () => {
  const deep = (n: number) => "<a>".repeat(n) + "</a>".repeat(n);
  assertEquals(events(deep(MAX_XML_NESTING + 1)).unhandled, null);
  assertStringIncludes(events(deep(MAX_XML_NESTING + 2)).unhandled ?? "", "nesting deeper");
  assertEquals(
    scanUiXml(deep(5), { open() {}, close() {} }, 3),
    "nesting deeper than 3 elements at 12",
  );
});

// ---- same tree as the reference

Deno.test("parseHierarchy() scanner and reference agree on every real dump", {
  ignore: !HAVE_REAL,
}, async () => {
  let n = 0;
  for await (const e of Deno.readDir(REAL_DIR)) {
    if (!e.isFile || !e.name.endsWith(".xml")) continue;
    const xml = await Deno.readTextFile(new URL(e.name, REAL_DIR));
    const t = assertSameTree(xml, e.name);
    assert(t.nodes.length > 0, e.name);
    // Also cut off mid-stream, as a killed dump process leaves it.
    for (const cut of [0.3, 0.71]) assertAgrees(xml.slice(0, Math.floor(xml.length * cut)), e.name);
    n++;
  }
  assert(n >= 5, `only ${n} real dumps`);
});
if (!HAVE_REAL) {
  console.error("xml_scan_test: ../shared/fixtures/real/uiautomator/ absent, skipped");
}

Deno.test("parseHierarchy() scanner and reference agree on every simulated screen", () => {
  const screens = simScreens();
  let nodes = 0;
  for (const s of screens) nodes += assertSameTree(s.xml, s.what).nodes.length;
  assert(screens.length >= 50 && nodes > screens.length * 5, `${screens.length} screens`);
  // The simulator's dump keeps hostile field text; the tree holds it decoded.
  const typing = screens.find((s) => s.what.startsWith("form typing"))!;
  const t = parseHierarchy(typing.xml);
  assert(t.nodes.some((n) => n.text.includes("$(id) `x` \"q\" 'p'")), "hostile text kept");
});

Deno.test("parseHierarchy() scanner and reference agree on the bench dump and at the caps", () => {
  assertEquals(assertSameTree(syntheticDump(1_000), "bench").nodes.length, 999);
  const wide = syntheticDump(MAX_TREE_NODES + 40);
  const w = assertSameTree(wide, "wide");
  assert(w.truncated && w.nodes.length === MAX_TREE_NODES);
  const chain = (n: number) =>
    `<hierarchy rotation="2">` +
    `<node text="d" bounds="[0,0][9,9]">`.repeat(n) + "</node>".repeat(n) +
    `<node text="last" bounds="[0,0][5,5]"/></hierarchy>`;
  const deep = assertSameTree(chain(MAX_TREE_DEPTH + 20), "deep");
  assert(deep.truncated && deep.nodes.length === MAX_TREE_DEPTH + 2);
  assert(!assertSameTree(chain(MAX_TREE_DEPTH + 1), "at depth").truncated);
});

// ---- random trees

/** mulberry32: a small seeded generator, so a failure names a seed that reproduces it. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "a",
  "Sign in",
  " ",
  "  ",
  "\t",
  "\n",
  "\r\n",
  "\r",
  "&amp;",
  "&lt;",
  "&gt;",
  "&quot;",
  "&apos;",
  "&#65;",
  "&#x1F600;",
  "&#55357;&#56832;",
  "&#xD800;",
  "&#0;",
  "&",
  "&foo;",
  ">",
  "/",
  "=",
  "日本語",
  "😀",
  "\u00a0",
  "\u3000",
  "\ufeff",
  "\u0001",
  "[1,2][3,4]",
  "true",
  "false",
  "<",
];

const ATTRS = [
  "index",
  "text",
  "resource-id",
  "class",
  "package",
  "content-desc",
  "checkable",
  "checked",
  "clickable",
  "enabled",
  "focusable",
  "focused",
  "scrollable",
  "long-clickable",
  "password",
  "selected",
  "bounds",
  "hint",
  "NAF",
  "drawing-order",
  "toString",
  "hasOwnProperty",
  "x:y",
];

function randomTree(seed: number): string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const chance = (p: number) => r() < p;
  const space = () => pick([" ", " ", "\n    ", "\t", "\r\n  ", "  "]);
  const value = (quote: string): string => {
    if (chance(0.3)) return pick(["true", "false", " true ", "TRUE", ""]);
    if (chance(0.2)) {
      const n = () => Math.floor(r() * 3000) - 100;
      return chance(0.8) ? `[${n()},${n()}][${n()},${n()}]` : pick(["[1,2]", " [0,0][1,1] ", "x"]);
    }
    let v = "";
    const parts = Math.floor(r() * 5);
    for (let i = 0; i < parts; i++) v += pick(PIECES);
    // The quote that delimits the value cannot be inside it, escaped or not (`&quot;` is).
    return v.replaceAll(quote, "");
  };
  const attrs = (): string => {
    let s = "";
    const n = Math.floor(r() * 8);
    const names = chance(0.5) ? ATTRS.slice(0, 17) : [];
    for (let i = 0; i < n; i++) names.push(pick(ATTRS));
    for (const name of names) {
      if (chance(0.15)) continue;
      const q = chance(0.7) ? '"' : "'";
      const eq = chance(0.9) ? "=" : pick([" = ", "=\n", "\t="]);
      // Values may follow each other without a space; the tag name may not.
      s += `${s === "" || chance(0.95) ? space() : ""}${name}${eq}${q}${value(q)}${q}`;
    }
    return s;
  };
  const filler = (): string =>
    chance(0.85) ? (chance(0.5) ? "" : space()) : pick([
      "<!-- a comment with <node> inside -->",
      "<![CDATA[<node text='no'/>]]>",
      "some text",
      "<?pi data?>",
      "<other a='1'/>",
      "<other><node text='unreached' bounds='[0,0][1,1]'/></other>",
      "<hierarchy rotation='3'><node text='nested hierarchy'/></hierarchy>",
    ]);
  let nodes = 0;
  const maxNodes = 1 + Math.floor(r() * 60);
  const node = (depth: number): string => {
    nodes++;
    const open = `<node${attrs()}`;
    const kids: string[] = [];
    const deep = depth < 3 || chance(0.97 - depth * 0.05);
    while (deep && nodes < maxNodes && chance(0.6)) kids.push(filler() + node(depth + 1));
    if (kids.length === 0 && chance(0.7)) return open + pick([" />", "/>", "\n/>"]);
    return `${open}${chance(0.9) ? "" : space()}>${kids.join("")}${filler()}${
      pick(["</node>", "</node >", "</node\n>"])
    }`;
  };
  let body = "";
  const windows = 1 + Math.floor(r() * 3);
  for (let w = 0; w < windows; w++) body += filler() + node(0);
  const rotation = pick(['"0"', '"1"', "'2'", '" 3 "', '"x"', '""']);
  const decl = pick([
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
    '<?xml version="1.0"?>\n',
    "",
  ]);
  const lead = chance(0.1) ? "WARNING: linker: junk\n" : "";
  const trail = chance(0.1) ? "UI hierchary dumped to: /dev/tty\r\n" : "";
  return `${lead}${decl}<hierarchy rotation=${rotation}>${body}${filler()}</hierarchy>${trail}`;
}

Deno.test("parseHierarchy() scanner and reference agree on random trees", () => {
  let scanned = 0;
  const runs = 600;
  for (let seed = 1; seed <= runs; seed++) {
    const xml = randomTree(seed);
    if (assertAgrees(xml, `seed ${seed}`)) scanned++;
  }
  assert(scanned > runs * 0.9, `the scanner read ${scanned} of ${runs}`);
});

Deno.test("parseHierarchy() scanner and reference agree on damaged random trees", () => {
  const noise = [
    "<",
    ">",
    "/",
    '"',
    "'",
    "=",
    " ",
    "!",
    "-",
    "?",
    "[",
    "]",
    "&",
    "</node>",
    "<node>",
  ];
  let scanned = 0;
  let refused = 0;
  const runs = 1_500;
  for (let seed = 1; seed <= runs; seed++) {
    const r = rng(seed * 7919);
    let xml = randomTree(seed);
    const edits = 1 + Math.floor(r() * 4);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(r() * xml.length);
      const kind = r();
      if (kind < 0.5) {
        xml = xml.slice(0, at) + noise[Math.floor(r() * noise.length)] + xml.slice(at);
      } else if (kind < 0.8) {
        xml = xml.slice(0, at) + xml.slice(at + 1 + Math.floor(r() * 20));
      } else {
        xml = xml.slice(0, at); // cut off mid-stream
      }
    }
    if (assertAgrees(xml, `damaged seed ${seed}`)) scanned++;
    else refused++;
  }
  // Both paths are exercised: most damage is still read by the scanner, some is left over.
  assert(scanned > runs / 3 && refused > 10, `scanned ${scanned}, refused ${refused}`);
});

Deno.test("parseHierarchy() refuses what the reference refuses, with its message", () => {
  const cases = [
    `<hierarchy><node __proto__="x" bounds="[0,0][1,1]"/></hierarchy>`,
    `<hierarchy><node text="a"/><!-- never closed </hierarchy>`,
    `<hierarchy>` + "<a>".repeat(MAX_XML_NESTING + 5) + `</hierarchy>`,
    `<?xml version="1.0"?><top><hierarchy><node/></hierarchy></top>`,
  ];
  for (const xml of cases) {
    const auto = read(xml, HierarchyReader.auto);
    assert("error" in auto, xml.slice(0, 60));
    assertEquals(auto, read(xml, HierarchyReader.fastXmlParser), xml.slice(0, 60));
    assertStringIncludes(auto.error, "Cannot parse the UI hierarchy");
  }
});

Deno.test("parseHierarchy() keeps values ending in = and single-quoted values holding a quote", () => {
  const xml = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
    `<node index="0" text="a=" class="android.widget.TextView" bounds="[0,0][10,10]" />` +
    `<node index="1" text='say "hi" <b>' class="android.widget.TextView" bounds="[0,10][10,20]" />` +
    `</hierarchy>`;
  const tree = parseHierarchy(xml);
  assertEquals(tree.nodes.map((n) => n.text), ["a=", 'say "hi" <b>']);
});
