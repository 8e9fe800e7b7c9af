/**
 * get_ui_hierarchy with `screenshot: true` (issue 28.2): the element list and a small picture of
 * the same moment in one call, both under the list's screen hash; on the emulator the picture is
 * a gRPC frame checked still by its small frames, on the USB device a screencap. Wrong
 * combinations are refused before anything runs.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { call, connect, ok, startWorld } from "./harness.ts";

const EMU = "emulator-5554";
const USB = "R5CT1234ABC";

function jpegSize(b64: string): { width: number; height: number } {
  const b = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  assertEquals([b[0], b[1]], [0xff, 0xd8], "a JPEG");
  for (let i = 2; i + 9 < b.length;) {
    if (b[i] !== 0xff) throw new Error("bad JPEG marker");
    const m = b[i + 1], len = (b[i + 2] << 8) | b[i + 3];
    if (m === 0xc0 || m === 0xc1 || m === 0xc2) {
      return { height: (b[i + 5] << 8) | b[i + 6], width: (b[i + 7] << 8) | b[i + 8] };
    }
    i += 2 + len;
  }
  throw new Error("no SOF in the JPEG");
}

Deno.test("look e2e: the element list and a picture of the same moment share one screen hash", async () => {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  for (const [serial, path, still] of [[EMU, "grpc", true], [USB, "adb", null]] as const) {
    const r = await call(s, "get_ui_hierarchy", { device_serial: serial, screenshot: true });
    const info = ok(r, `look on ${serial}`);
    const screen = info.screen as { screen_hash: string };
    const pic = info.screenshot as Record<string, unknown>;
    assertEquals(pic.screen_hash, screen.screen_hash, "one hash for both");
    assertEquals(pic.path, path);
    assertEquals(pic.still, still);
    assert((info.elements as unknown[]).length > 0, "the rows are there");
    const img = r.content.find((c) => c.type === "image") as unknown as {
      data: string;
      mimeType: string;
    };
    assertEquals(img.mimeType, "image/jpeg");
    const size = jpegSize(img.data);
    assertEquals(Math.max(size.width, size.height), 480, `${serial}: the default small look`);
    assertEquals([size.width, size.height], [pic.imageWidth, pic.imageHeight]);
    const text = r.content.find((c) => c.type === "text")?.text ?? "";
    assertStringIncludes(text, `screen ${screen.screen_hash}`);
    // The rows are handles of this list: acting on one works without another read.
    const signIn = (info.elements as { handle: string; label: string }[])
      .find((e) => e.label.startsWith("Sign in"))!;
    ok(
      await call(s, "ui_tap_element", {
        device_serial: serial,
        tree_path: signIn.handle,
        expect_screen_hash: screen.screen_hash,
      }),
      "tap by the look's handle and hash",
    );
  }
  const sized = await call(s, "get_ui_hierarchy", {
    device_serial: EMU,
    screenshot: true,
    max_dimension: 200,
  });
  const img = sized.content.find((c) => c.type === "image") as unknown as { data: string };
  const size = jpegSize(img.data);
  assertEquals(Math.max(size.width, size.height), 200);

  for (
    const bad of [
      { screenshot: true, format: "tree" },
      { max_dimension: 300 },
      { screenshot: true, max_dimension: 50 },
    ]
  ) {
    const r = await call(s, "get_ui_hierarchy", { device_serial: EMU, ...bad });
    assert(r.isError, JSON.stringify(bad));
    assertEquals((r.structuredContent!.error as { code: string }).code, "invalid_params");
  }
});
