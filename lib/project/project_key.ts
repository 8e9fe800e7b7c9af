/**
 * The short name a project goes by in the data directory: its build lock, its run configurations.
 * Pure over the canonical Gradle root (lib/project/project_root.ts), so two servers of one project
 * agree on it.
 */
import { sha256Hex } from "../core/hash.ts";

/** Hex digits of the project hash in a file name. */
const PROJECT_KEY_HEX_CHARS = 16;

/** The first 16 hex digits of the SHA-256 of `canonicalRoot`. */
export async function projectKey(canonicalRoot: string): Promise<string> {
  return (await sha256Hex(canonicalRoot)).slice(0, PROJECT_KEY_HEX_CHARS);
}
