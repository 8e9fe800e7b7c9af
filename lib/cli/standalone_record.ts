/**
 * A standalone server's bookkeeping: the activity log (rotated at start, `Server started` and
 * `Server stopped`), the last active project, and its session record (`keynobi status`), written
 * in the background so `initialize` is not delayed and removed at exit.
 */
import { log } from "../core/log.ts";
import { ActivityLog, type ActivityRecord } from "../mcp/activity_log.ts";
import type { HttpAddress } from "../mcp/http_address.ts";
import {
  currentMcpSessionRecord,
  pruneStaleSessionRecords,
  removeSessionRecord,
  writeSessionRecord,
} from "../mcp/session_records.ts";
import { type ProjectSelection, setLastActiveProject } from "../project/project_root.ts";
import { VERSION } from "../version.ts";
import { withinGrace } from "./shutdown_grace.ts";

export class StandaloneRecord {
  readonly activity: ActivityLog;
  readonly #dataDir: string;
  readonly #record: ReturnType<typeof currentMcpSessionRecord>;
  readonly #started = performance.now();
  /** The start-up bookkeeping; entries wait for it so the log reads in order. */
  readonly #housekeeping: Promise<void>;
  /** The session record's writes, in order; the last one finishes before the record is removed. */
  #recordWrites: Promise<unknown>;

  constructor(
    dataDir: string,
    project: ProjectSelection | null,
    reason: string,
    http: HttpAddress | null,
  ) {
    this.#dataDir = dataDir;
    this.activity = new ActivityLog(dataDir, { pid: Deno.pid });
    this.#record = currentMcpSessionRecord({
      project: project?.root ?? null,
      reason,
      version: VERSION,
    });
    this.#housekeeping = this.#start(project, reason, http)
      .catch((e) => log.warn(`start-up bookkeeping failed: ${(e as Error).message}`));
    this.#recordWrites = this.#housekeeping;
  }

  /** Append after the start-up entry. */
  append(entry: ActivityRecord): Promise<void> {
    return this.#housekeeping.then(() => this.activity.append(entry));
  }

  /** `keynobi status` shows where (with --http 0, nowhere else says the port). */
  httpUrl(url: string): void {
    this.#recordWrites = this.#recordWrites.then(() =>
      writeSessionRecord(this.#dataDir, { ...this.#record, http_url: url })
    ).catch((e) => log.warn(`Cannot record the HTTP URL: ${(e as Error).message}`));
  }

  /** `Server stopped` and the record removed, each step bounded. */
  async stopped(stopReason: "signal" | "client"): Promise<void> {
    await withinGrace(this.#recordWrites);
    await withinGrace(
      this.activity.append({
        kind: "lifecycle",
        name: "server",
        duration_ms: Math.round(performance.now() - this.#started),
        status: "ok",
        summary: stopReason === "signal" ? "Server stopped by a signal" : "Server stopped",
      }).catch(() => {}),
    );
    await withinGrace(removeSessionRecord(this.#dataDir, Deno.pid).catch(() => {}));
  }

  async #start(
    project: ProjectSelection | null,
    reason: string,
    http: HttpAddress | null,
  ): Promise<void> {
    await this.activity.rotateIfNeeded();
    // The project this server serves becomes the one a later server without a project (and no
    // Gradle build in its working directory) falls back to.
    if (project !== null && project.selectedBy !== "last_active_project") {
      await setLastActiveProject(this.#dataDir, project.root).catch((e) =>
        log.warn(`Cannot remember the last active project: ${(e as Error).message}`)
      );
    }
    await pruneStaleSessionRecords(this.#dataDir);
    await writeSessionRecord(this.#dataDir, this.#record);
    await this.activity.append({
      kind: "lifecycle",
      name: "server",
      duration_ms: 0,
      status: "ok",
      summary: `Server started (standalone: ${reason})` +
        (http ? ` over streamable HTTP on port ${http.port}` : ""),
    });
  }
}
