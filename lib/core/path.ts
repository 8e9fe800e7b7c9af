/**
 * Path helpers for all of lib/ and workers/: the same functions as `node:path`, and their one
 * owner. `node:path`'s first import loads Deno's Node compatibility layer (its assert, util,
 * errors and inspect modules: ~7–10 ms of start-up), so on POSIX they are our own, written to
 * `node:path`'s POSIX rules (tests/core/path_test.ts compares them with `node:path` on every case
 * it has); on Windows, `node:path` itself (drive letters, UNC and `\` are its business). Nothing
 * else in lib/ or workers/ imports `node:path` (tests/core/path_test.ts keeps it so).
 */

/** The POSIX implementation: `node:path`'s POSIX rules, on strings only. */
export const posixPath = {
  sep: "/",
  delimiter: ":",
  isAbsolute(path: string): boolean {
    return path.length > 0 && path.charCodeAt(0) === SLASH;
  },
  normalize(path: string): string {
    if (path.length === 0) return ".";
    const absolute = path.charCodeAt(0) === SLASH;
    const trailing = path.charCodeAt(path.length - 1) === SLASH;
    let out = normalizeSegments(path, !absolute);
    if (out.length === 0) {
      if (absolute) return "/";
      return trailing ? "./" : ".";
    }
    if (trailing) out += "/";
    return absolute ? `/${out}` : out;
  },
  join(...parts: string[]): string {
    let joined: string | undefined;
    for (const p of parts) {
      if (p.length > 0) joined = joined === undefined ? p : `${joined}/${p}`;
    }
    return joined === undefined ? "." : posixPath.normalize(joined);
  },
  resolve(...parts: string[]): string {
    let resolved = "";
    let absolute = false;
    for (let i = parts.length - 1; i >= -1 && !absolute; i--) {
      const p = i >= 0 ? parts[i] : Deno.cwd();
      if (p.length === 0) continue;
      resolved = `${p}/${resolved}`;
      absolute = p.charCodeAt(0) === SLASH;
    }
    const out = normalizeSegments(resolved, !absolute);
    if (absolute) return `/${out}`;
    return out.length > 0 ? out : ".";
  },
  dirname(path: string): string {
    if (path.length === 0) return ".";
    const hasRoot = path.charCodeAt(0) === SLASH;
    let end = -1;
    let matchedSlash = true;
    for (let i = path.length - 1; i >= 1; --i) {
      if (path.charCodeAt(i) === SLASH) {
        if (!matchedSlash) {
          end = i;
          break;
        }
      } else {
        matchedSlash = false;
      }
    }
    if (end === -1) return hasRoot ? "/" : ".";
    if (hasRoot && end === 1) return "//";
    return path.slice(0, end);
  },
  basename(path: string, suffix?: string): string {
    let start = 0;
    let end = -1;
    let matchedSlash = true;
    if (suffix !== undefined && suffix.length > 0 && suffix.length <= path.length) {
      if (suffix === path) return "";
      let extIdx = suffix.length - 1;
      let firstNonSlashEnd = -1;
      for (let i = path.length - 1; i >= 0; --i) {
        const code = path.charCodeAt(i);
        if (code === SLASH) {
          if (!matchedSlash) {
            start = i + 1;
            break;
          }
        } else {
          if (firstNonSlashEnd === -1) {
            matchedSlash = false;
            firstNonSlashEnd = i + 1;
          }
          if (extIdx >= 0) {
            if (code === suffix.charCodeAt(extIdx)) {
              if (--extIdx === -1) end = i;
            } else {
              extIdx = -1;
              end = firstNonSlashEnd;
            }
          }
        }
      }
      if (start === end) end = firstNonSlashEnd;
      else if (end === -1) end = path.length;
      return path.slice(start, end);
    }
    for (let i = path.length - 1; i >= 0; --i) {
      if (path.charCodeAt(i) === SLASH) {
        if (!matchedSlash) {
          start = i + 1;
          break;
        }
      } else if (end === -1) {
        matchedSlash = false;
        end = i + 1;
      }
    }
    return end === -1 ? "" : path.slice(start, end);
  },
  relative(from: string, to: string): string {
    if (from === to) return "";
    from = posixPath.resolve(from);
    to = posixPath.resolve(to);
    if (from === to) return "";
    const fromStart = 1;
    const fromEnd = from.length;
    const fromLen = fromEnd - fromStart;
    const toStart = 1;
    const toLen = to.length - toStart;
    const length = fromLen < toLen ? fromLen : toLen;
    let lastCommonSep = -1;
    let i = 0;
    for (; i < length; i++) {
      const fromCode = from.charCodeAt(fromStart + i);
      if (fromCode !== to.charCodeAt(toStart + i)) break;
      else if (fromCode === SLASH) lastCommonSep = i;
    }
    if (i === length) {
      if (toLen > length) {
        if (to.charCodeAt(toStart + i) === SLASH) return to.slice(toStart + i + 1);
        if (i === 0) return to.slice(toStart + i);
      } else if (fromLen > length) {
        if (from.charCodeAt(fromStart + i) === SLASH) lastCommonSep = i;
        else if (i === 0) lastCommonSep = 0;
      }
    }
    let out = "";
    for (i = fromStart + lastCommonSep + 1; i <= fromEnd; ++i) {
      if (i === fromEnd || from.charCodeAt(i) === SLASH) out += out.length === 0 ? ".." : "/..";
    }
    return `${out}${to.slice(toStart + lastCommonSep)}`;
  },
};

const SLASH = 47; // "/"
const DOT = 46; // "."

/** `node:path`'s normalizeString for POSIX: `.` and `..` resolved, repeated slashes folded. */
function normalizeSegments(path: string, allowAboveRoot: boolean): string {
  let res = "";
  let lastSegmentLength = 0;
  let lastSlash = -1;
  let dots = 0;
  let code = 0;
  for (let i = 0; i <= path.length; ++i) {
    if (i < path.length) code = path.charCodeAt(i);
    else if (code === SLASH) break;
    else code = SLASH;
    if (code === SLASH) {
      if (lastSlash === i - 1 || dots === 1) {
        // a repeated slash or a "." segment: nothing
      } else if (dots === 2) {
        if (
          res.length < 2 || lastSegmentLength !== 2 ||
          res.charCodeAt(res.length - 1) !== DOT || res.charCodeAt(res.length - 2) !== DOT
        ) {
          if (res.length > 2) {
            const lastSlashIndex = res.lastIndexOf("/");
            if (lastSlashIndex === -1) {
              res = "";
              lastSegmentLength = 0;
            } else {
              res = res.slice(0, lastSlashIndex);
              lastSegmentLength = res.length - 1 - res.lastIndexOf("/");
            }
            lastSlash = i;
            dots = 0;
            continue;
          } else if (res.length !== 0) {
            res = "";
            lastSegmentLength = 0;
            lastSlash = i;
            dots = 0;
            continue;
          }
        }
        if (allowAboveRoot) {
          res += res.length > 0 ? "/.." : "..";
          lastSegmentLength = 2;
        }
      } else {
        if (res.length > 0) res += `/${path.slice(lastSlash + 1, i)}`;
        else res = path.slice(lastSlash + 1, i);
        lastSegmentLength = i - lastSlash - 1;
      }
      lastSlash = i;
      dots = 0;
    } else if (code === DOT && dots !== -1) {
      ++dots;
    } else {
      dots = -1;
    }
  }
  return res;
}

type PathApi = typeof posixPath;

/** POSIX: ours. Windows: `node:path` (loaded only there). */
const impl: PathApi = Deno.build.os === "windows"
  ? (await import("node:path")).default as unknown as PathApi
  : posixPath;

export const sep = impl.sep;
export const delimiter = impl.delimiter;
export const isAbsolute = (path: string): boolean => impl.isAbsolute(path);
export const normalize = (path: string): string => impl.normalize(path);
export const join = (...parts: string[]): string => impl.join(...parts);
export const resolve = (...parts: string[]): string => impl.resolve(...parts);
export const dirname = (path: string): string => impl.dirname(path);
export const basename = (path: string, suffix?: string): string => impl.basename(path, suffix);
export const relative = (from: string, to: string): string => impl.relative(from, to);
