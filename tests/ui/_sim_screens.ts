/**
 * The simulator's sample app dumped in each of its states (home, scrolled, form with the
 * keyboard, search, detail, data, dialog, launcher), at three screen sizes, plain and compressed.
 */
import { type FieldKey, SampleApp, type Screen } from "../sim/ui/app.ts";
import { serializeDump } from "../sim/ui/xml.ts";

export const HOSTILE = `a;b $(id) \`x\` "q" 'p' *? <tag> & &amp; \n\t日本語 😀 \u00a0end `;

export function simScreens(): { what: string; xml: string }[] {
  const out: { what: string; xml: string }[] = [];
  const states: { what: string; set: (a: SampleApp) => void }[] = [
    { what: "home", set: () => {} },
    { what: "scrolled", set: (a) => (a.scroll = { t0: 0, dragMs: 0, s0: 0, s1: 900, s2: 900 }) },
    { what: "form", set: (a) => (a.stack = [{ kind: "home" }, { kind: "form" }]) },
    {
      what: "form typing",
      set: (a) => {
        a.stack = [{ kind: "home" }, { kind: "form" }];
        for (const k of ["email", "password"] as FieldKey[]) {
          a.fields[k] = { text: HOSTILE, cursor: HOSTILE.length };
        }
        a.focus = "email";
        a.keyboard = { shown: true, at: 0 };
      },
    },
    {
      what: "search",
      set: (a) => {
        a.stack = [{ kind: "home" }, { kind: "search" }];
        a.fields.query = { text: HOSTILE, cursor: 1 };
        a.searchResults = ["Item 1", HOSTILE];
      },
    },
    { what: "detail", set: (a) => (a.stack = [{ kind: "home" }, { kind: "detail", item: 7 }]) },
    { what: "data", set: (a) => (a.stack = [{ kind: "home" }, { kind: "data" } as Screen]) },
    { what: "dialog", set: (a) => (a.dialogAt = 0) },
    { what: "launcher", set: (a) => a.toLauncher() },
  ];
  const sizes = [
    { width: 1080, height: 2400, density: 420 },
    { width: 2400, height: 1080, density: 420 },
    { width: 480, height: 800, density: 160 },
  ];
  for (const s of states) {
    for (const [k, size] of sizes.entries()) {
      const app = new SampleApp(() => size);
      s.set(app);
      const t = 60_000;
      for (const compressed of [false, true]) {
        const xml = serializeDump(app.placed(t).map((w) => w.placed), {
          rotation: k,
          compressed,
          extendedAttrs: k !== 1,
        });
        out.push({ what: `${s.what} ${size.width}x${size.height} c=${compressed}`, xml });
      }
    }
  }
  return out;
}
