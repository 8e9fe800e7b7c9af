/** The `ui` toolset in the order `tools/list` shows it (the spec's table, then ui_long_press, ui_pinch, ui_drag). */
import { uiReadTools as r } from "./hierarchy.ts";
import { uiActTools as a } from "./act.ts";
import { uiGestureTools as g } from "./gestures.ts";

export const uiTools = [
  r.getUiHierarchy,
  r.listClickableElements,
  r.findUiElements,
  r.findUiParent,
  r.compareUiState,
  r.waitForElement,
  r.uiWaitForIdle,
  r.uiAssertElement,
  a.uiTap,
  a.uiTapElement,
  a.uiLongPress,
  a.uiTypeText,
  a.uiFillInput,
  a.uiTypeTextUnicode,
  a.clearFocusedInput,
  a.hideSoftKeyboard,
  a.sendUiKey,
  a.uiSwipe,
  g.uiPinch,
  g.uiDrag,
  a.uiScrollUntilElement,
  r.screenshot,
];
