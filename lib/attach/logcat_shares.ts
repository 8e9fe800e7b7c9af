/**
 * One logcat stream and buffer per device, shared by every session attached to the app. A session
 * that calls `start_logcat` holds the device's stream; `stop_logcat` releases only this session's
 * hold, and the stream stops when no attached session holds it any more, so one agent stopping
 * never blinds another that is still reading (its answer says who keeps it). A session that
 * detaches keeps nothing running on its own account: its holds are released, and a stream no one
 * holds is stopped.
 */
import type { LogcatClient } from "../logcat/shared/logcat_client.ts";
import { appendAll } from "../core/arrays.ts";

interface SharedStopResult {
  stopped: string[];
  /** Devices whose stream keeps running because other attached sessions still hold it. */
  kept_for_others: { serial: string; sessions: number }[];
}

export class LogcatShares {
  readonly #client: LogcatClient;
  /** serial → ids of the sessions that hold its stream. */
  readonly #holders = new Map<string, Set<string>>();

  constructor(client: LogcatClient) {
    this.#client = client;
  }

  /** Sessions holding `serial`'s stream now. */
  holders(serial: string): number {
    return this.#holders.get(serial)?.size ?? 0;
  }

  /** The logcat client one session sees: start and stop count holds, the rest is shared. */
  view(sessionId: string): LogcatClient {
    const client = this.#client;
    const start: LogcatClient["start"] = async (p, signal) => {
      const r = await client.start(p, signal);
      let set = this.#holders.get(p.serial);
      if (!set) this.#holders.set(p.serial, set = new Set());
      set.add(sessionId);
      return r;
    };
    const stop = (serial?: string, signal?: AbortSignal) => this.#stop(sessionId, serial, signal);
    return new Proxy(client, {
      get(target, prop) {
        if (prop === "start") return start;
        if (prop === "stop") return stop;
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  }

  async #stop(
    sessionId: string,
    serial: string | undefined,
    signal?: AbortSignal,
  ): Promise<SharedStopResult> {
    const targets = serial !== undefined ? [serial] : [...this.#holders.keys()];
    const stopped: string[] = [];
    const kept: SharedStopResult["kept_for_others"] = [];
    for (const t of targets) {
      const set = this.#holders.get(t);
      set?.delete(sessionId);
      if (set && set.size > 0) {
        kept.push({ serial: t, sessions: set.size });
        continue;
      }
      this.#holders.delete(t);
      appendAll(stopped, (await this.#client.stop(t, signal)).stopped);
    }
    return { stopped, kept_for_others: kept };
  }

  /** A session left: release its holds and stop the streams nobody holds any more. */
  async release(sessionId: string): Promise<void> {
    for (const [serial, set] of [...this.#holders]) {
      if (!set.delete(sessionId) || set.size > 0) continue;
      this.#holders.delete(serial);
      await this.#client.stop(serial).catch(() => {});
    }
  }
}
