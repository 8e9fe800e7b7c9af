import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { parseHierarchy } from "../../lib/ui/hierarchy.ts";
import {
  buildElementList,
  DEFAULT_MAX_ROWS,
  formatElementList,
  formatRow,
  joinLabel,
  MAX_LABEL_CHARS,
  MAX_ROWS,
} from "../../lib/ui/element_list.ts";
import { dump, type N, screen } from "./_xml.ts";

function rows(...roots: N[]): string[] {
  return buildElementList(parseHierarchy(dump(...roots))).rows.map(formatRow);
}

Deno.test("formatRow() writes the README's row format", () => {
  const r = rows(screen([{
    cls: "android.widget.Button",
    text: "Sign in",
    id: "com.example:id/sign_in",
    b: [100, 1548, 980, 1692],
    click: true,
    focused: true,
  }]));
  assertEquals(r, ['[e1] Button "Sign in" #sign_in @(540,1620) 880x144 click,focused']);
});

Deno.test("buildElementList() folds plain labels into their clickable parent", () => {
  const r = rows(screen([{
    cls: "android.widget.LinearLayout",
    b: [0, 300, 1080, 514],
    click: true,
    kids: [
      { cls: "android.widget.TextView", text: "Dark theme", b: [40, 320, 800, 400] },
      { cls: "android.widget.TextView", text: "Display", b: [40, 400, 800, 480] },
      {
        cls: "android.widget.Switch",
        id: "android:id/switch_widget",
        b: [850, 307, 1038, 507],
        click: true,
        checkable: true,
      },
    ],
  }]));
  assertEquals(r, [
    '[e1] LinearLayout "Dark theme | Display" @(540,407) 1080x214 click',
    "[e2] Switch #switch_widget @(944,407) 188x200 click,unchecked",
  ]);
});

Deno.test("buildElementList() tells an empty field's hint from a value, and marks passwords", () => {
  const r = rows(screen([
    {
      cls: "android.widget.EditText",
      hint: "Email",
      b: [0, 0, 1000, 100],
      click: true,
      focused: true,
    },
    {
      cls: "android.widget.EditText",
      text: "secret",
      hint: "Password",
      b: [0, 100, 1000, 200],
      click: true,
      password: true,
    },
    {
      cls: "android.widget.CheckBox",
      b: [0, 200, 100, 300],
      click: true,
      checkable: true,
      checked: true,
    },
    // Newer Androids put the hint in `text` of an empty field too.
    {
      cls: "android.widget.EditText",
      text: "Promo code",
      hint: "Promo code",
      b: [0, 300, 1000, 400],
    },
    { cls: "android.widget.EditText", text: "SAVE10", hint: "Promo code", b: [0, 400, 1000, 500] },
    {
      cls: "android.widget.EditText",
      hint: "PIN",
      desc: "PIN",
      b: [0, 500, 1000, 600],
      password: true,
    },
  ]));
  assertEquals(r, [
    '[e1] EditText "" hint "Email" @(500,50) 1000x100 click,edit,focused',
    '[e2] EditText "secret" @(500,150) 1000x100 click,edit,password',
    "[e3] CheckBox @(50,250) 100x100 click,checked",
    '[e4] EditText "" hint "Promo code" @(500,350) 1000x100 edit',
    '[e5] EditText "SAVE10" @(500,450) 1000x100 edit',
    '[e6] EditText "" hint "PIN" @(500,550) 1000x100 edit,password',
  ]);
});

Deno.test("buildElementList() leaves out the status bar, slivers and page-sized targets", () => {
  const r = rows(
    screen([
      { cls: "android.view.View", id: "com.example:id/scrim", b: [0, 0, 1080, 2400], click: true },
      { cls: "android.widget.Button", text: "Thin", b: [0, 500, 1080, 503], click: true },
      { cls: "android.widget.Button", text: "Zero", b: [0, 0, 0, 0], click: true },
      { cls: "android.widget.Button", text: "OK", b: [0, 600, 200, 700], click: true },
    ]),
    {
      pkg: "com.android.systemui",
      id: "com.android.systemui:id/status_bar",
      b: [0, 0, 1080, 80],
      kids: [
        {
          cls: "android.widget.TextView",
          pkg: "com.android.systemui",
          id: "com.android.systemui:id/clock",
          text: "12:34",
          b: [20, 10, 120, 70],
        },
        {
          cls: "android.widget.ImageView",
          pkg: "com.android.systemui",
          desc: "Battery 48 percent",
          b: [900, 10, 1000, 70],
        },
      ],
    },
  );
  assertEquals(r, ['[e1] Button "OK" @(100,650) 200x100 click']);
});

Deno.test("buildElementList() leaves out items outside their scroll container or under a bar drawn over it, whatever its name", () => {
  // The bar is a plain layout with an id no name list knows; its title and buttons fill it.
  for (
    const [cls, id] of [
      ["androidx.appcompat.widget.Toolbar", "com.example:id/toolbar"],
      ["android.widget.LinearLayout", "com.example:id/hdr_strip"],
    ]
  ) {
    const r = rows(screen([
      {
        cls: "androidx.recyclerview.widget.RecyclerView",
        id: "com.example:id/list",
        b: [0, 0, 1080, 1800],
        scroll: true,
        kids: [
          {
            cls: "android.widget.TextView",
            text: "Under toolbar",
            b: [0, 20, 1080, 180],
            click: true,
          },
          { cls: "android.widget.TextView", text: "Visible", b: [0, 300, 1080, 460], click: true },
          {
            cls: "android.widget.TextView",
            text: "Half under",
            b: [0, 120, 1080, 280],
            click: true,
          },
          {
            cls: "android.widget.TextView",
            text: "Below the list",
            b: [0, 1850, 1080, 2000],
            click: true,
          },
        ],
      },
      {
        cls,
        id,
        b: [0, 0, 1080, 200],
        kids: [
          {
            cls: "android.widget.ImageButton",
            desc: "Navigate up",
            b: [0, 20, 160, 180],
            click: true,
          },
          { cls: "android.widget.TextView", text: "Inbox", b: [160, 40, 900, 160] },
          {
            cls: "android.widget.ImageButton",
            desc: "Search",
            b: [900, 20, 1060, 180],
            click: true,
          },
        ],
      },
    ]));
    assertEquals(r, [
      "[e1] RecyclerView #list @(540,990) 1080x1620 scroll,vertical",
      '[e2] TextView "Visible" @(540,380) 1080x160 click',
      '[e3] TextView "Half under" @(540,240) 1080x80 click',
      '[e4] ImageButton "Navigate up" @(80,100) 160x160 click',
      '[e5] TextView "Inbox" @(530,100) 740x120',
      '[e6] ImageButton "Search" @(980,100) 160x160 click',
    ], id);
  }
});

Deno.test("buildElementList() drops a wrapper that repeats its child", () => {
  const r = rows(screen([
    {
      desc: "Brightness",
      b: [0, 0, 1080, 100],
      kids: [{ cls: "android.widget.SeekBar", text: "Brightness", b: [0, 0, 1080, 100] }],
    },
    {
      b: [0, 200, 500, 300],
      click: true,
      kids: [{ cls: "android.widget.Button", text: "Go", b: [0, 200, 500, 300], click: true }],
    },
  ]));
  assertEquals(r, [
    '[e1] SeekBar "Brightness" @(540,50) 1080x100',
    '[e2] Button "Go" @(250,250) 500x100 click',
  ]);
});

Deno.test("buildElementList() keeps the keyboard's action key; a row half under it is tapped above it", () => {
  const list = buildElementList(parseHierarchy(dump(
    screen([
      {
        cls: "android.widget.EditText",
        text: "dark",
        b: [0, 100, 1080, 250],
        click: true,
        focused: true,
      },
      {
        cls: "android.widget.LinearLayout",
        desc: "Bedtime mode",
        b: [0, 1442, 1080, 1656],
        click: true,
      },
      { cls: "android.widget.TextView", text: "Wallpaper", b: [0, 1800, 1080, 2000], click: true },
    ]),
    {
      pkg: "com.google.android.inputmethod.latin",
      b: [0, 1517, 1080, 2400],
      kids: [
        { pkg: "com.google.android.inputmethod.latin", desc: "q", b: [0, 1600, 100, 1750] },
        { pkg: "com.google.android.inputmethod.latin", desc: "Delete", b: [900, 1900, 1080, 2050] },
        { pkg: "com.google.android.inputmethod.latin", desc: "Search", b: [914, 2118, 1075, 2274] },
      ],
    },
  )));
  assertEquals(list.rows.map(formatRow), [
    '[e1] EditText "dark" @(540,175) 1080x150 click,edit,focused',
    '[e2] LinearLayout "Bedtime mode" @(540,1479) 1080x75 click',
    '[e3] TextView "Wallpaper" @(540,1900) 1080x200 click,under-keyboard',
    '[e4] Key "Search" @(994,2196) 161x156 click,ime-action',
  ]);
  assertEquals(list.package, "com.example");
  assertMatch(formatElementList(list).split("\n")[0], /keyboard: shown \(covers y>=1517\)/);
});

Deno.test("buildElementList() says loading while a progress bar is visible", () => {
  const spinning = buildElementList(parseHierarchy(dump(screen([
    { cls: "android.widget.ProgressBar", b: [500, 1000, 580, 1080] },
  ]))));
  assert(spinning.loading);
  assertStringIncludes(formatElementList(spinning), "  loading  ");
  const gauge = buildElementList(parseHierarchy(dump(screen([
    { cls: "android.widget.SeekBar", text: "50", b: [0, 1000, 1080, 1080] },
  ]))));
  assert(!gauge.loading);
});

Deno.test("buildElementList() shows max_rows rows and says how many more", () => {
  const kids: N[] = [];
  for (let i = 0; i < 700; i++) {
    const x = (i % 10) * 108, y = Math.floor(i / 10) * 30;
    kids.push({
      cls: "android.widget.Button",
      text: `B${i}`,
      b: [x, y, x + 100, y + 20],
      click: true,
    });
  }
  const list = buildElementList(parseHierarchy(dump(screen(kids))));
  assertEquals(list.rows.length, DEFAULT_MAX_ROWS);
  assertEquals(list.total, 700);
  const text = formatElementList(list);
  assertMatch(text, /elements: 700 \(showing 80\)/);
  assertMatch(text, /… 620 more elements/);
  const big = buildElementList(parseHierarchy(dump(screen(kids))), { maxRows: 10_000 });
  assertEquals(big.rows.length, MAX_ROWS);
});

Deno.test("joinLabel() drops parts another part contains and escapes nothing itself", () => {
  assertEquals(
    joinLabel(["Social Media", "Folder: Social Media, 4 items", ""]),
    "Folder: Social Media, 4 items",
  );
  assertEquals(joinLabel(["a\n b", "c"]), "a b | c");
  assertEquals(joinLabel(["x".repeat(300)]), "x".repeat(300));
  assertEquals(joinLabel(["x".repeat(500)]), "x".repeat(MAX_LABEL_CHARS - 1) + "…");
});

Deno.test("joinLabel() keeps a dialog's whole message up to MAX_LABEL_CHARS and cuts at a word", () => {
  const message = "This app was built for an older version of Android and may not work " +
    "properly. Try checking for updates, or contact the developer. Your data stays on the " +
    "device while the app is closed, and nothing is sent until you open it again.";
  assert(message.length > 100 && message.length < MAX_LABEL_CHARS);
  assertEquals(joinLabel([message]), message);
  const long = (message + " ").repeat(3).trim();
  const cut = joinLabel([long]);
  assert(cut.length <= MAX_LABEL_CHARS, `${cut.length}`);
  assert(cut.endsWith("…"));
  assert(long.startsWith(cut.slice(0, -1)) && long[cut.length - 1] === " ", "cut at a word");
});

Deno.test("formatRow() escapes quotes in labels", () => {
  const r = rows(
    screen([{
      cls: "android.widget.Button",
      text: 'Say "hi" \\ ok',
      b: [0, 0, 100, 100],
      click: true,
    }]),
  );
  assertEquals(r, ['[e1] Button "Say \\"hi\\" \\\\ ok" @(50,50) 100x100 click']);
});
