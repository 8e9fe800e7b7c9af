/**
 * The bundle (`dist/bundle/main.js`, written by `deno task bundle` or by `keynobi setup`): the main
 * thread as a few files instead of ~400 modules, which starts in about 60 % of the time. It is only
 * run while it was built from the sources now in the checkout: the bundle records a fingerprint of
 * them (every file's path, size and modification time under main.ts, deno.json, lib/ and
 * workers/ — the workers always run from source, so the main thread must match them), and a
 * bundle that finds a different one (after `git pull`, or an edit) starts from source instead and
 * says so on stderr. Checking costs ~2 ms of stat calls.
 */

/** The bundle's folder, relative to the checkout. */
export const BUNDLE_DIR = "dist/bundle";
/** The fingerprint file next to the bundle. */
export const BUNDLE_STAMP = "sources.json";
/** The tools' listing next to the bundle (lib/cli/bundle_listing.ts). */
export const BUNDLE_LISTING = "tool_list.json";
/** Largest listing the build accepts and a bundle reads (all tools list in ~40 KB). */
const MAX_BUNDLE_LISTING_BYTES = 4 * 1024 * 1024;
/** Longest the bundler may take when `keynobi setup` builds it. */
const BUNDLE_TIMEOUT_MS = 120_000;
/** What is kept of `deno bundle`'s stdout and of its stderr (the error's last lines). */
const MAX_BUNDLE_OUTPUT_BYTES = 256 * 1024;
/** Files the fingerprint reads at most (a checkout has ~200; beyond, it is never current). */
const MAX_FINGERPRINT_FILES = 5_000;

/** What the fingerprint covers, relative to the checkout. */
const SOURCES = ["main.ts", "deno.json", "deno.lock", "lib", "workers"];

/** Whether `url` (a module's) is one of the bundle's files. */
function isBundleFile(url: string): boolean {
  return /\/dist\/bundle\/[^/]+\.js$/.test(url);
}

const listings = new Map<string, ReadonlyMap<string, unknown> | null>();

/**
 * The tools' listing written beside the bundle, when `moduleUrl` (the caller's import.meta.url)
 * is one of the bundle's files; null from source, or when the file is missing, too large or not a
 * JSON object (the session then converts each schema itself). Read once per folder and process.
 */
export function bundledListing(moduleUrl: string): ReadonlyMap<string, unknown> | null {
  if (!isBundleFile(moduleUrl)) return null;
  const file = new URL(BUNDLE_LISTING, moduleUrl);
  const known = listings.get(file.href);
  if (known !== undefined) return known;
  let found: ReadonlyMap<string, unknown> | null = null;
  try {
    if (Deno.statSync(file).size <= MAX_BUNDLE_LISTING_BYTES) {
      const parsed = JSON.parse(Deno.readTextFileSync(file));
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
        found = new Map(Object.entries(parsed));
      }
    }
  } catch {
    // No listing: computed per session.
  }
  listings.set(file.href, found);
  return found;
}

/** Whether `url` (a main module's) is the bundle's entry. */
export function isBundleEntry(url: string): boolean {
  return /\/dist\/bundle\/main\.js$/.test(url);
}

/** The checkout a main module belongs to (main.ts, or the bundle two folders below it). */
export function checkoutOf(mainUrl: string): string {
  const rel = isBundleEntry(mainUrl) ? "../../" : "./";
  return decodeURIComponent(new URL(rel, mainUrl).pathname).replace(/\/$/, "");
}

/** A fingerprint of the sources the main thread is built from (null: too many files). */
export function sourceFingerprint(root: string): string | null {
  const rows: string[] = [];
  const walk = (rel: string): boolean => {
    let st: Deno.FileInfo;
    try {
      st = Deno.statSync(`${root}/${rel}`);
    } catch {
      rows.push(`${rel}:absent`);
      return true;
    }
    if (st.isDirectory) {
      const names = [...Deno.readDirSync(`${root}/${rel}`)].map((e) => e.name).sort();
      for (const n of names) if (!walk(`${rel}/${n}`)) return false;
      return true;
    }
    rows.push(`${rel}:${st.size}:${st.mtime?.getTime() ?? 0}`);
    return rows.length <= MAX_FINGERPRINT_FILES;
  };
  for (const s of SOURCES) if (!walk(s)) return null;
  // FNV-1a over the rows, twice with different seeds (64 bits in all) and the count.
  let a = 0x811c9dc5, b = 0x01000193;
  for (const r of rows) {
    for (let i = 0; i < r.length; i++) {
      const c = r.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
    a = Math.imul(a ^ 10, 0x01000193);
    b = Math.imul(b ^ 10, 0x5bd1e995);
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, "0");
  return `${rows.length}-${hex(a)}${hex(b)}`;
}

/** Whether the checkout's bundle exists and was built from its current sources. */
export function bundleIsCurrent(root: string): boolean {
  let stamp: { fingerprint?: unknown };
  try {
    stamp = JSON.parse(Deno.readTextFileSync(`${root}/${BUNDLE_DIR}/${BUNDLE_STAMP}`));
    Deno.statSync(`${root}/${BUNDLE_DIR}/main.js`);
  } catch {
    return false;
  }
  const now = sourceFingerprint(root);
  return now !== null && stamp.fingerprint === now;
}

/**
 * Builds the bundle of the checkout `root` with `deno` (its path), into a fresh folder that
 * replaces the old one only when complete, with the fingerprint of the sources it was built from.
 * Returns null when done, else why not.
 */
export async function buildBundle(root: string, deno: string): Promise<string | null> {
  const fingerprint = sourceFingerprint(root);
  if (fingerprint === null) return `more than ${MAX_FINGERPRINT_FILES} source files`;
  const out = `${root}/${BUNDLE_DIR}`;
  const tmp = `${out}.tmp-${Deno.pid}`;
  await Deno.remove(tmp, { recursive: true }).catch(() => {});
  // Loaded here, not at the top: the start-up check above stays import-free.
  const { runCommand } = await import("../core/run_command.ts");
  const result = await runCommand(deno, [
    "bundle",
    "--quiet",
    "--platform",
    "deno",
    "--code-splitting",
    // npm `yaml` (the flow parser's) resolves to its CommonJS build, whose `require("node:…")`
    // calls make the bundler put `createRequire` from node:module into the helpers chunk every
    // start-up loads: ~40 ms of Node compatibility set-up before initialize. Left out, the flow
    // parser's chunk imports it through deno.json's import map on the first flow, as source does.
    "--external",
    "yaml",
    "--outdir",
    tmp,
    `${root}/main.ts`,
  ], {
    timeoutMs: BUNDLE_TIMEOUT_MS,
    maxOutputBytes: MAX_BUNDLE_OUTPUT_BYTES,
    cwd: root, // deno.json (the import map) and deno.lock are found from here
  });
  if (result.code === null && !result.timedOut) {
    return `could not run ${deno} bundle: ${result.error}`;
  }
  if (result.code !== 0) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    const why = result.stderr.trim().split("\n").slice(-3).join(" ");
    return result.timedOut
      ? `deno bundle took over ${BUNDLE_TIMEOUT_MS} ms`
      : `deno bundle: ${why}`;
  }
  const listed = await runCommand(deno, [
    "run",
    "--quiet",
    "--allow-read",
    "--allow-env",
    `${root}/lib/cli/bundle_listing.ts`,
  ], { timeoutMs: BUNDLE_TIMEOUT_MS, maxOutputBytes: MAX_BUNDLE_LISTING_BYTES, cwd: root });
  if (listed.code !== 0) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    const why = listed.stderr.trim().split("\n").slice(-3).join(" ");
    return `the tools' listing: ${why || listed.error || "failed"}`;
  }
  try {
    JSON.parse(listed.stdout);
  } catch {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    return "the tools' listing is not JSON (over MAX_BUNDLE_LISTING_BYTES?)";
  }
  await Deno.writeTextFile(`${tmp}/${BUNDLE_LISTING}`, listed.stdout);
  await Deno.writeTextFile(`${tmp}/${BUNDLE_STAMP}`, JSON.stringify({ fingerprint }) + "\n");
  await Deno.remove(out, { recursive: true }).catch(() => {});
  await Deno.rename(tmp, out);
  return null;
}
