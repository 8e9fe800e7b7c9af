import { assertEquals } from "../assert.ts";
import { classCandidates, findClassSource } from "../../lib/project/source_lookup.ts";

Deno.test("classCandidates() takes the outermost class of a Dagger site", () => {
  assertEquals(classCandidates("com.x.ui.home.HomeViewModel(getMovies)"), [
    { pkg: ["com", "x", "ui", "home"], cls: "HomeViewModel" },
  ]);
  assertEquals(classCandidates("com.x.MainActivity.repository"), [
    { pkg: ["com", "x"], cls: "MainActivity" },
  ]);
  assertEquals(classCandidates("com.x.Outer.Inner.create(a, …)"), [
    { pkg: ["com", "x"], cls: "Outer" },
  ]);
  assertEquals(classCandidates("lowercase.only(x)"), []);
});

Deno.test("findClassSource() finds the class in any module and source set, not in build output", async () => {
  const root = await Deno.makeTempDir({ prefix: "keynobi-src-" });
  try {
    const put = async (rel: string) => {
      const p = `${root}/${rel}`;
      await Deno.mkdir(p.slice(0, p.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(p, "class X\n");
    };
    await put("app/build/generated/source/kapt/debug/com/x/ui/home/HomeViewModel.kt");
    await put("feature/home/src/debug/kotlin/com/x/ui/home/HomeViewModel.kt");
    await put("feature/home/src/main/java/com/x/ui/home/HomeViewModel.kt");
    await put("app/src/main/java/com/x/MainActivity.java");
    assertEquals(
      await findClassSource(root, "com.x.ui.home.HomeViewModel(getMovies)"),
      "feature/home/src/main/java/com/x/ui/home/HomeViewModel.kt",
    );
    assertEquals(
      await findClassSource(root, "com.x.MainActivity.repository"),
      "app/src/main/java/com/x/MainActivity.java",
    );
    assertEquals(await findClassSource(root, "com.x.Missing(a)"), null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
