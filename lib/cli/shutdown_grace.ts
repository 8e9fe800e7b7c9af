/** The bound on each step of a standalone server's shutdown. */
import { boundedWait } from "../core/abortable.ts";

/**
 * How long a signal's shutdown waits for each step (stopping the build, answering what is in
 * flight, the workers, the bookkeeping) before going on; the process then exits whatever is left.
 */
const SHUTDOWN_GRACE_MS = 5_000;

/** Resolve with `p`, or after `ms` with undefined; the timer never outlives the wait. */
export function withinGrace<T>(p: Promise<T>, ms = SHUTDOWN_GRACE_MS): Promise<T | undefined> {
  return boundedWait(p, ms);
}
