/**
 * Java `.properties` files (`gradle.properties`, `local.properties`,
 * `gradle-wrapper.properties`): comments, `=`/`:`/space separators, backslash continuations and
 * escapes (`C\:\\Users` on Windows, `https\://` in wrapper URLs).
 */

import { readProjectFile } from "./project_paths.ts";
import { ToolError } from "./errors.ts";

/** Properties files larger than this are not read (they are a few hundred bytes in practice). */
export const MAX_PROPERTIES_BYTES = 256 * 1024;

function unescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, c: string) => {
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    switch (c) {
      case "t":
        return "\t";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "f":
        return "\f";
      default:
        return c;
    }
  });
}

/** Whether a line ends with an odd number of backslashes (a continuation). */
function continues(line: string): boolean {
  let n = 0;
  for (let i = line.length - 1; i >= 0 && line[i] === "\\"; i--) n++;
  return n % 2 === 1;
}

/** Parse properties text; later keys win. Pure. */
export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i].replace(/^[ \t\f]+/, "");
    if (line === "" || line.startsWith("#") || line.startsWith("!")) continue;
    while (continues(line) && i + 1 < lines.length) {
      line = line.slice(0, -1) + lines[++i].replace(/^[ \t\f]+/, "");
    }
    // The key ends at the first unescaped '=', ':' or whitespace.
    let k = 0;
    while (k < line.length) {
      const c = line[k];
      if (c === "\\") {
        k += 2;
        continue;
      }
      if (c === "=" || c === ":" || c === " " || c === "\t" || c === "\f") break;
      k++;
    }
    const key = unescape(line.slice(0, k));
    let rest = line.slice(k).replace(/^[ \t\f]+/, "");
    if (rest.startsWith("=") || rest.startsWith(":")) rest = rest.slice(1).replace(/^[ \t\f]+/, "");
    out.set(key, unescape(rest));
  }
  return out;
}

/**
 * Read and parse a project's properties file (`relPath` inside `root`) through the project-file
 * checks of `readProjectFile` (no symlink out of the project, no FIFO, the opened file is the
 * checked one); `null` when it is missing, refused, or larger than `MAX_PROPERTIES_BYTES`.
 */
export async function readProjectProperties(
  root: string,
  relPath: string,
): Promise<Map<string, string> | null> {
  try {
    const file = await readProjectFile(root, relPath, MAX_PROPERTIES_BYTES);
    return file.truncated ? null : parseProperties(file.text);
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}

/**
 * Read and parse a properties file outside any project (the user's Gradle home, the SDK); `null`
 * when missing, unreadable, too large or not a file.
 */
export async function readPropertiesFile(path: string): Promise<Map<string, string> | null> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > MAX_PROPERTIES_BYTES) return null;
    const text = new TextDecoder().decode(await Deno.readFile(path));
    return parseProperties(text);
  } catch {
    return null;
  }
}
