/**
 * Handing the relayed session to a standalone server in this process once the app went: its
 * input gets the client's `initialize` again (under an id of the relay's), `initialized`, and the
 * session's `start_logcat` calls (ids of the relay's too); their answers are dropped on the way
 * out, so the client sees one session and one `initialize`.
 */
import { encodeMessage } from "../mcp/jsonrpc.ts";
import type { RelayedSession } from "./relay_memory.ts";

/** Starts the standalone server that takes the session over; resolves with its exit status. */
export type Fallback = (
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
) => Promise<number>;

export interface Handover {
  /** The standalone server's input: the client's lines go here now. */
  input: WritableStreamDefaultWriter<Uint8Array>;
  /** Its exit status. */
  done: Promise<number>;
  /** Resolves when the replayed lines are written. */
  replayed: Promise<void>;
}

const encoder = new TextEncoder();

/** Start `fallback` on the session (synchronously: `input` exists on return), and replay it. */
export function handOver(
  fallback: Fallback,
  session: RelayedSession,
  out: WritableStreamDefaultWriter<Uint8Array>,
): Handover {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const replayId = `keynobi-relay-replay-${crypto.randomUUID()}`;
  const logcatReplays = session.logcatStarts().map((args, i) => ({
    id: `${replayId}-logcat-${i}`,
    args,
  }));
  /** The replayed requests whose answers are the relay's, not the client's. */
  const markers = new Set(
    [replayId, ...logcatReplays.map((r) => r.id)].map((id) => JSON.stringify(id)),
  );
  const writer = input.writable.getWriter();
  const done = fallback(input.readable, droppingAnswers(markers, out));
  const lines: string[] = [];
  if (session.initialize) {
    lines.push(encodeMessage({ ...session.initialize.message, id: replayId }));
    lines.push(
      session.initialized ??
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    );
    for (const r of logcatReplays) {
      const call = { name: "start_logcat", arguments: r.args };
      lines.push(encodeMessage({ jsonrpc: "2.0", id: r.id, method: "tools/call", params: call }));
    }
  }
  const replayed = (async () => {
    for (const line of lines) await writer.write(encoder.encode(line + "\n"));
  })();
  return { input: writer, done, replayed };
}

/** `out`, less the answers whose id is one of `markers` (each dropped once). */
function droppingAnswers(
  markers: Set<string>,
  out: WritableStreamDefaultWriter<Uint8Array>,
): WritableStream<Uint8Array> {
  return new WritableStream<Uint8Array>({
    async write(chunk) {
      // The transport writes one whole message per chunk: drop the replayed requests' answers.
      if (markers.size > 0 && chunk.length < 1 << 20) {
        const text = new TextDecoder().decode(chunk);
        if (!text.includes('"method"')) {
          for (const marker of markers) {
            if (!text.includes(marker)) continue;
            markers.delete(marker);
            return;
          }
        }
      }
      await out.write(chunk).catch(() => {});
    },
  });
}
