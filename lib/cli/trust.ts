/**
 * `keynobi trust <path>`, `keynobi untrust <path>`, `keynobi projects`: the only way trust is
 * granted or revoked (no MCP tool can). Each returns its exit status: 0 done, 1 refused or failed,
 * 2 usage error. Untrusting a project that is not trusted is not an error (exit 0): the state the
 * user asked for holds, and the message says nothing changed.
 */
import { resolve } from "../core/path.ts";
import type { Env } from "../core/env.ts";
import { resolveDataDir } from "../core/data_dir.ts";
import { listProjects, trustProject, untrustProject } from "../project/trust.ts";

export interface CliIo {
  env: Env;
  cwd: string;
  stdout(line: string): void;
  stderr(line: string): void;
}

function onePath(command: string, args: string[], io: CliIo): string | null {
  const paths = args.filter((a) => a !== "--");
  if (paths.length !== 1 || paths[0].startsWith("-")) {
    io.stderr(`Usage: keynobi ${command} <path>: give exactly one project folder`);
    return null;
  }
  return resolve(io.cwd, paths[0]);
}

export async function trustCommand(args: string[], io: CliIo): Promise<number> {
  const path = onePath("trust", args, io);
  if (path === null) return 2;
  try {
    const { root, alreadyTrusted } = await trustProject(resolveDataDir(io.env), path);
    if (alreadyTrusted) {
      io.stdout(`Already trusted: ${root}`);
      return 0;
    }
    io.stdout(`Trusted: ${root}`);
    if (root !== path) io.stdout(`(the Gradle build that contains ${path})`);
    io.stdout(
      "keynobi may now run this project's gradlew and Gradle build scripts, with your " +
        "permissions, when an agent asks for a build. Revoke with `keynobi untrust " + root + "`.",
    );
    return 0;
  } catch (e) {
    io.stderr((e as Error).message);
    return 1;
  }
}

export async function untrustCommand(args: string[], io: CliIo): Promise<number> {
  const path = onePath("untrust", args, io);
  if (path === null) return 2;
  try {
    const removed = await untrustProject(resolveDataDir(io.env), path);
    if (removed.length === 0) {
      io.stdout(
        `Not trusted: ${path}; nothing changed (\`keynobi projects\` lists trusted projects)`,
      );
      return 0;
    }
    for (const root of removed) io.stdout(`Untrusted: ${root}`);
    io.stdout("keynobi will refuse to build it until it is trusted again.");
    return 0;
  } catch (e) {
    io.stderr((e as Error).message);
    return 1;
  }
}

export async function projectsCommand(args: string[], io: CliIo): Promise<number> {
  if (args.length > 0) {
    io.stderr("Usage: keynobi projects: it takes no arguments");
    return 2;
  }
  const { projects, last_active_project: last } = await listProjects(resolveDataDir(io.env));
  if (projects.length === 0) {
    io.stdout("No trusted projects. Trust one with `keynobi trust <path>`.");
  } else {
    io.stdout("Trusted projects:");
    for (const p of projects) {
      io.stdout(`  ${p.root}  (trusted ${p.trusted_at}${p.exists ? "" : "; folder missing"})`);
    }
  }
  io.stdout(`Last active project: ${last ?? "none"}`);
  return 0;
}
