/**
 * What `keynobi --mcp` reads before it decides its mode: the HTTP token (when `--http`), the
 * emulator's gRPC endpoint, the data directory and the project. A bad value is said on stderr
 * and exits 2 before anything starts.
 */
import { explicitEndpoint, type GrpcEndpoint } from "../emulator/shared/discovery.ts";
import { ensureDataDir, resolveDataDir } from "../core/data_dir.ts";
import type { Env } from "../core/env.ts";
import { log } from "../core/log.ts";
import { type ProjectSelection, selectProject } from "../project/project_root.ts";
import { type HttpAddress, type HttpAuth, httpAuthFor } from "../mcp/http_address.ts";
import type { ToolsetName } from "../mcp/toolsets.ts";

export interface McpLaunchOptions {
  project: string | null;
  attachOnly: boolean;
  toolsets: ToolsetName[] | null;
  /** `--min-interval-ms` (null: the `mcp.min_action_interval_ms` setting, else 300 ms). */
  minIntervalMs?: number | null;
  /** `--grpc HOST:PORT` (null: `KEYNOBI_GRPC`, else discovery files only). */
  grpc?: string | null;
  env: Env;
  cwd: string;
  stdin: ReadableStream<Uint8Array>;
  stdout: WritableStream<Uint8Array>;
  /** `--http [HOST:]PORT`: serve streamable HTTP instead of stdio. */
  http?: HttpAddress | null;
  /** `--http-no-token`: on loopback, require no token (also `KEYNOBI_HTTP_NO_TOKEN=1`). */
  httpNoToken?: boolean;
  /** Set when the relay hands its session over: serve standalone for this reason, no attach. */
  standaloneReason?: string;
}

/** What was read. */
export interface McpLaunch {
  dataDir: string;
  grpc: GrpcEndpoint | null;
  /** The bearer token HTTP requests must carry (null: none, or not HTTP). */
  httpToken: string | null;
  /** The project by argument or working directory; the last active one is not asked here. */
  project: ProjectSelection | null;
}

type TokenModule = Promise<typeof import("../mcp/http_token.ts")> | null;

/** The launch, or 2 when a value is bad (said on stderr). */
export async function readLaunch(opts: McpLaunchOptions): Promise<McpLaunch | 2> {
  const tokenModule = opts.http ? import("../mcp/http_token.ts") : null;
  let httpAuth: HttpAuth | null;
  let grpc: GrpcEndpoint | null;
  try {
    httpAuth = await httpAuthOf(opts, tokenModule);
    grpc = grpcOf(opts);
  } catch (e) {
    console.error(`keynobi: ${(e as Error).message}`);
    return 2;
  }
  const dataDir = await ensureDataDir(resolveDataDir(opts.env));
  try {
    const httpToken = await httpTokenOf(httpAuth, dataDir, tokenModule);
    // The last active project is a standalone fallback only: an attaching session without a
    // project of its own follows the app's.
    const project = await selectProject({
      argument: opts.project ?? undefined,
      cwd: opts.cwd,
      dataDir,
      useLastActive: false,
    });
    return { dataDir, grpc, httpToken, project };
  } catch (e) {
    console.error(`keynobi: ${(e as Error).message}`);
    return 2;
  }
}

async function httpAuthOf(opts: McpLaunchOptions, tokenModule: TokenModule) {
  if (!opts.http) return null;
  const noToken = (opts.httpNoToken ?? false) ||
    (await tokenModule!).noTokenFromEnv(opts.env.get("KEYNOBI_HTTP_NO_TOKEN"));
  return httpAuthFor(opts.http, opts.env.get("KEYNOBI_HTTP_TOKEN"), noToken);
}

function grpcOf(opts: McpLaunchOptions): GrpcEndpoint | null {
  const grpcValue = opts.grpc ?? opts.env.get("KEYNOBI_GRPC") ?? "";
  if (grpcValue === "") return null;
  return explicitEndpoint(
    grpcValue,
    opts.env.get("KEYNOBI_GRPC_TOKEN"),
    opts.grpc ? "--grpc" : "KEYNOBI_GRPC",
  );
}

async function httpTokenOf(
  httpAuth: HttpAuth | null,
  dataDir: string,
  tokenModule: TokenModule,
): Promise<string | null> {
  if (httpAuth?.kind === "token") return httpAuth.token;
  if (httpAuth?.kind === "install") return await (await tokenModule!).installHttpToken(dataDir);
  if (httpAuth?.kind === "none") {
    log.warn(
      "serving loopback HTTP without a token (--http-no-token): every user of this machine can " +
        "connect",
    );
  }
  return null;
}
