/** A stored entry as an answer carries it (LogEntryOut): its message cut, its flags as fields. */
import { CATEGORIES, jsonPayload, type ProcessTable } from "./enrich.ts";
import { levelLetter } from "./line_parser.ts";
import { EntryFlag, type RingStore } from "./ring_store.ts";
import type { LogEntryOut } from "./shared/logcat_protocol.ts";

/** Characters of one message an answer carries; the rest is cut with a marker. */
const MAX_MESSAGE_CHARS_RETURNED = 4_000;

/** The entry at `slot` of device `serial`'s ring. */
export function entryOut(
  s: RingStore,
  procs: ProcessTable,
  serial: string,
  slot: number,
): LogEntryOut {
  const proc = s.proc[slot];
  const f = s.flags[slot];
  const full = s.messageOf(slot);
  let message = full;
  if (message.length > MAX_MESSAGE_CHARS_RETURNED) {
    message = `${message.slice(0, MAX_MESSAGE_CHARS_RETURNED)}… [${
      message.length - MAX_MESSAGE_CHARS_RETURNED
    } more characters]`;
  }
  const e: LogEntryOut = {
    seq: s.seq[slot],
    device: serial,
    time: s.timeOf(slot),
    pid: s.pid[slot],
    tid: s.tid[slot] < 0 ? null : s.tid[slot],
    level: levelLetter(s.level[slot]),
    tag: s.tag[slot],
    message,
    package: proc >= 0 ? procs.packages[proc] : null,
    process: proc >= 0 ? procs.names[proc] : null,
    category: CATEGORIES[s.category[slot]] ?? "system",
  };
  if (f & EntryFlag.crash) e.crash = true;
  if (f & EntryFlag.continuation) e.continuation = true;
  if (f & EntryFlag.malformed) e.malformed = true;
  if (f & EntryFlag.json) e.json = jsonPayload(full);
  return e;
}
