/**
 * The element list on every real dump in ../shared/fixtures/real/uiautomator/: the rows that
 * matter on each screen, what is left out, and the list at least 10x smaller than the XML.
 */
import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals } from "../assert.ts";
import { parseHierarchy } from "../../lib/ui/hierarchy.ts";
import { buildElementList, formatElementList, MAX_ROWS } from "../../lib/ui/element_list.ts";
import { HAVE_REAL, readReal, REAL_DIR } from "./_xml.ts";

const enc = new TextEncoder();

/** name → rows that must appear (exact lines) and text that must not appear anywhere. */
const EXPECT: Record<string, { rows: string[]; absent: string[]; pkg: string; total?: number }> = {
  "dialog_app_has_stopped_pretty.xml": {
    pkg: "android",
    total: 2,
    rows: [
      '[e1] TextView "Unfortunately, TestSubjectApp has stopped." #message @(399,572) 523x55',
      '[e2] Button "OK" #button1 @(399,656) 523x72 click',
    ],
    absent: ["ScrollView", "LinearLayout"],
  },
  "settings_usb_dialog_vi.xml": {
    pkg: "com.android.settings",
    total: 4,
    rows: [
      '[e1] TextView "Dùng USB để truyền tải file?" #alertTitle @(360,590) 524x49',
      // The dialog's whole message, not cut at 100 characters.
      '[e2] TextView "Sau khi kết nối, bạn có thể truyền tải các file trên máy tính mà bạn tin ' +
      'cậy và truy cập dữ liệu trên điện thoại." #message @(360,690) 620x119',
      '[e3] Button "HỦY" #button2 @(454,806) 128x96 click',
      '[e4] Button "OK" #button1 @(582,806) 128x96 click',
    ],
    absent: ["titleDividerNoCustom", "buttonPanel"],
  },
  "browser_chrome_offline_page_nexus7_pretty.xml": {
    pkg: "com.android.chrome",
    rows: [
      '[e4] ImageButton "Go back" #back_button @(28,117) 56x63 click,long',
      '[e5] ImageButton "Go forward" #forward_button @(84,117) 57x63 click,long,disabled',
      '[e7] EditText "www.google.com | Search or type url" #url_bar @(422,116) 416x37 click,long,edit',
    ],
    // The page-sized "Web View" click target and the tab's own title (folded into the tab).
    absent: ['"Web View"', 'TextView "http://www.google.com/ is not available"', "fader_view"],
  },
  "systemui_quick_settings_zh.xml": {
    pkg: "com.android.systemui",
    rows: [
      "[e1] ScrollView #expanded_qs_scroll_view @(160,238) 292x395 scroll,vertical",
      // The header's status icons are drawn over the slider's top: it is tapped below them.
      '[e2] SeekBar "屏幕亮度" #slider @(160,54) 292x27',
      '[e3] Switch "开启 | 互联网,zxgj_5G" @(85,122) 142x68 click,long,checked',
      '[e4] Switch "蓝牙。 | 已关闭" @(234,122) 142x68 click,long,unchecked',
      '[e6] Switch "飞行模式 | 已开启" @(234,197) 142x68 click,long,checked',
    ],
    // Status bar (clock, Wi-Fi, battery), the full-screen scrim, 3-px-tall slivers, the
    // brightness wrapper that repeats its SeekBar.
    absent: [
      "07:20",
      "48%",
      "WLAN",
      "电池",
      "scrim_behind",
      "pm_lite",
      "settings_button",
      "brightness_slider",
      // Under the later-drawn, clickable date/privacy strip: a tap there lands on the strip.
      "carrier_group",
    ],
  },
  "automotive_vehicle_settings_ko.xml": {
    pkg: "ai.umos.vehiclecontrol",
    rows: [
      "[e1] View @(816,522) 353x886 scroll,vertical",
      "[e12] ScrollView @(1446,522) 904x886 scroll,vertical",
      "[e14] View @(1059,234) 60x43 click,unchecked",
      '[e15] TextView "조용한 모드" @(1164,229) 95x25',
    ],
    absent: [],
  },
  "landscape_rotation1_bluestacks.xml": {
    pkg: "net.spotlightlabs.spotlight",
    rows: [
      '[e1] ImageView "Go Back" #ivBack @(42,48) 60x60 click',
      // The click layer drawn over the options icon takes its taps, and its name.
      "[e3] FrameLayout #ivOptions @(1038,48) 60x60 click",
      '[e9] Button "Following" #followBtn @(432,355) 816x72 click',
      // The selected tab is not clickable (it is selected): it keeps `selected`.
      '[e11] TextView "All Articles" @(204,450) 88x25 selected',
      "[e14] RecyclerView #rvPublisherFeed @(540,1173) 1080x1325 scroll,vertical",
      // The bottom bar is drawn over the third card: its title and buttons are hidden, and
      // the card is tapped above the bar.
      '[e23] FrameLayout "1 min read" #cvPublisherArticleCard @(540,1662) 1080x347 click',
      '[e28] FrameLayout "Profile" #navigation_profile @(972,1878) 216x84 click',
    ],
    // The unnamed FrameLayout on the very box of #ivOptions, and the pager around its list.
    absent: ["FrameLayout @(1038,48)", "ViewPager", "Jonathan Evans", "@(108,1907)"],
  },
  "launcher_pixel_home_with_widgets.xml": {
    pkg: "com.google.android.apps.nexuslauncher",
    rows: [
      // The page-sized workspace is kept: the home screen scrolls.
      "[e1] ScrollView #workspace @(672,1284) 1344x2569 scroll,vertical",
      '[e11] RelativeLayout "Analog Clock 1 | 21:09" #analog1 @(1180,780) 204x336 click',
      '[e21] TextView "Settings" @(1180,1902) 204x336 click,long',
      '[e35] ImageView "Voice Search" #widget_voice_search @(861,2818) 75x75 click',
    ],
    // The page-sized accessibility "Home" view; folder names folded into their folders.
    absent: ['"Home"', 'TextView "Social Media"', "scrim_view"],
  },
  "gboard_settings_obfuscated_resource_ids.xml": {
    pkg: "com.google.android.inputmethod.latin",
    rows: [
      "[e1] ScrollView @(540,1200) 1080x2400 scroll,vertical",
      '[e3] ImageButton "Navigate up" @(73,219) 147x147 click',
      '[e13] CardView "Material Light Theme" @(187,1809) 330x247 click',
    ],
    // A settings screen of the keyboard app is not a keyboard; obfuscated ids mean nothing.
    absent: ["keyboard:", "ime-action", "obfuscated"],
  },
};

Deno.test({
  name: "buildElementList() lists what matters on every real dump, 10x smaller than the XML",
  ignore: !HAVE_REAL,
  fn() {
    const files = [...Deno.readDirSync(REAL_DIR)].filter((e) => e.name.endsWith(".xml"))
      .map((e) => e.name).sort();
    assertEquals(files, Object.keys(EXPECT).sort(), "every real dump has expectations");
    const ratios: string[] = [];
    for (const name of files) {
      const xml = readReal(name);
      const tree = parseHierarchy(xml);
      const list = buildElementList(tree, { maxRows: MAX_ROWS });
      const text = formatElementList(list);
      const lines = text.split("\n");
      const want = EXPECT[name];
      assertEquals(list.package, want.pkg, name);
      if (want.total !== undefined) assertEquals(list.total, want.total, name);
      for (const row of want.rows) assert(lines.includes(row), `${name}: missing ${row}\n${text}`);
      for (const a of want.absent) {
        assert(!text.includes(a), `${name}: should leave out ${a}\n${text}`);
      }
      const ratio = enc.encode(xml).length / enc.encode(text).length;
      ratios.push(`${name} ${ratio.toFixed(1)}x`);
      assert(ratio >= 10, `${name}: list only ${ratio.toFixed(1)}x smaller than the XML`);
    }
    console.error(`element list ratios: ${ratios.join(", ")}`);
  },
});
