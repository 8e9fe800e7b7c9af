/**
 * keynobi's retrace against ProGuard's own ReTrace (Debian `proguard-cli`, `.ci/run` installs it)
 * on mappings written here: frame by frame the same classes, methods, lines, files and nesting.
 * Two differences are keynobi's on purpose and normalised before comparing: an original line 0 is
 * printed without a line (ProGuard prints `:0`), and a class's `sourceFile` metadata names its file
 * (ProGuard 6 predates that metadata and always writes `<Outer>.java`), so files are compared only
 * for classes without it. Skips when `java` or ProGuard's `retrace.jar` is missing.
 */
import { assert, assertEquals } from "../assert.ts";
import { indexMapping } from "../../lib/retrace/mapping_index.ts";
import { retraceText } from "../../lib/retrace/retrace_text.ts";

const RETRACE_JAR = "/usr/share/java/retrace.jar";

function haveProguard(): boolean {
  try {
    Deno.statSync(RETRACE_JAR);
  } catch {
    return false;
  }
  try {
    return new Deno.Command("java", { args: ["-version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

const PROGUARD = haveProguard();
if (!PROGUARD) console.error(`proguard oracle: skipped (no java or ${RETRACE_JAR})`);

/** A mapping of `classes` classes, each with a plain method, an inline chain and a zero line. */
function writeMapping(classes: number): { text: string; kotlin: Set<string> } {
  const out = ["# compiler: R8", "# pg_map_id: 0a1b2c3"];
  const kotlin = new Set<string>();
  for (let c = 0; c < classes; c++) {
    const name = `com.example.pkg${c % 7}.Thing${c}`;
    out.push(`${name} -> o.${String.fromCharCode(97 + (c % 26))}${c}:`);
    if (c % 3 === 0) {
      out.push(`# {"id":"sourceFile","fileName":"Thing${c}.kt"}`);
      kotlin.add(name);
    }
    out.push(`    int count -> a`);
    out.push(`    1:10:void start(int):${100 + c}:${109 + c} -> a`);
    out.push(
      `    11:11:int com.example.util.Helper${c}.help(java.lang.String):${40 + c}:${40 + c} -> a`,
    );
    out.push(`    11:11:void start(int):${120 + c} -> a`);
    out.push(`    12:12:void ${name}$Inner.run():${7 + c}:${7 + c} -> a`);
    out.push(`    12:12:void start(int):${121 + c} -> a`);
    out.push(`    1:3:void stop():0:0 -> b`);
    out.push(`    4:6:java.lang.String label(boolean):${200 + c}:${202 + c} -> c`);
  }
  return { text: out.join("\n") + "\n", kotlin };
}

function writeTrace(classes: number): string {
  const frames = (c: number, ws: string) => {
    const obf = `o.${String.fromCharCode(97 + (c % 26))}${c}`;
    return [
      `${ws}at ${obf}.a(SourceFile:${1 + (c % 10)})`,
      `${ws}at ${obf}.a(SourceFile:11)`,
      `${ws}at ${obf}.a(SourceFile:12)`,
      `${ws}at ${obf}.b(SourceFile:2)`,
      `${ws}at ${obf}.c(SourceFile:${4 + (c % 3)})`,
      `${ws}at android.os.Handler.dispatchMessage(Handler.java:106)`,
    ];
  };
  const lines = ["java.lang.IllegalStateException: boom"];
  for (let c = 0; c < classes; c += 2) lines.push(...frames(c, "\t"));
  lines.push("\tSuppressed: o.b1: inner");
  lines.push(...frames(1, "\t\t"));
  lines.push("\t\t... 4 more");
  lines.push("Caused by: o.d3: cause");
  for (let c = 1; c < classes; c += 2) lines.push(...frames(c, "\t"));
  return lines.join("\n") + "\n";
}

interface AtLine {
  indent: string;
  member: string;
  file: string;
  line: number | null;
}

const AT = /^(\s*)at (\S+)\(([^():]*)(?::(\d+))?\)$/;

function atLines(text: string): AtLine[] {
  const out: AtLine[] = [];
  for (const raw of text.split("\n")) {
    const m = AT.exec(raw);
    if (!m) continue;
    const line = m[4] === undefined || m[4] === "0" ? null : Number(m[4]);
    out.push({ indent: m[1].replaceAll("\t", "    "), member: m[2], file: m[3], line });
  }
  return out;
}

Deno.test({
  name: "retraceText() agrees with ProGuard's ReTrace frame by frame on a written mapping",
  ignore: !PROGUARD,
  async fn() {
    const classes = 40;
    const { text: mapping, kotlin } = writeMapping(classes);
    const trace = writeTrace(classes);
    const dir = await Deno.makeTempDir({ prefix: "keynobi-pg-" });
    try {
      await Deno.writeTextFile(`${dir}/mapping.txt`, mapping);
      await Deno.writeTextFile(`${dir}/trace.txt`, trace);
      const pg = await new Deno.Command("java", {
        args: ["-jar", RETRACE_JAR, `${dir}/mapping.txt`, `${dir}/trace.txt`],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert(pg.success, new TextDecoder().decode(pg.stderr));
      const theirs = atLines(new TextDecoder().decode(pg.stdout));
      const ours = atLines(retraceText(trace, indexMapping(mapping)).text);
      assertEquals(ours.length, theirs.length, "as many frames");
      assert(ours.length > classes * 6, `${ours.length} frames compared`);
      for (let k = 0; k < ours.length; k++) {
        const o = ours[k];
        const t = theirs[k];
        const where = `frame ${k + 1}: ours ${JSON.stringify(o)}, ProGuard ${JSON.stringify(t)}`;
        assertEquals(o.member, t.member, where);
        assertEquals(o.line, t.line, where);
        assertEquals(o.indent, t.indent, where);
        const cls = o.member.slice(0, o.member.lastIndexOf("."));
        const outer = cls.includes("$") ? cls.slice(0, cls.indexOf("$")) : cls;
        if (!kotlin.has(outer)) assertEquals(o.file, t.file, where);
        else assertEquals(o.file, `${outer.slice(outer.lastIndexOf(".") + 1)}.kt`, where);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
