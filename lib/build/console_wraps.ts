/**
 * Report lines a narrow console (PowerShell, some CI logs) cut over several lines: a javac line
 * whose path runs over lines before its `error:`, a manifest merger report line cut inside its
 * path. Each is rejoined from the lines read before it (`before`, oldest first, at most
 * MAX_WRAP_LINES) when that gives a path from its root. Pure.
 */
import { matchJavac, matchManifestMerger } from "./build_parser_patterns.ts";

/** A path from its root: a drive (`C:\\`, `C:/`) or `/`. */
function isRooted(path: string | null): boolean {
  return /^(?:[A-Za-z]:[\\/]|\/)/.test(path ?? "");
}

/** A manifest merger line whose path is whole: absolute, or after its `[library]`. */
export function isAnchored(m: { file: string | null; library?: string }): boolean {
  return m.library !== undefined || isRooted(m.file);
}

/**
 * A manifest merger report line a console wrapped (`C:\\x\\app\\src\\main\\Android` +
 * `Manifest.xml Error:`): the lines before it, rejoined, when that gives an absolute path or a
 * `[library]` prefix. Only a fragment is rejoined (a relative path, or ` Error:` alone).
 */
export function rejoinManifestLine(
  text: string,
  before: readonly string[],
): ReturnType<typeof matchManifestMerger> {
  if (!/^(?:\s*|\S*)(?:Error|Warning):\s*$|^\S*\.xml (?:Error|Warning):\s*$/.test(text)) {
    return null;
  }
  let joined = text;
  for (let i = before.length - 1; i >= 0; i--) {
    const prev = before[i];
    if (prev === "" || (/^\s/.test(prev) && i < before.length - 1)) return null;
    joined = prev + joined;
    const m = matchManifestMerger(joined);
    if (m && isAnchored(m)) return m;
  }
  return null;
}

/**
 * A javac line a narrow console wrapped over several lines (`D:\\appoi` / `ntivahealth\\app\\…` /
 * `ty.java:40: error: `): rejoined from the lines before it, read at the line that says
 * `error:`, when that gives a path from its root. Null when the line is whole.
 */
export function rejoinJavacLine(
  text: string,
  before: readonly string[],
): ReturnType<typeof matchJavac> {
  if (!/(?:^|: )(?:error|warning): /.test(text + " ")) return null;
  const direct = matchJavac(text);
  if (direct && isRooted(direct.file)) return null;
  let joined = text;
  for (let i = before.length - 1; i >= 0; i--) {
    const prev = before[i];
    // Only a line's first piece may be indented (a block's copy); the rest start at column 1.
    if (prev.trim() === "" || /^\s/.test(joined)) return null;
    joined = prev + joined;
    const m = matchJavac(joined.trimStart());
    if (m && isRooted(m.file)) return m;
  }
  return null;
}
