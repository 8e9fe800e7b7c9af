/** The real I/O adapter: a `Connector` over `Deno.connect`. */
import { type Connection, ConnectionRefused, type Connector } from "./connection.ts";
import { formatAddress } from "./server_address.ts";

/** Bytes asked of the socket per read. */
const TCP_READ_CHUNK_BYTES = 64 * 1024;

export const tcpConnector: Connector = async (address, signal) => {
  let conn: Deno.TcpConn;
  try {
    conn = await Deno.connect({
      hostname: address.host,
      port: address.port,
      transport: "tcp",
      signal,
    });
  } catch (e) {
    if (e instanceof Deno.errors.ConnectionRefused) {
      throw new ConnectionRefused(`Nothing listens at ${formatAddress(address)}`, { cause: e });
    }
    throw e;
  }
  return wrapConn(conn);
};

function wrapConn(conn: Deno.TcpConn): Connection {
  let closed = false;
  return {
    async read() {
      if (closed) return null;
      const buf = new Uint8Array(TCP_READ_CHUNK_BYTES);
      try {
        const n = await conn.read(buf);
        if (n === null) return null;
        // A short read is copied out, so a small chunk held in a queue does not pin 64 KiB.
        return n < TCP_READ_CHUNK_BYTES / 4 ? buf.slice(0, n) : buf.subarray(0, n);
      } catch (e) {
        // A read interrupted by our own close() is the end of the stream, not an error.
        if (closed) return null;
        throw e;
      }
    },
    async write(data) {
      let off = 0;
      while (off < data.length) off += await conn.write(data.subarray(off));
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        conn.close();
      } catch {
        // Already closed by the peer.
      }
    },
  };
}
