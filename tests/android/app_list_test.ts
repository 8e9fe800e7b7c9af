/** The app listing's parsers on the output `pm` and `cmd package query-activities` print. */
import { assertEquals } from "../assert.ts";
import { parseLauncherActivities, parsePackageList } from "../../lib/android/app_list.ts";

Deno.test("pm list packages: names with and without version codes", () => {
  const text = "package:com.android.chrome versionCode:602002033\n" +
    "package:com.example.app\r\npackage:bad name\n\npackage:org.x_y.z versionCode:7\n";
  assertEquals(parsePackageList(text), [
    { package: "com.android.chrome", version_code: 602002033 },
    { package: "com.example.app", version_code: null },
    { package: "org.x_y.z", version_code: 7 },
  ]);
});

Deno.test("query-activities --components: short and full components, none, and a failure", () => {
  const text = "com.android.settings/.Settings\ncom.example.app/com.example.app.ui.Main\n" +
    "com.android.settings/.Other\n";
  assertEquals(
    [...parseLauncherActivities(text, 0)!],
    [
      ["com.android.settings", "com.android.settings.Settings"],
      ["com.example.app", "com.example.app.ui.Main"],
    ],
  );
  assertEquals(parseLauncherActivities("No activities found\n", 0)!.size, 0);
  // Before Android 7 there is no `cmd package`: launchability is unknown, never "none".
  assertEquals(parseLauncherActivities("cmd: Can't find service: package\n", 0), null);
  assertEquals(parseLauncherActivities("", 255), null);
});
