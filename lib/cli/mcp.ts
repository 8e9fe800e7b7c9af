/**
 * `keynobi --mcp`: read the launch (lib/cli/mcp_launch.ts), then decide the mode: attached to a
 * running `keynobi app`, else standalone (lib/cli/mcp_standalone.ts: on stdio until the client
 * closes stdin, or with `--http` over streamable HTTP until a signal). Attached, this process only
 * relays stdio to the app's socket (lib/attach/relay.ts), and becomes a standalone server in place
 * when the app goes away. Every MCP session is one `createSession` (lib/mcp/session.ts) on the
 * process's runtime (lib/cli/runtime.ts).
 */
import { log } from "../core/log.ts";
import { VERSION } from "../version.ts";
import { type AttachOutcome, tryAttach } from "../attach/attach_client.ts";
import { runRelay } from "../attach/relay.ts";
import { type McpLaunch, type McpLaunchOptions, readLaunch } from "./mcp_launch.ts";
import { loadSessionModules, type McpSessionModules, runStandalone } from "./mcp_standalone.ts";

type HttpModule = Promise<typeof import("../mcp/http_server.ts")>;
type Attached = Extract<AttachOutcome, { kind: "attached" }>;

export async function runMcp(opts: McpLaunchOptions): Promise<number> {
  // Over HTTP, start loading the SDK's engine now: its import is most of start-up, and overlaps
  // the disk reads below. On stdio it loads once `initialize` is answered (`runStandalone`).
  const sessionModules = opts.http ? loadSessionModules() : null;
  const httpModule = opts.http ? import("../mcp/http_server.ts") : null;
  httpModule?.catch(() => {});
  // Signals always start the shutdown, whatever is in flight (before start-up finished too).
  const signalled = Promise.withResolvers<"signal">();
  const onSignal = () => signalled.resolve("signal");
  for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, onSignal);
  try {
    return await serve(opts, sessionModules, httpModule, signalled.promise);
  } finally {
    for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.removeSignalListener(sig, onSignal);
  }
}

/** The mode decision: attached (relay), refused (--attach-only), or standalone with its reason. */
async function serve(
  opts: McpLaunchOptions,
  sessionModules: Promise<McpSessionModules> | null,
  httpModule: HttpModule | null,
  signalled: Promise<"signal">,
): Promise<number> {
  const launch = await readLaunch(opts);
  if (typeof launch === "number") return launch;
  const mode = await decideMode(opts, launch);
  if (mode.kind === "attached") {
    return await runAttached(opts, launch, mode, signalled, sessionModules);
  }
  if (mode.kind === "refused") {
    console.error(`keynobi: cannot attach to the Keynobi app: ${mode.reason} (--attach-only)`);
    return 2;
  }
  return await runStandalone({
    opts,
    launch,
    reason: mode.reason,
    sessionModules,
    httpModule,
    signalled,
  });
}

/** How this server runs: attached, standalone (and why), or not at all (--attach-only). */
type Mode = AttachOutcome | { kind: "refused"; reason: string };

/** Attach unless the launch says why not (a handed-over session, HTTP), or the app is not there. */
async function decideMode(opts: McpLaunchOptions, launch: McpLaunch): Promise<Mode> {
  if (opts.standaloneReason !== undefined) {
    return { kind: "standalone", reason: opts.standaloneReason };
  }
  if (opts.http) {
    return {
      kind: "standalone",
      reason: "it serves streamable HTTP (--http), which never attaches",
    };
  }
  const outcome = await tryAttach({
    dataDir: launch.dataDir,
    version: VERSION,
    project: launch.project?.root ?? null,
    selectedBy: launch.project?.selectedBy ?? null,
    toolsets: opts.toolsets,
  });
  if (outcome.kind === "standalone" && opts.attachOnly) {
    return { kind: "refused", reason: outcome.reason };
  }
  return outcome;
}

/** Relay stdio to the app; when it goes, serve the session standalone (not with --attach-only). */
async function runAttached(
  opts: McpLaunchOptions,
  launch: McpLaunch,
  attached: Attached,
  signalled: Promise<"signal">,
  sessionModules: Promise<McpSessionModules> | null,
): Promise<number> {
  log.info(`attached to the Keynobi app ${attached.reply.version}`);
  return await runRelay({
    stdin: opts.stdin,
    stdout: opts.stdout,
    conn: attached.conn,
    socketReader: attached.reader,
    rest: attached.rest,
    stop: signalled,
    onAppGone: (open) =>
      log.warn(
        `the Keynobi app went away${open ? ` with ${open} requests unanswered` : ""}` +
          (opts.attachOnly ? "; exiting (--attach-only)" : "; continuing standalone"),
      ),
    // A session that followed the app keeps the app's project when it goes standalone.
    fallback: opts.attachOnly ? null : (stdin, stdout) =>
      serve(
        {
          ...opts,
          project: opts.project ?? (launch.project === null ? attached.reply.project : null),
          stdin,
          stdout,
          standaloneReason: "the Keynobi app quit",
        },
        sessionModules,
        null,
        signalled,
      ),
  });
}
