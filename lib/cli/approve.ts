/**
 * `keynobi approve-configurations <path>`: the user approves the project's shared run
 * configurations (`.keynobi/run-configurations.json`) as the file is now. The approval is the
 * file's SHA-256 in settings; any later change to the file needs a new approval. Only this
 * command approves: no MCP tool can. Exit status: 0 approved, 1 refused or failed, 2 usage.
 */
import { resolve } from "../core/path.ts";
import { resolveDataDir } from "../core/data_dir.ts";
import { findGradleRoot } from "../project/project_root.ts";
import {
  approveSharedConfigs,
  readSharedConfigs,
  SHARED_CONFIGS_FILE,
} from "../project/run_configs.ts";
import { describeLaunch } from "../project/run_plan.ts";
import type { CliIo } from "./trust.ts";

export async function approveConfigurationsCommand(args: string[], io: CliIo): Promise<number> {
  const paths = args.filter((a) => a !== "--");
  if (paths.length !== 1 || paths[0].startsWith("-")) {
    io.stderr("Usage: keynobi approve-configurations <path>: give the project's folder");
    return 2;
  }
  const abs = resolve(io.cwd, paths[0]);
  const root = await findGradleRoot(abs);
  if (root === null) {
    io.stderr(
      `Cannot approve run configurations for ${abs}: it is not in a Gradle build (no ` +
        "settings.gradle(.kts) in it or a parent folder); pass the Android project's folder",
    );
    return 1;
  }
  const shared = await readSharedConfigs(root);
  if (shared.sha256 === null) {
    io.stderr(
      `Cannot approve: ${root} has no ${SHARED_CONFIGS_FILE}` +
        (shared.problems.length ? ` (${shared.problems.join("; ")})` : "") +
        "; create it first",
    );
    return 1;
  }
  if (shared.configurations.length === 0 || shared.problems.length > 0) {
    io.stderr(
      `Cannot approve ${SHARED_CONFIGS_FILE} in ${root}: ${
        shared.problems.join("; ") || "it lists no configuration"
      }; fix the file and run this again`,
    );
    return 1;
  }
  try {
    await approveSharedConfigs(resolveDataDir(io.env), root, shared.sha256);
  } catch (e) {
    io.stderr((e as Error).message);
    return 1;
  }
  io.stdout(`Approved ${SHARED_CONFIGS_FILE} in ${root} (sha256 ${shared.sha256.slice(0, 16)}…):`);
  for (const c of shared.configurations) {
    io.stdout(
      `  ${c.name}: ${c.module} ${c.variant}, task ${c.task ?? "assemble (default)"}, ` +
        `${describeLaunch(c.launch)}, target ${c.target.kind}`,
    );
  }
  io.stdout(
    "Agents may now build and run these configurations. Any change to the file needs a new " +
      "approval.",
  );
  return 0;
}
