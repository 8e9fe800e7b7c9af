/** `keynobi status`: the keynobi MCP servers running for this data directory. */
import { resolveDataDir } from "../core/data_dir.ts";
import type { Env } from "../core/env.ts";
import { listSessionRecords } from "../mcp/session_records.ts";
import { VERSION } from "../version.ts";

export async function statusCommand(
  io: { env: Env; stdout(line: string): void },
): Promise<number> {
  const dataDir = resolveDataDir(io.env);
  const records = await listSessionRecords(dataDir);
  io.stdout(`keynobi ${VERSION}, data directory ${dataDir}`);
  io.stdout("app: not running (keynobi app is not implemented yet)");
  if (records.length === 0) {
    io.stdout("standalone MCP servers: none");
    return 0;
  }
  io.stdout(`standalone MCP servers: ${records.length}`);
  for (const r of records) {
    const version = r.version === VERSION
      ? r.version
      : `${r.version ?? "unknown"} (differs from ${VERSION}: restart the AI client)`;
    io.stdout(
      `  pid ${r.pid}, since ${r.started_at}, version ${version}, project ${r.project ?? "none"}`,
    );
  }
  return 0;
}
