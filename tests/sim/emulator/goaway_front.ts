/**
 * The simulated emulator's gRPC port as a client dials it: a TCP front that passes the HTTP/2
 * bytes through to the grpc-js server behind it, and that can end a connection the way an
 * emulator that exits does: shortly after a call's last frame (HEADERS with END_STREAM on a
 * client stream), a graceful GOAWAY (NO_ERROR, last stream id = that call's), then, a second
 * later, the socket closes. That is the wire shape that aborts Deno 2.9.6's HTTP/2 client (denoland/deno#36788,
 * ../shared/EMULATOR.md §4.8); the front writes it itself, so the server's own HTTP/2 stack has
 * no part in it.
 *
 * Only the server → client direction is read frame by frame (9-byte headers, RFC 9113 §4.1); the
 * client's bytes pass through untouched.
 */

/** HTTP/2 frame types and flags the front reads (RFC 9113 §6). */
const FRAME_HEADERS = 0x1;
const FRAME_GOAWAY = 0x7;
const FLAG_END_STREAM = 0x1;
/** Largest frame the front buffers (the server's SETTINGS allow at most 16 MiB frames). */
const MAX_FRAME_BYTES = 16 * 1024 * 1024 + 9;
/** Connections open at once, at most (tests open a few). */
const MAX_CONNECTIONS = 64;
/**
 * From a call's end to the GOAWAY: a stream that has closed but that the client's HTTP/2 session
 * has not yet freed is what trips nghttp2's assertion (measured against a client in a process of
 * its own: 0 of 10 deaths with the GOAWAY at once and the socket closed, 4 of 8 at 100 ms with
 * the socket kept open).
 */
export const GOAWAY_DELAY_MS = 100;
/** Between the GOAWAY and closing the socket (an exiting emulator's last moments). */
export const GOAWAY_CLOSE_DELAY_MS = 1_000;

export interface GoawayFront {
  readonly port: number;
  /** From now on every connection gets a GOAWAY after its next call, or none. */
  setGoaway(on: boolean): void;
  /** GOAWAY frames sent so far. */
  readonly goaways: number;
  close(): Promise<void>;
}

/** A GOAWAY frame: NO_ERROR, `lastStreamId`. */
export function goawayFrame(lastStreamId: number): Uint8Array {
  const f = new Uint8Array(9 + 8);
  const v = new DataView(f.buffer);
  v.setUint8(2, 8); // length 8 (24-bit)
  v.setUint8(3, FRAME_GOAWAY);
  v.setUint32(9, lastStreamId & 0x7fffffff);
  v.setUint32(13, 0); // NO_ERROR
  return f;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

export function startGoawayFront(backendPort: number): GoawayFront {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  let goaway = false;
  let sent = 0;
  const closeBoth = (a: Deno.Conn, b: Deno.Conn) => {
    for (const c of [a, b]) {
      if (!open.delete(c)) continue;
      try {
        c.close();
      } catch {
        // already closed
      }
    }
  };

  const serve = async (client: Deno.Conn) => {
    let backend: Deno.Conn;
    try {
      backend = await Deno.connect({ hostname: "127.0.0.1", port: backendPort });
    } catch {
      client.close();
      open.delete(client);
      return;
    }
    open.add(backend);
    // client → server: untouched.
    void (async () => {
      try {
        for await (const chunk of client.readable) await writeAll(backend, chunk);
      } catch {
        // either side went away
      }
      closeBoth(client, backend);
    })();
    // server → client: frame by frame.
    let buf = new Uint8Array(0);
    let ended = false;
    try {
      for await (const chunk of backend.readable) {
        const joined = new Uint8Array(buf.length + chunk.length);
        joined.set(buf);
        joined.set(chunk, buf.length);
        buf = joined;
        // Complete frames pass on in one write; only their headers are read.
        let off = 0;
        let endOfCall = -1;
        while (buf.length - off >= 9) {
          const len = (buf[off] << 16) | (buf[off + 1] << 8) | buf[off + 2];
          if (len + 9 > MAX_FRAME_BYTES) throw new RangeError(`frame of ${len} bytes`);
          if (buf.length - off < 9 + len) break;
          const type = buf[off + 3], flags = buf[off + 4];
          const stream = new DataView(buf.buffer, buf.byteOffset + off + 5, 4).getUint32(0) &
            0x7fffffff;
          off += 9 + len;
          if (
            goaway && !ended && type === FRAME_HEADERS && (flags & FLAG_END_STREAM) !== 0 &&
            stream % 2 === 1
          ) {
            ended = true;
            endOfCall = stream;
          }
        }
        if (off > 0) await writeAll(client, buf.subarray(0, off));
        buf = buf.slice(off);
        if (endOfCall >= 0) {
          const stream = endOfCall;
          void (async () => {
            await new Promise((r) => setTimeout(r, GOAWAY_DELAY_MS));
            await writeAll(client, goawayFrame(stream)).catch(() => {});
            sent++;
            await new Promise((r) => setTimeout(r, GOAWAY_CLOSE_DELAY_MS));
            closeBoth(client, backend);
          })();
        }
      }
    } catch {
      // either side went away
    }
    closeBoth(client, backend);
  };

  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        if (open.size >= MAX_CONNECTIONS * 2) {
          conn.close();
          continue;
        }
        open.add(conn);
        void serve(conn);
      }
    } catch {
      // listener closed
    }
  })();

  return {
    port: (listener.addr as Deno.NetAddr).port,
    setGoaway: (on) => {
      goaway = on;
    },
    get goaways() {
      return sent;
    },
    close: async () => {
      try {
        listener.close();
      } catch {
        // already closed
      }
      for (const c of [...open]) {
        open.delete(c);
        try {
          c.close();
        } catch {
          // already closed
        }
      }
      await accepting;
    },
  };
}
