/**
 * Whether a path is a file or a folder (links followed), for discovery that only looks (SDK, JDK,
 * Gradle roots, source folders). `false` when it is absent or cannot be read. Reading a project's
 * files goes through lib/core/project_paths.ts instead.
 */

export async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
