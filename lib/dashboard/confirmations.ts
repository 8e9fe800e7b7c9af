/**
 * Every change the dashboard makes is confirmed: the page first asks what an action would do
 * (`prepare`), shows that to the user, and only the user's confirmation sends the token back
 * (`take`). A token is single-use, bound to one action and its arguments, and expires.
 */
import { newSecret } from "./security.ts";

/** How long a prepared action waits for the user's confirmation. */
export const CONFIRM_TTL_MS = 120_000;
/** Prepared actions waiting at once; the oldest is dropped past this. */
export const MAX_PENDING_CONFIRMATIONS = 16;

interface Pending<A> {
  action: A;
  expires: number;
}

export class Confirmations<A> {
  #pending = new Map<string, Pending<A>>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A token for `action`. */
  issue(action: A): string {
    this.#expire();
    const token = newSecret(16);
    this.#pending.set(token, { action, expires: this.#now() + CONFIRM_TTL_MS });
    while (this.#pending.size > MAX_PENDING_CONFIRMATIONS) {
      this.#pending.delete(this.#pending.keys().next().value!);
    }
    return token;
  }

  /** The action `token` confirms (and forgets it), or null when unknown, used or expired. */
  take(token: unknown): A | null {
    this.#expire();
    if (typeof token !== "string") return null;
    const p = this.#pending.get(token);
    if (!p) return null;
    this.#pending.delete(token);
    return p.action;
  }

  get size(): number {
    return this.#pending.size;
  }

  #expire(): void {
    const now = this.#now();
    for (const [k, p] of this.#pending) if (p.expires <= now) this.#pending.delete(k);
  }
}
