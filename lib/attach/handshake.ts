/**
 * The attach handshake: one JSON line each way before any MCP bytes (spec "Attaching").
 *
 *   client → app  {"attach":1,"version":"…","project":"/root"|null,"pid":123,
 *                  "selected_by":"argument"|"working_directory"|null,"toolsets":["core"]}
 *   app → client  {"accepted":true,"project":"/root","version":"…","toolsets":[…]}
 *                 {"accepted":false,"reason":"…","version":"…"}
 *
 * Two more one-line queries share the socket (our additions for the CLI, never for agents):
 * `{"status":1}` answers the app's status and closes; `{"open":1,"project":"/path"}` switches the
 * app's project (`keynobi open`). Parsing and deciding are pure; reading the line is bounded.
 */
import { isAbsolute, normalize } from "../core/path.ts";
import { ABORTED, raceAbort } from "../core/abortable.ts";
import { concatBytes } from "../core/bytes.ts";
import { type ToolsetName, TOOLSETS } from "../mcp/toolsets.ts";

/** The handshake revision this release speaks. */
export const ATTACH_VERSION = 1;
/** Longest handshake line either way. */
export const MAX_HANDSHAKE_BYTES = 4 * 1024;
/** How long the app waits for the handshake line of a new connection. */
const REQUEST_TIMEOUT_MS = 5_000;
/** Most sessions the app serves at once. */
export const MAX_ATTACHED_SESSIONS = 16;
/** Connections that have not finished their handshake; more are closed at once. */
export const MAX_PENDING_HANDSHAKES = 32;
/** Longest `version` string accepted (a release name, never a document). */
const MAX_VERSION_CHARS = 64;

export type SelectedBy = "argument" | "working_directory" | "last_active_project" | null;

export interface AttachRequest {
  attach: number;
  version: string;
  project: string | null;
  pid: number;
  selected_by: SelectedBy;
  toolsets?: ToolsetName[];
}

export type AppQuery =
  | { kind: "attach"; request: AttachRequest }
  | { kind: "status" }
  | { kind: "open"; project: string };

export type AttachReply =
  | { accepted: true; project: string | null; version: string; toolsets: ToolsetName[] }
  | { accepted: false; reason: string; version: string };

/** A handshake line we refuse: the reason goes back to the client, then the connection closes. */
export class HandshakeError extends Error {}

/** Parse one handshake line (without its newline). Throws `HandshakeError` with the reason. */
export function parseQuery(line: string): AppQuery {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new HandshakeError("the attach handshake is not valid JSON");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new HandshakeError("the attach handshake must be one JSON object");
  }
  const m = v as Record<string, unknown>;
  if (m.status === 1 && Object.keys(m).length === 1) return { kind: "status" };
  if (m.open === 1) return { kind: "open", project: checkPath(m.project, "open") };
  if (!("attach" in m)) {
    throw new HandshakeError('the attach handshake needs "attach" (the handshake version)');
  }
  if (m.attach !== ATTACH_VERSION) {
    throw new HandshakeError(
      `unknown attach version ${JSON.stringify(m.attach)}: this Keynobi app speaks attach ` +
        `version ${ATTACH_VERSION}; update keynobi or restart the MCP client`,
    );
  }
  if (typeof m.version !== "string" || m.version === "" || m.version.length > MAX_VERSION_CHARS) {
    throw new HandshakeError(`"version" must be the client binary's version string`);
  }
  if (!Number.isSafeInteger(m.pid) || (m.pid as number) <= 0) {
    throw new HandshakeError(`"pid" must be the client process id`);
  }
  const project = m.project === null ? null : checkPath(m.project, "project");
  const sb = m.selected_by ?? null;
  if (
    sb !== null && sb !== "argument" && sb !== "working_directory" && sb !== "last_active_project"
  ) {
    throw new HandshakeError(
      `"selected_by" must be "argument", "working_directory", "last_active_project" or null`,
    );
  }
  const request: AttachRequest = {
    attach: ATTACH_VERSION,
    version: m.version,
    project,
    pid: m.pid as number,
    selected_by: sb as SelectedBy,
  };
  if (m.toolsets !== undefined) {
    if (!Array.isArray(m.toolsets) || m.toolsets.length === 0 || m.toolsets.length > 8) {
      throw new HandshakeError(`"toolsets" must be a non-empty list of toolset names`);
    }
    const sets: ToolsetName[] = [];
    for (const t of m.toolsets) {
      if (!(TOOLSETS as readonly unknown[]).includes(t)) {
        throw new HandshakeError(
          `unknown toolset ${JSON.stringify(t)}: the toolsets are ${TOOLSETS.join(", ")}`,
        );
      }
      if (!sets.includes(t as ToolsetName)) sets.push(t as ToolsetName);
    }
    request.toolsets = sets;
  }
  return { kind: "attach", request };
}

/** An absolute, normalized path without `..` or NUL; the caller still checks it is canonical. */
function checkPath(v: unknown, field: string): string {
  if (typeof v !== "string" || v === "") {
    throw new HandshakeError(`"${field}" must be an absolute project path`);
  }
  if (v.includes("\0")) throw new HandshakeError(`"${field}" contains a NUL byte`);
  if (!isAbsolute(v)) throw new HandshakeError(`"${field}" must be an absolute path, got ${v}`);
  if (v.split(/[\\/]/).includes("..")) {
    throw new HandshakeError(`"${field}" must not contain "..": send the canonical path`);
  }
  if (normalize(v) !== v && normalize(v) !== v.replace(/\/+$/, "")) {
    throw new HandshakeError(`"${field}" must be a normalized path, got ${v}`);
  }
  return v.length > 1 ? v.replace(/\/+$/, "") : v;
}

/** What the app knows when it decides. */
interface AppView {
  version: string;
  /** The app's open project (canonical Gradle root), or null. */
  project: string | null;
  attached: number;
  /** `realPath` of the requested project (null when it does not resolve). */
  canonical: string | null;
}

/** Decide an attach request (spec `decide_attach`). Pure. */
export function decideAttach(req: AttachRequest, app: AppView): AttachReply {
  const refuse = (reason: string): AttachReply => ({
    accepted: false,
    reason,
    version: app.version,
  });
  if (app.attached >= MAX_ATTACHED_SESSIONS) {
    return refuse(
      `the Keynobi app already serves ${app.attached} sessions (MAX_ATTACHED_SESSIONS ` +
        `${MAX_ATTACHED_SESSIONS}); close one, or run this one standalone`,
    );
  }
  const toolsets = req.toolsets ?? [...TOOLSETS];
  if (req.project === null) {
    return { accepted: true, project: app.project, version: app.version, toolsets };
  }
  if (app.canonical === null) {
    return refuse(`the project ${req.project} does not exist or cannot be read`);
  }
  if (app.canonical !== req.project) {
    return refuse(
      `the project path ${req.project} is not canonical (it resolves to ${app.canonical}, ` +
        "through a symlink): send the canonical path",
    );
  }
  if (app.project === null) {
    return refuse(
      `the Keynobi app has no project open, and this session wants ${req.project}: ` +
        `ask the user to run keynobi open ${req.project}`,
    );
  }
  if (app.project !== req.project) {
    return refuse(
      `the Keynobi app has ${app.project} open, not ${req.project}; the app never switches its ` +
        "project for an agent",
    );
  }
  return { accepted: true, project: app.project, version: app.version, toolsets };
}

/**
 * Read one line of at most `maxBytes` from `reader` within `timeoutMs`. Returns the line and any
 * bytes that came after it; throws `HandshakeError` on overflow, timeout, end of input or bad
 * UTF-8. The timer never outlives the read.
 */
export async function readHandshakeLine(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  opts: { maxBytes?: number; timeoutMs?: number; what?: string } = {},
): Promise<{ line: string; rest: Uint8Array }> {
  const maxBytes = opts.maxBytes ?? MAX_HANDSHAKE_BYTES;
  const timeoutMs = opts.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const what = opts.what ?? "the attach handshake";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    while (true) {
      const next = await raceAbort(reader.read(), deadline.signal);
      if (next === ABORTED) {
        throw new HandshakeError(`${what} did not arrive within ${timeoutMs} ms`);
      }
      if (next.done) throw new HandshakeError(`the connection closed before ${what} ended`);
      const chunk = next.value;
      const nl = chunk.indexOf(10);
      const head = nl === -1 ? chunk : chunk.subarray(0, nl);
      if (size + head.length > maxBytes) {
        throw new HandshakeError(`${what} is longer than ${maxBytes} bytes`);
      }
      chunks.push(head);
      size += head.length;
      if (nl === -1) continue;
      const all = concatBytes(chunks, size);
      let line: string;
      try {
        line = new TextDecoder("utf-8", { fatal: true }).decode(all);
      } catch {
        throw new HandshakeError(`${what} is not UTF-8`);
      }
      return { line: line.replace(/\r$/, ""), rest: chunk.slice(nl + 1) };
    }
  } finally {
    clearTimeout(timer);
  }
}

/** `rest` then the remainder of `reader`, as one stream (what follows the handshake line). */
export function continueStream(
  rest: Uint8Array,
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let first = rest.length > 0 ? rest : null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (first) {
        controller.enqueue(first);
        first = null;
        return;
      }
      try {
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch {
        controller.close();
      }
    },
    cancel() {
      return reader.cancel().catch(() => {});
    },
  });
}
