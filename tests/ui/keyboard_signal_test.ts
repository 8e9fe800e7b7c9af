import "../../lib/ui/xml_fallback.ts";
import { assertEquals } from "../assert.ts";
import { parseHierarchy } from "../../lib/ui/hierarchy.ts";
import { buildElementList } from "../../lib/ui/element_list.ts";
import { keyboardState } from "../../lib/ui/shared/keyboard_signal.ts";
import { dump, screen } from "./_xml.ts";

const IME = "com.google.android.inputmethod.latin";
const shown = "  mInputShown=true\n", hidden = "  mInputShown=false\n";
const statusBar = {
  pkg: "com.android.systemui",
  b: [0, 0, 1080, 80] as [number, number, number, number],
};
const keyboard = { pkg: IME, b: [0, 1500, 1080, 2400] as [number, number, number, number] };

function list(...windows: Parameters<typeof dump>) {
  return buildElementList(parseHierarchy(dump(...windows)));
}

Deno.test("keyboardState(): the dump decides whenever it can show the keyboard", () => {
  const up = list(screen([]), keyboard, statusBar);
  // mInputShown lags the window: the dump still wins, so the list and the tool agree.
  assertEquals(keyboardState(up, hidden), {
    shown: true,
    source: "dump",
    bounds: { left: 0, top: 1500, right: 1080, bottom: 2400 },
  });
  const down = list(screen([]), statusBar);
  assertEquals(keyboardState(down, shown), { shown: false, source: "dump", bounds: null });
});

Deno.test("keyboardState(): a one-window dump cannot show it, so dumpsys decides", () => {
  const one = list(screen([]));
  assertEquals(keyboardState(one, shown), { shown: true, source: "dumpsys", bounds: null });
  assertEquals(keyboardState(one, hidden), { shown: false, source: "dumpsys", bounds: null });
  assertEquals(keyboardState(one, "Current Input Method Manager state:\n"), null);
  assertEquals(keyboardState(one, null), null);
});
