/**
 * UI timings for `scripts/bench.ts` (tests never assert times): synthetic 1,000- and 5,000-node
 * dumps → element list (budget ≤ 10 ms per 1,000 nodes, DESIGN.md), a screen whose every node is
 * on screen under a toolbar, a floating button and a bottom bar (the occlusion work's worst case),
 * and the real dumps.
 */
import "../lib/ui/xml_fallback.ts";
import { buildElementList, formatElementList } from "../lib/ui/element_list.ts";
import { parseHierarchy } from "../lib/ui/hierarchy.ts";

/** Runs per measurement, at most. */
export const MAX_BENCH_RUNS = 1_000;

export interface UiBenchResult {
  nodes: number;
  xmlChars: number;
  runs: number;
  /** Median and 90th percentile of one XML → element list text, in ms. */
  medianMs: number;
  p90Ms: number;
  listChars: number;
}

function attrs(i: number, cls: string, text: string, click: boolean, b: string): string {
  return `index="${i % 10}" text="${text}" resource-id="com.example:id/v${i}" class="${cls}" ` +
    `package="com.example" content-desc="" checkable="false" checked="false" ` +
    `clickable="${click}" enabled="true" focusable="${click}" focused="false" ` +
    `scrollable="false" long-clickable="false" password="false" selected="false" bounds="${b}"`;
}

/**
 * A realistic dump of `nodes` nodes (default 1,000): a scrolling list of rows, each a clickable
 * container with an icon, a title and a subtitle, in the dumper's single-line form.
 */
export function syntheticDump(nodes = 1_000): string {
  const rows = Math.max(1, Math.floor((nodes - 3) / 4));
  let body = "";
  for (let r = 0; r < rows; r++) {
    const top = 200 + r * 180;
    const b = (l: number, t: number, rr: number, bb: number) => `[${l},${t}][${rr},${bb}]`;
    body +=
      `<node ${
        attrs(r * 4, "android.widget.LinearLayout", "", true, b(0, top, 1080, top + 180))
      }>` +
      `<node ${
        attrs(r * 4 + 1, "android.widget.ImageView", "", false, b(20, top + 20, 160, top + 160))
      } />` +
      `<node ${
        attrs(
          r * 4 + 2,
          "android.widget.TextView",
          `Title ${r}`,
          false,
          b(180, top + 20, 1000, top + 90),
        )
      } />` +
      `<node ${
        attrs(
          r * 4 + 3,
          "android.widget.TextView",
          `Subtitle &amp; more ${r}`,
          false,
          b(180, top + 90, 1000, top + 160),
        )
      } />` +
      `</node>`;
  }
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
    `<node ${attrs(0, "android.widget.FrameLayout", "", false, "[0,0][1080,2400]")}>` +
    `<node ${attrs(1, "android.widget.TextView", "Title bar", false, "[0,0][1080,200]")} />` +
    `<node index="1" text="" resource-id="com.example:id/list" class="androidx.recyclerview.widget.RecyclerView" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="true" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" bounds="[0,200][1080,2400]">` +
    body + `</node></node></hierarchy>`;
}

/**
 * A dump of about `nodes` nodes all on screen: a grid of tiles (a clickable container with an
 * icon, a title and a subtitle) in a scroll container, under a toolbar, a floating button and a
 * bottom bar drawn over it, so every tile is checked against what covers it.
 */
export function syntheticScreenDump(nodes = 1_000, width = 1080, height = 2400): string {
  const tiles = Math.max(1, Math.floor((nodes - 12) / 4));
  const cols = Math.max(1, Math.ceil(Math.sqrt(tiles * width / height)));
  const rows = Math.ceil(tiles / cols);
  const tw = Math.floor(width / cols), th = Math.floor((height - 200) / rows);
  const b = (l: number, t: number, r: number, bb: number) => `[${l},${t}][${r},${bb}]`;
  let body = "";
  for (let i = 0; i < tiles; i++) {
    const l = (i % cols) * tw, t = 200 + Math.floor(i / cols) * th;
    body +=
      `<node ${attrs(i * 4, "android.widget.LinearLayout", "", true, b(l, t, l + tw, t + th))}>` +
      `<node ${
        attrs(i * 4 + 1, "android.widget.ImageView", "", false, b(l, t, l + tw, t + th / 3))
      } />` +
      `<node ${
        attrs(
          i * 4 + 2,
          "android.widget.TextView",
          `T${i}`,
          false,
          b(l, t + th / 3, l + tw, t + 2 * th / 3),
        )
      } />` +
      `<node ${
        attrs(
          i * 4 + 3,
          "android.widget.TextView",
          `S${i}`,
          false,
          b(l, t + 2 * th / 3, l + tw, t + th),
        )
      } />` +
      `</node>`;
  }
  const bar = (top: number, n: number) => {
    let s = `<node ${
      attrs(90_000 + top, "android.widget.LinearLayout", "", false, b(0, top, width, top + 200))
    }>`;
    for (let k = 0; k < n; k++) {
      const w = Math.floor(width / n);
      s += `<node ${
        attrs(
          91_000 + top + k,
          "android.widget.ImageButton",
          `B${k}`,
          true,
          b(k * w, top, (k + 1) * w, top + 200),
        )
      } />`;
    }
    return s + "</node>";
  };
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
    `<node ${attrs(0, "android.widget.FrameLayout", "", false, b(0, 0, width, height))}>` +
    `<node index="0" text="" resource-id="com.example:id/grid" class="androidx.recyclerview.widget.RecyclerView" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="true" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" bounds="${
      b(0, 0, width, height)
    }">` +
    body + `</node>` + bar(0, 3) + bar(height - 200, 4) +
    `<node ${
      attrs(
        99_999,
        "android.widget.ImageButton",
        "New",
        true,
        b(width - 260, height - 460, width - 60, height - 260),
      )
    } />` +
    `</node></hierarchy>`;
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

/** Times XML → parsed tree → element list text over `runs` runs (after 5 warm-up runs). */
export function benchElementList(xml: string, runs = 50): UiBenchResult {
  const n = Math.max(1, Math.min(MAX_BENCH_RUNS, Math.floor(runs)));
  let listChars = 0;
  let nodes = 0;
  for (let i = 0; i < 5; i++) formatElementList(buildElementList(parseHierarchy(xml)));
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const tree = parseHierarchy(xml);
    const text = formatElementList(buildElementList(tree));
    times.push(performance.now() - t);
    listChars = text.length;
    nodes = tree.nodes.length;
  }
  times.sort((a, b) => a - b);
  return {
    nodes,
    xmlChars: xml.length,
    runs: n,
    medianMs: percentile(times, 0.5),
    p90Ms: percentile(times, 0.9),
    listChars,
  };
}
