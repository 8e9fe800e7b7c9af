/**
 * `dumpsys meminfo <package>`: one block per process (`** MEMINFO in pid N [name] **`) with the
 * category table, the App Summary and the Objects counts. The modern layout has Rss columns and
 * `TOTAL PSS: … TOTAL RSS: … TOTAL SWAP PSS: …`; the older one has `Swap Dirty` and `TOTAL: …
 * TOTAL SWAP (KB): …`. Column names are read from the two header lines, so both parse. Pure.
 */

/** Processes kept from one dump (an app with many processes is still bounded). */
const MAX_MEMINFO_PROCESSES = 16;
/** Table rows kept per process. */
const MAX_MEMINFO_ROWS = 64;

interface MeminfoProcess {
  pid: number;
  process: string;
  total_pss_kb: number | null;
  total_rss_kb: number | null;
  total_swap_pss_kb: number | null;
  /** App Summary rows in KB: `java_heap: {pss, rss}`, … (`rss` absent in the older layout). */
  summary: Record<string, { pss_kb: number | null; rss_kb: number | null }>;
  /** Heap size/alloc/free of the native and Dalvik heaps, in KB. */
  heaps: Record<string, { size_kb: number; alloc_kb: number; free_kb: number }>;
  /** Category table: row label → column (`pss_total`, `private_dirty`, `rss_total`, …) → KB. */
  table: Record<string, Record<string, number>>;
  /** Objects section counts: `views`, `activities`, `webviews`, … */
  objects: Record<string, number>;
}

export interface MeminfoDump {
  /** `No process found for: <pkg>` (the app is not running). */
  not_running: boolean;
  processes: MeminfoProcess[];
}

const snake = (s: string) =>
  s.trim().toLowerCase().replace(/\(kb\)/g, "").replace(/[^a-z0-9]+/g, "_").replace(
    /^_|_$/g,
    "",
  );

/** `Pss Private Private SwapPss Rss Heap` + `Total Dirty Clean Dirty Total Size` → names. */
function columnNames(top: string, bottom: string): string[] {
  const a = top.trim().split(/\s+/), b = bottom.trim().split(/\s+/);
  if (a.length !== b.length) return [];
  return a.map((x, i) => snake(`${x} ${b[i]}`));
}

// deno-lint-ignore house/long-function -- one pass; a table header decides how its rows read
function parseBlock(lines: string[], pid: number, process: string): MeminfoProcess {
  const out: MeminfoProcess = {
    pid,
    process,
    total_pss_kb: null,
    total_rss_kb: null,
    total_swap_pss_kb: null,
    summary: {},
    heaps: {},
    table: {},
    objects: {},
  };
  let cols: string[] = [];
  let section: "table" | "summary" | "objects" | "other" = "other";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const trimmed = line.trim();
    if (/^Pss\s+Private/.test(trimmed) && i + 1 < lines.length) {
      cols = columnNames(trimmed, lines[i + 1]);
      section = "table";
      i++;
      continue;
    }
    if (trimmed === "App Summary") {
      section = "summary";
      continue;
    }
    if (trimmed === "Objects") {
      section = "objects";
      continue;
    }
    if (/^(SQL|DATABASES|Asset Allocations|Dalvik Details|Unreachable memory)$/.test(trimmed)) {
      section = "other";
      continue;
    }
    if (trimmed === "" || /^[-\s]+$/.test(trimmed)) continue;
    const totals = readTotals(trimmed);
    if (totals) {
      Object.assign(out, totals);
      continue;
    }
    if (section === "table") {
      const m = /^(.*?\S)\s+((?:\d+\s*)+)$/.exec(trimmed);
      if (m === null || cols.length === 0) continue;
      const values = m[2].trim().split(/\s+/).map(Number);
      const row: Record<string, number> = {};
      values.forEach((v, j) => {
        if (j < cols.length) row[cols[j]] = v;
      });
      const label = snake(m[1]) || m[1];
      if (Object.keys(out.table).length < MAX_MEMINFO_ROWS) out.table[label] = row;
      if (
        (label === "native_heap" || label === "dalvik_heap") && row.heap_size !== undefined &&
        row.heap_alloc !== undefined && row.heap_free !== undefined
      ) {
        out.heaps[label.replace("_heap", "")] = {
          size_kb: row.heap_size,
          alloc_kb: row.heap_alloc,
          free_kb: row.heap_free,
        };
      }
      if (label === "total" && out.total_pss_kb === null && row.pss_total !== undefined) {
        out.total_pss_kb = row.pss_total;
        if (row.rss_total !== undefined) out.total_rss_kb = row.rss_total;
      }
    } else if (section === "summary") {
      const m = /^([A-Za-z ]+):\s+(\d+)?(?:\s+(\d+))?\s*$/.exec(trimmed);
      if (m === null) continue;
      // A row with only an Rss value (`Unknown:` with a wide gap) has its number far right.
      const onlyRss = m[2] !== undefined && m[3] === undefined &&
        /:\s{20,}\d+\s*$/.test(line);
      out.summary[snake(m[1])] = {
        pss_kb: onlyRss || m[2] === undefined ? null : Number(m[2]),
        rss_kb: m[3] !== undefined ? Number(m[3]) : onlyRss ? Number(m[2]) : null,
      };
    } else if (section === "objects") {
      for (const o of trimmed.matchAll(/([A-Za-z][A-Za-z ]*?):\s+(\d+)/g)) {
        out.objects[snake(o[1])] = Number(o[2]);
      }
    }
  }
  return out;
}

/** `TOTAL PSS: 1 TOTAL RSS: 2 TOTAL SWAP PSS: 3` or `TOTAL: 1 TOTAL SWAP (KB): 0`. */
function readTotals(
  line: string,
): Partial<Pick<MeminfoProcess, "total_pss_kb" | "total_rss_kb" | "total_swap_pss_kb">> | null {
  if (!/^TOTAL( PSS)?:/.test(line)) return null;
  const out: Partial<
    Pick<MeminfoProcess, "total_pss_kb" | "total_rss_kb" | "total_swap_pss_kb">
  > = {};
  const pss = /^TOTAL(?: PSS)?:\s+(\d+)/.exec(line);
  if (pss) out.total_pss_kb = Number(pss[1]);
  const rss = /TOTAL RSS:\s+(\d+)/.exec(line);
  if (rss) out.total_rss_kb = Number(rss[1]);
  const swap = /TOTAL SWAP(?: PSS| \(KB\))?:\s+(\d+)/.exec(line);
  if (swap) out.total_swap_pss_kb = Number(swap[1]);
  return out;
}

/** Parses `dumpsys meminfo <package>` output. Pure. */
export function parseMeminfo(text: string): MeminfoDump {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const notRunning = lines.some((l) => /^\s*No process found for:/.test(l));
  const processes: MeminfoProcess[] = [];
  let head: { pid: number; process: string } | null = null;
  let body: string[] = [];
  const flush = () => {
    if (head !== null && processes.length < MAX_MEMINFO_PROCESSES) {
      processes.push(parseBlock(body, head.pid, head.process));
    }
    head = null;
    body = [];
  };
  for (const line of lines) {
    const m = /^\*\* MEMINFO in pid (\d+) \[(.*)\] \*\*\s*$/.exec(line.trim());
    if (m !== null) {
      flush();
      head = { pid: Number(m[1]), process: m[2] };
      continue;
    }
    if (head !== null) body.push(line);
  }
  flush();
  return { not_running: notRunning && processes.length === 0, processes };
}

/** One line per process: PSS, RSS, Java and native heap. Pure. */
export function renderMeminfo(pkg: string, dump: MeminfoDump): string {
  if (dump.processes.length === 0) {
    return `${pkg} is not running, so it has no memory to report: launch it (launch_app) first`;
  }
  const mb = (kb: number | null) => kb === null ? "?" : `${(kb / 1024).toFixed(1)} MB`;
  return dump.processes.map((p) => {
    const parts = [`${p.process} (pid ${p.pid}): PSS ${mb(p.total_pss_kb)}`];
    if (p.total_rss_kb !== null) parts.push(`RSS ${mb(p.total_rss_kb)}`);
    const java = p.summary.java_heap, native = p.summary.native_heap;
    if (java) parts.push(`Java heap ${mb(java.pss_kb)}`);
    if (native) parts.push(`native heap ${mb(native.pss_kb)}`);
    if (p.summary.graphics) parts.push(`graphics ${mb(p.summary.graphics.pss_kb)}`);
    if (p.objects.activities !== undefined) parts.push(`${p.objects.activities} activities`);
    if (p.objects.views !== undefined) parts.push(`${p.objects.views} views`);
    return parts.join(", ");
  }).join("\n");
}
