/**
 * `getprop` output: one `[key]: [value]` per property, sorted by key. A value may contain
 * newlines (e.g. `persist.sys.boot.reason.history`), so a property ends at the `]` that closes a
 * line when the next line starts a new `[key]: [` or the text ends.
 */

/** Properties kept from one listing (a phone has about 1,000). */
const MAX_PROPERTIES = 10_000;

const START = /^\[([^\]\n]*)\]: \[/;

export function parseGetprop(text: string): Map<string, string> {
  const props = new Map<string, string>();
  const lines = text.replaceAll("\r\n", "\n").split("\n");
  let key: string | null = null;
  let value: string[] = [];
  const flush = () => {
    if (key === null) return;
    while (value.length > 1 && value[value.length - 1] === "") value.pop();
    const joined = value.join("\n");
    props.set(key, joined.endsWith("]") ? joined.slice(0, -1) : joined);
    key = null;
    value = [];
  };
  for (const line of lines) {
    const m = START.exec(line);
    if (m !== null) {
      flush();
      if (props.size >= MAX_PROPERTIES) break;
      key = m[1];
      value = [line.slice(m[0].length)];
    } else if (key !== null) {
      value.push(line);
    }
  }
  flush();
  return props;
}
