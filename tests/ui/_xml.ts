/** Builds small UI Automator dumps for tests, in the dumper's attribute order. */

export interface N {
  cls?: string;
  text?: string;
  id?: string;
  pkg?: string;
  desc?: string;
  hint?: string;
  b: [number, number, number, number];
  click?: boolean;
  long?: boolean;
  checkable?: boolean;
  checked?: boolean;
  enabled?: boolean;
  focused?: boolean;
  scroll?: boolean;
  password?: boolean;
  selected?: boolean;
  /** `drawing-order` (newer dumpers); left out when undefined. */
  order?: number;
  kids?: N[];
}

const esc = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll(
    '"',
    "&quot;",
  );

export function node(n: N, index = 0): string {
  const attrs = `index="${index}" text="${esc(n.text ?? "")}" resource-id="${esc(n.id ?? "")}" ` +
    `class="${n.cls ?? "android.widget.FrameLayout"}" package="${n.pkg ?? "com.example"}" ` +
    `content-desc="${esc(n.desc ?? "")}" checkable="${!!n.checkable}" checked="${!!n.checked}" ` +
    `clickable="${!!n.click}" enabled="${n.enabled ?? true}" focusable="${!!n.click}" ` +
    `focused="${!!n.focused}" scrollable="${!!n.scroll}" long-clickable="${!!n.long}" ` +
    `password="${!!n.password}" selected="${!!n.selected}" ` +
    `bounds="[${n.b[0]},${n.b[1]}][${n.b[2]},${n.b[3]}]"` +
    (n.order !== undefined ? ` drawing-order="${n.order}"` : "") +
    (n.hint !== undefined ? ` hint="${esc(n.hint)}"` : "");
  const kids = n.kids ?? [];
  if (kids.length === 0) return `<node ${attrs} />`;
  return `<node ${attrs}>${kids.map((k, i) => node(k, i)).join("")}</node>`;
}

export function dump(...roots: N[]): string {
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
    roots.map((r, i) => node(r, i)).join("") + `</hierarchy>`;
}

/** A phone-sized app window around `kids`. */
export function screen(kids: N[], pkg = "com.example"): N {
  return { pkg, b: [0, 0, 1080, 2400], kids };
}

/** Where the real dumps are, or null (tests skip with a note). */
export const REAL_DIR = new URL("../../../shared/fixtures/real/uiautomator/", import.meta.url);
export const HAVE_REAL = (() => {
  try {
    return Deno.statSync(REAL_DIR).isDirectory;
  } catch {
    return false;
  }
})();
if (!HAVE_REAL) {
  console.error(`note: ${REAL_DIR.pathname} is absent; tests on real UI Automator dumps skip`);
}

export function readReal(name: string): string {
  return Deno.readTextFileSync(new URL(name, REAL_DIR));
}
