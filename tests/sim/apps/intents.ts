/**
 * Intents as `am` and `cmd package` read them: the `am start`-style arguments, the
 * `Intent.toShortString` text they print, and which installed activity an intent resolves to.
 */
import type { ShIo } from "../sh_exec.ts";
import { type AppPackage, type IntentFilter, shortComponent } from "./packages.ts";

const enc = new TextEncoder();

/** The first line of a shell command's exception report (`ShellCommand.exec`). */
export const EXCEPTION_HEAD = (cmd: string) => `Exception occurred while executing '${cmd}':\n`;

export interface Intent {
  action: string | null;
  data: string | null;
  /** The MIME type `-t` gives. */
  type: string | null;
  categories: string[];
  pkg: string | null;
  component: { pkg: string; cls: string } | null;
  extras: boolean;
  flags: number;
}

const ACTION_MAIN = "android.intent.action.MAIN";
const ACTION_VIEW = "android.intent.action.VIEW";
const CATEGORY_LAUNCHER = "android.intent.category.LAUNCHER";

/**
 * Parses `am start`-style intent arguments as `Intent.parseCommandArgs` does: options up to the
 * first argument that is not one, then that argument, if any: a URI when it holds `:` (a plain
 * one is a VIEW of that data), a component when it holds `/`, else a package; the last two are a
 * MAIN/LAUNCHER intent. It fills in what the options left unset (`Intent.fillIn` with
 * FILL_IN_COMPONENT), and loses its categories when the options gave an action. Returns an exit
 * status on error.
 */
export function parseIntent(args: string[], io: ShIo, cmd: string): Intent | number {
  const it: Intent = {
    action: null,
    data: null,
    type: null,
    categories: [],
    pkg: null,
    component: null,
    extras: false,
    flags: 0,
  };
  let k = 0;
  for (; k < args.length; k++) {
    const a = args[k];
    if (!a.startsWith("-")) break;
    if (a === "--") {
      k++;
      break;
    }
    const next = () => args[++k] ?? "";
    switch (a) {
      case "-a":
        it.action = next();
        break;
      case "-d":
        it.data = next();
        break;
      case "-t":
        it.type = next();
        break;
      case "-c":
        it.categories.push(next());
        break;
      case "-p":
        it.pkg = next();
        break;
      case "-f":
        it.flags |= Number(next());
        break;
      case "-n": {
        const c = component(next());
        if (!c) {
          io.err(enc.encode(
            EXCEPTION_HEAD(cmd) +
              `java.lang.IllegalArgumentException: Bad component name: ${args[k]}\n`,
          ));
          return 255;
        }
        it.component = c;
        break;
      }
      case "-e":
      case "--es":
      case "--ei":
      case "--ez":
      case "--el":
      case "--ef":
      case "--eu":
        k += 2;
        it.extras = true;
        break;
      case "--esn":
        k++;
        it.extras = true;
        break;
      case "--user":
      case "-i":
        k++;
        break;
      case "--activity-clear-task":
      case "--activity-new-task":
      case "--activity-single-top":
      case "--include-stopped-packages":
      case "--exclude-stopped-packages":
      case "--grant-read-uri-permission":
      case "--grant-write-uri-permission":
        break;
      default:
        io.err(enc.encode(
          EXCEPTION_HEAD(cmd) + `java.lang.IllegalArgumentException: Unknown option: ${a}\n`,
        ));
        return 255;
    }
  }
  const arg = args[k];
  if (arg !== undefined) fillIn(it, baseIntent(arg));
  return it;
}

/** The intent the argument after the options names (`Intent.parseCommandArgs`). */
function baseIntent(arg: string): Intent {
  const base: Intent = {
    action: ACTION_MAIN,
    data: null,
    type: null,
    categories: [CATEGORY_LAUNCHER],
    pkg: null,
    component: null,
    extras: false,
    flags: 0,
  };
  if (arg.includes(":")) return { ...base, action: ACTION_VIEW, data: arg, categories: [] };
  if (arg.includes("/")) return { ...base, component: component(arg) };
  return { ...base, pkg: arg };
}

/** `Intent.fillIn(base, FILL_IN_COMPONENT)` after dropping the base's categories when `it` has an action. */
function fillIn(it: Intent, base: Intent): void {
  if (it.action === null) it.action = base.action;
  else base.categories = [];
  if (it.data === null && it.type === null) {
    it.data = base.data;
    it.type = base.type;
  }
  if (it.categories.length === 0) it.categories = base.categories;
  if (it.pkg === null) it.pkg = base.pkg;
  if (base.component) it.component = base.component;
}

function component(s: string): { pkg: string; cls: string } | null {
  const slash = s.indexOf("/");
  if (slash <= 0 || slash === s.length - 1) return null;
  const pkg = s.slice(0, slash);
  const c = s.slice(slash + 1);
  return { pkg, cls: c.startsWith(".") ? pkg + c : c };
}

/** `Intent.toShortString` as `am` prints it (data shown by `Uri.toSafeString`). */
export function intentText(it: Intent, flags: number): string {
  const parts: string[] = [];
  if (it.action) parts.push(`act=${it.action}`);
  if (it.categories.length) parts.push(`cat=[${it.categories.join(",")}]`);
  if (it.data !== null) parts.push(`dat=${safeUri(it.data)}`);
  if (it.type !== null) parts.push(`typ=${it.type}`);
  if (flags) parts.push(`flg=0x${flags.toString(16)}`);
  if (it.pkg) parts.push(`pkg=${it.pkg}`);
  if (it.component) parts.push(`cmp=${shortComponent(it.component.pkg, it.component.cls)}`);
  if (it.extras) parts.push("(has extras)");
  return `Intent { ${parts.join(" ")} }`;
}

function matches(f: IntentFilter, it: Intent): boolean {
  if (it.action && !f.actions.includes(it.action)) return false;
  if (!it.action && f.actions.length === 0) return false;
  const cats = it.categories.length
    ? it.categories
    : it.action === "android.intent.action.MAIN"
    ? []
    : ["android.intent.category.DEFAULT"];
  if (!cats.every((c) => f.categories.includes(c))) return false;
  if (it.data === null) return f.schemes.length === 0;
  if (f.schemes.length === 0) return false;
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#:]*))?/.exec(it.data);
  if (!m || !f.schemes.includes(m[1].toLowerCase())) return false;
  if (f.hosts.length && !f.hosts.includes((m[2] ?? "").toLowerCase())) return false;
  return true;
}

/** The activity an intent starts, or null when nothing resolves it. */
export function resolveIntent(
  packages: ReadonlyMap<string, AppPackage>,
  it: Intent,
): { pkg: string; cls: string } | null {
  if (it.component) {
    const p = packages.get(it.component.pkg);
    const a = p?.activities.find((x) => x.name === it.component!.cls);
    return a ? it.component : null;
  }
  const hits: { pkg: string; cls: string; specific: boolean }[] = [];
  for (const p of packages.values()) {
    if (it.pkg && p.name !== it.pkg) continue;
    for (const a of p.activities) {
      const f = a.filters.find((x) => matches(x, it));
      if (f) hits.push({ pkg: p.name, cls: a.name, specific: f.hosts.length > 0 || !p.system });
    }
  }
  // A verified app link (specific host, or a non-system app) wins over the browser.
  hits.sort((a, b) => Number(b.specific) - Number(a.specific));
  return hits[0] ?? null;
}

/** Every activity of `packages` whose filters match `it`, by package then class. */
export function queryIntent(
  packages: ReadonlyMap<string, AppPackage>,
  it: Intent,
): { pkg: string; cls: string }[] {
  if (it.component) {
    const hit = resolveIntent(packages, it);
    return hit ? [hit] : [];
  }
  const hits: { pkg: string; cls: string }[] = [];
  for (const p of [...packages.values()].sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (it.pkg && p.name !== it.pkg) continue;
    for (const a of p.activities) {
      if (a.filters.some((f) => matches(f, it))) hits.push({ pkg: p.name, cls: a.name });
    }
  }
  return hits;
}

/** `Uri.toSafeString`: http(s)/ftp/rtsp keep only the host; phone-like schemes are masked. */
export function safeUri(uri: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(uri);
  if (!m) return uri.replace(/#.*$/s, "");
  const scheme = m[1];
  const ssp = m[2].replace(/#.*$/s, "");
  const lower = scheme.toLowerCase();
  if (["tel", "sip", "sms", "smsto", "mailto", "nfc"].includes(lower)) {
    return `${scheme}:` + [...ssp].map((c) => "-@.".includes(c) ? c : "x").join("");
  }
  if (["http", "https", "ftp", "rtsp"].includes(lower)) {
    const h = /^\/\/([^/?#]*)/.exec(ssp);
    return `${scheme}://${h ? h[1].replace(/^[^@]*@/, "") : ""}/...`;
  }
  return `${scheme}:${ssp}`;
}
