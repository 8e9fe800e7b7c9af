/**
 * A build's process group: `gradlew` is spawned `detached`, so it leads a group holding
 * everything it starts (a daemon left behind included, unless it makes a session of its own).
 * The group is written into the build lock with the leader's start time, so a server that takes a
 * stale lock over can end the build its dead predecessor left running — only after checking it is
 * that build — and the server that ran a build ends what the build left behind when it exits.
 */
import { killGroup, signalGroup } from "../core/process_tree.ts";
import { processStartTime } from "../core/process_probe.ts";
import { isPid } from "../core/json.ts";

/** A build's process group, as the lock records it. */
export interface BuildGroup {
  /** The group id: `gradlew`'s pid. */
  pgid: number;
  /** The leader's start time (`processStartTime`), so a reused pid is not taken for it. */
  start: string;
}

/** How long the group gets after SIGTERM before SIGKILL when it is ended. */
const GROUP_KILL_GRACE_MS = 3_000;

/** The group in a lock's JSON value, or undefined. Pure. */
export function parseBuildGroup(v: unknown): BuildGroup | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const r = v as Record<string, unknown>;
  if (!isPid(r.pgid) || typeof r.start !== "string" || r.start.length > 128) return undefined;
  return { pgid: r.pgid, start: r.start };
}

/** The group of the child just spawned (its pid leads it); null when its start is unknown. */
export async function groupOf(pid: number): Promise<BuildGroup | null> {
  const start = await processStartTime(pid);
  return start === null ? null : { pgid: pid, start };
}

/**
 * Whether `group` still has processes that are that build's: the leader runs and started when
 * recorded, or the leader is gone and the group still has members (a group id is not handed out
 * again while a process is in the group). A leader of that pid that started at another time is a
 * reused pid: not ours.
 */
export async function groupIsAlive(group: BuildGroup): Promise<boolean> {
  const start = await processStartTime(group.pgid);
  if (start !== null) return start === group.start;
  return await signalGroup(group.pgid, 0);
}

/** Ends `group` (SIGTERM, then SIGKILL after the grace) when it is that build's. Whether it did. */
export async function endBuildGroup(
  group: BuildGroup,
  graceMs = GROUP_KILL_GRACE_MS,
): Promise<boolean> {
  if (!(await groupIsAlive(group))) return false;
  await killGroup(group.pgid, { graceMs });
  return true;
}
