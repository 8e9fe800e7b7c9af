import { assertEquals } from "../assert.ts";
import { appendAll } from "../../lib/core/arrays.ts";

Deno.test("appendAll() appends 300,000 items where push(...items) overflows the stack", () => {
  const items = Array.from({ length: 300_000 }, (_, k) => k);
  let spreadFailed = false;
  try {
    [].push(...(items as never[]));
  } catch (e) {
    spreadFailed = e instanceof RangeError;
  }
  assertEquals(spreadFailed, true, "the spread this helper replaces does fail at this size");
  const out = appendAll([-1], items);
  assertEquals(out.length, 300_001);
  assertEquals(out[0], -1);
  assertEquals(out.at(-1), 299_999);
});

Deno.test("no lib/ or workers/ file spreads an array into push()", async () => {
  const offenders: string[] = [];
  for (const dir of ["lib", "workers"]) {
    const root = new URL(`../../${dir}/`, import.meta.url);
    const walk = async (url: URL, rel: string): Promise<void> => {
      for await (const e of Deno.readDir(url)) {
        if (e.isDirectory) await walk(new URL(`${e.name}/`, url), `${rel}${e.name}/`);
        else if (e.name.endsWith(".ts") && e.name !== "arrays.ts") {
          const text = await Deno.readTextFile(new URL(e.name, url));
          text.split("\n").forEach((line, k) => {
            if (/\.push\(\s*\.\.\./.test(line)) offenders.push(`${rel}${e.name}:${k + 1}`);
          });
        }
      }
    };
    await walk(root, `${dir}/`);
  }
  assertEquals(
    offenders,
    [],
    "push(...items) overflows the stack past ~100k items: use appendAll() of lib/core/arrays.ts",
  );
});
