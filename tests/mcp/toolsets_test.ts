import { assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import { hiddenToolMessage, parseToolsets } from "../../lib/mcp/toolsets.ts";
import { closestName } from "../../lib/mcp/closest.ts";

Deno.test("parseToolsets() accepts names, folds duplicates, refuses empty and unknown", () => {
  assertEquals(parseToolsets("core,ui"), ["core", "ui"]);
  assertEquals(parseToolsets(" ui , ui ,device-admin"), ["ui", "device-admin"]);
  for (const bad of ["", " ", "core,", ",ui", "core,,ui", "Core", "builds"]) {
    assertThrows(() => parseToolsets(bad), (e) => {
      assertEquals(e instanceof TypeError, true);
      assertStringIncludes((e as Error).message, "core, ui, device-admin");
    });
  }
});

Deno.test("hiddenToolMessage() names the toolset and how to enable it", () => {
  const m = hiddenToolMessage("ui_tap", "ui", ["core"]);
  assertStringIncludes(m, `ui_tap is in the "ui" toolset`);
  assertStringIncludes(m, "--toolsets core,ui");
});

Deno.test("closestName() finds typos and camelCase spellings, not unrelated names", () => {
  const names = ["device_serial", "package", "tree_path", "expect_screen_hash"];
  assertEquals(closestName("device_serail", names), "device_serial");
  assertEquals(closestName("deviceSerial", names), "device_serial");
  assertEquals(closestName("treePath", names), "tree_path");
  assertEquals(closestName("expectScreenHash", names), "expect_screen_hash");
  assertEquals(closestName("zzzzzzzzzzzzzzzzz", names), null);
  assertEquals(closestName("x", []), null);
});
