/**
 * What is drawn over what decides the element list and where its rows are tapped: hand-written
 * dumps (in the dumper's format, tests/ui/_xml.ts) of each way one thing hides another, none of
 * them recognizable by a name.
 */
import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals } from "../assert.ts";
import { parseHierarchy } from "../../lib/ui/hierarchy.ts";
import { buildElementList, formatRow } from "../../lib/ui/element_list.ts";
import { dump, type N, screen } from "./_xml.ts";

function rows(...roots: N[]): string[] {
  return buildElementList(parseHierarchy(dump(...roots))).rows.map(formatRow);
}

/** A vertical list of `n` clickable rows of 200 px from `top`, inside a scroll container. */
function list(n: number, top = 0, id = "com.example:id/feed"): N {
  const kids: N[] = [];
  for (let i = 0; i < n; i++) {
    const t = top + i * 200;
    kids.push({
      cls: "android.widget.LinearLayout",
      b: [0, t, 1080, t + 200],
      click: true,
      kids: [{ cls: "android.widget.TextView", text: `Item ${i}`, b: [40, t + 40, 800, t + 160] }],
    });
  }
  return {
    cls: "androidx.recyclerview.widget.RecyclerView",
    id,
    b: [0, top, 1080, 2400],
    scroll: true,
    kids,
  };
}

Deno.test("a bottom bar drawn over list items hides them, whatever the bar's ids", () => {
  const bar: N = {
    cls: "android.widget.FrameLayout",
    id: "com.example:id/xq7",
    b: [0, 2200, 1080, 2400],
    kids: [{
      cls: "android.view.ViewGroup",
      b: [0, 2200, 1080, 2400],
      kids: [
        // The selected item is not clickable; the others are.
        {
          cls: "android.widget.FrameLayout",
          desc: "Home",
          b: [0, 2200, 360, 2400],
          selected: true,
          kids: [{ cls: "android.widget.TextView", text: "Home", b: [120, 2320, 240, 2380] }],
        },
        {
          cls: "android.widget.FrameLayout",
          desc: "Search",
          b: [360, 2200, 720, 2400],
          click: true,
        },
        {
          cls: "android.widget.FrameLayout",
          desc: "Profile",
          b: [720, 2200, 1080, 2400],
          click: true,
        },
      ],
    }],
  };
  const r = rows(screen([list(12), bar]));
  assertEquals(r.filter((x) => x.includes("Item 11")), [], "Item 11 is under the bar");
  // Item 10 (2000..2200) is above the bar; Item 11 (2200..2400) is under it.
  assert(r.includes('[e12] LinearLayout "Item 10" @(540,2100) 1080x200 click'), r.join("\n"));
  // The selected item (not clickable) keeps `selected`; its label row is where it shows.
  assert(r.includes('[e13] TextView "Home" @(180,2350) 120x60 selected'), r.join("\n"));
  assert(r.includes('[e14] FrameLayout "Search" @(540,2300) 360x200 click'), r.join("\n"));
});

Deno.test("a search screen drawn over the home screen hides the home screen's items", () => {
  const home: N = {
    cls: "android.widget.FrameLayout",
    id: "com.example:id/home_root",
    b: [0, 0, 1080, 2400],
    kids: [list(6, 300, "com.example:id/shortcuts")],
  };
  const search: N = {
    cls: "android.widget.LinearLayout",
    id: "com.example:id/overlay_7",
    b: [0, 0, 1080, 2400],
    kids: [
      {
        cls: "android.widget.EditText",
        hint: "Search apps",
        b: [40, 60, 1040, 200],
        click: true,
        focused: true,
      },
      {
        cls: "androidx.recyclerview.widget.RecyclerView",
        b: [0, 220, 1080, 2400],
        scroll: true,
        kids: [{
          cls: "android.widget.TextView",
          text: "Calendar",
          b: [0, 220, 1080, 400],
          click: true,
        }],
      },
    ],
  };
  const r = rows(screen([home, search]));
  assertEquals(r.filter((x) => x.includes("Item")), [], r.join("\n"));
  assertEquals(r, [
    '[e1] EditText "" hint "Search apps" @(540,130) 1000x140 click,edit,focused',
    "[e2] RecyclerView @(540,1310) 1080x2180 scroll",
    '[e3] TextView "Calendar" @(540,310) 1080x180 click',
  ]);
});

Deno.test("a dialog window or a full-screen window above hides the windows under it", () => {
  const activity = screen([list(10)]);
  const dialog: N = {
    pkg: "com.example",
    b: [90, 900, 990, 1500],
    kids: [
      { cls: "android.widget.TextView", text: "Delete 3 items?", b: [130, 940, 950, 1040] },
      { cls: "android.widget.Button", text: "Cancel", b: [500, 1380, 720, 1480], click: true },
      { cls: "android.widget.Button", text: "Delete", b: [740, 1380, 960, 1480], click: true },
    ],
  };
  // The dump lists the dialog first (uiautomator2 does not keep window order): it is still on top.
  // A touch outside a dialog goes to the dialog: nothing of the activity is tappable.
  assertEquals(rows(dialog, activity), [
    '[e1] TextView "Delete 3 items?" @(540,990) 820x100',
    '[e2] Button "Cancel" @(610,1430) 220x100 click',
    '[e3] Button "Delete" @(850,1430) 220x100 click',
  ]);
  // Two windows side by side (split screen) do not hide each other.
  const left = { ...screen([list(2)]), b: [0, 0, 540, 2400] } as N;
  const right: N = {
    pkg: "com.example.notes",
    b: [540, 0, 1080, 2400],
    kids: [{
      cls: "android.widget.Button",
      text: "New note",
      b: [600, 100, 1000, 300],
      click: true,
    }],
  };
  const split = rows(left, right);
  assert(split.includes('[e2] LinearLayout "Item 0" @(540,100) 1080x200 click') === false);
  assert(split.some((x) => x.includes('"Item 0"')), split.join("\n"));
  assert(split.some((x) => x.includes('"New note"')), split.join("\n"));

  const cover: N = {
    pkg: "com.example.other",
    b: [0, 0, 1080, 2400],
    kids: [{
      cls: "android.widget.Button",
      text: "Continue",
      b: [100, 2000, 980, 2200],
      click: true,
    }],
  };
  assertEquals(rows(activity, cover), [
    '[e1] Button "Continue" @(540,2100) 880x200 click',
  ]);
});

Deno.test("drawing-order, not the dump's order, says which sibling is on top", () => {
  const card = (order: number, text: string, b: [number, number, number, number]): N => ({
    cls: "android.widget.Button",
    text,
    b,
    click: true,
    order,
  });
  // Document order puts "Behind" last, but it is drawn first.
  const r = rows(screen([
    card(2, "Front", [0, 1000, 1080, 1400]),
    card(1, "Behind", [100, 1100, 980, 1300]),
  ]));
  assertEquals(r, ['[e1] Button "Front" @(540,1200) 1080x400 click']);
  // Without drawing-order the later one is drawn over the earlier one.
  const old = rows(screen([
    { cls: "android.widget.Button", text: "Front", b: [0, 1000, 1080, 1400], click: true },
    { cls: "android.widget.Button", text: "Over", b: [100, 1100, 980, 1300], click: true },
  ]));
  assertEquals(old, [
    '[e1] Button "Front" @(540,1050) 1080x100 click',
    '[e2] Button "Over" @(540,1200) 880x200 click',
  ]);
});

Deno.test("a row whose center is under a floating button is tapped where it shows", () => {
  const r = rows(screen([
    list(3, 1000),
    { cls: "android.widget.ImageButton", desc: "Compose", b: [440, 1060, 640, 1340], click: true },
  ]));
  // Item 1 (1200..1400) has its center under the button: it is tapped in its largest uncovered
  // part, the band below the button.
  assert(r.includes('[e3] LinearLayout "Item 1" @(540,1370) 1080x60 click'), r.join("\n"));
  assert(r.includes('[e5] ImageButton "Compose" @(540,1200) 200x280 click'), r.join("\n"));
});

Deno.test("page-sized scroll containers are kept, one row per region, with their direction", () => {
  const r = rows(screen([
    {
      cls: "androidx.viewpager.widget.ViewPager",
      b: [0, 0, 1080, 2400],
      scroll: true,
      kids: [{
        cls: "androidx.recyclerview.widget.RecyclerView",
        b: [0, 0, 1080, 2400],
        scroll: true,
        kids: [
          { cls: "android.widget.TextView", text: "A", b: [0, 0, 1080, 1200], click: true },
          { cls: "android.widget.TextView", text: "B", b: [0, 1200, 1080, 2400], click: true },
          { cls: "android.widget.TextView", text: "C", b: [0, 2400, 1080, 3600], click: true },
        ],
      }],
    },
  ]));
  assertEquals(r, [
    "[e1] RecyclerView @(540,1200) 1080x2400 scroll,vertical,horizontal",
    '[e2] TextView "A" @(540,600) 1080x1200 click',
    '[e3] TextView "B" @(540,1800) 1080x1200 click',
  ]);
  // Two lists at one spot (one page drawn over the other): one row.
  const two = rows(screen([
    { cls: "android.widget.ListView", b: [0, 200, 1080, 2400], scroll: true },
    { cls: "android.widget.ListView", b: [0, 200, 1080, 2400], scroll: true },
  ]));
  assertEquals(two, ["[e1] ListView @(540,1300) 1080x2200 scroll,vertical"]);
  const chips = rows(screen([{
    cls: "androidx.recyclerview.widget.RecyclerView",
    b: [0, 200, 1080, 320],
    scroll: true,
    kids: [0, 1, 2, 3].map((i): N => ({
      cls: "android.widget.Button",
      text: `Chip ${i}`,
      b: [i * 300, 200, i * 300 + 280, 320],
      click: true,
    })),
  }]));
  assertEquals(chips[0], "[e1] RecyclerView @(540,260) 1080x120 scroll,horizontal");
});

Deno.test("an input wrapper and its field are one row; a selected tab keeps selected", () => {
  const r = rows(screen([
    {
      cls: "android.widget.LinearLayout",
      desc: "Promo code",
      b: [40, 300, 1040, 440],
      kids: [
        { cls: "android.widget.EditText", b: [40, 300, 1040, 440], click: true },
        {
          cls: "android.widget.ImageButton",
          desc: "Clear text",
          b: [920, 330, 1020, 410],
          click: true,
        },
      ],
    },
    {
      cls: "android.widget.HorizontalScrollView",
      b: [0, 600, 1080, 700],
      scroll: true,
      kids: [{
        cls: "android.widget.LinearLayout",
        b: [0, 600, 1080, 700],
        kids: [
          {
            cls: "android.widget.LinearLayout",
            desc: "Chats",
            b: [0, 600, 540, 700],
            selected: true,
          },
          {
            cls: "android.widget.LinearLayout",
            desc: "Calls",
            b: [540, 600, 1080, 700],
            click: true,
          },
        ],
      }],
    },
  ]));
  assertEquals(r, [
    '[e1] EditText "" hint "Promo code" @(480,370) 880x80 click,edit',
    '[e2] ImageButton "Clear text" @(970,370) 100x80 click',
    "[e3] HorizontalScrollView @(540,650) 1080x100 scroll,horizontal",
    '[e4] LinearLayout "Chats" @(270,650) 540x100 selected',
    '[e5] LinearLayout "Calls" @(810,650) 540x100 click',
  ]);
});

Deno.test("obfuscated resource ids are left out of rows", () => {
  const r = rows(screen([{
    cls: "android.widget.Button",
    text: "Apply",
    id: "com.example:id/0_resource_name_obfuscated",
    b: [0, 0, 500, 200],
    click: true,
  }, {
    cls: "android.widget.ImageButton",
    id: "com.example:id/0_resource_name_obfuscated",
    b: [500, 0, 1000, 200],
    click: true,
  }]));
  assertEquals(r, [
    '[e1] Button "Apply" @(250,100) 500x200 click',
    "[e2] ImageButton @(750,100) 500x200 click",
  ]);
});
