/**
 * Gradle's command line as the fake understands it: task names (with task options such as
 * `--tests` after a test task), the options an IDE or agent passes, and Gradle's answer to an
 * option it does not know. Pure.
 */

/** Options without a value. */
const FLAGS = new Set([
  "--build-cache",
  "--no-build-cache",
  "--configuration-cache",
  "--no-configuration-cache",
  "--configure-on-demand",
  "--continue",
  "--daemon",
  "--no-daemon",
  "--debug",
  "-d",
  "--dry-run",
  "-m",
  "--full-stacktrace",
  "-S",
  "--help",
  "-h",
  "-?",
  "--info",
  "-i",
  "--offline",
  "--parallel",
  "--no-parallel",
  "--profile",
  "--quiet",
  "-q",
  "--refresh-dependencies",
  "--rerun-tasks",
  "--scan",
  "--no-scan",
  "--stacktrace",
  "-s",
  "--status",
  "--stop",
  "--version",
  "-v",
  "--warn",
  "-w",
  "--no-watch-fs",
  "--watch-fs",
]);

/** Options that take a value (`--opt value` or `--opt=value`). */
const VALUED = new Set([
  "--console",
  "--warning-mode",
  "--max-workers",
  "--project-dir",
  "-p",
  "--gradle-user-home",
  "-g",
  "--init-script",
  "-I",
  "--exclude-task",
  "-x",
  "--priority",
  "--project-cache-dir",
  "--include-build",
  "--settings-file",
  "-c",
  "--build-file",
  "-b",
]);

/** Task options a test task accepts after its name. */
const TASK_OPTIONS = new Set(["--tests", "--rerun", "--fail-fast"]);

/** At most this many arguments are read; more is a usage error. */
export const MAX_ARGS = 256;

export interface GradleArgs {
  tasks: string[];
  flags: Set<string>;
  values: Map<string, string[]>;
  /** `-Pname=value` and `-Dname=value`. */
  properties: Map<string, string>;
  excluded: string[];
  quiet: boolean;
  stacktrace: boolean;
  dryRun: boolean;
  version: boolean;
  help: boolean;
  noDaemon: boolean;
  projectDir: string | null;
}

export type ParsedArgs = { ok: true; args: GradleArgs } | { ok: false; message: string };

/** Gradle's answer to a bad command line (printed to stderr, exit 1). */
export function usageError(message: string): string {
  return `\n${message}\n\nUSAGE: gradlew [option...] [task...]\n\n` +
    `-?, -h, --help                     Shows this help message.\n` +
    `-v, --version                      Print version info and exit.\n` +
    `-q, --quiet                        Log errors only.\n` +
    `-s, --stacktrace                   Print out the stacktrace for all exceptions.\n` +
    `-x, --exclude-task                 Specify a task to be excluded from execution.\n` +
    `--console                          Specifies which type of console output to generate. ` +
    `Values are 'plain', 'auto' (default), 'rich' or 'verbose'.\n`;
}

export function parseGradleArgs(argv: string[]): ParsedArgs {
  if (argv.length > MAX_ARGS) return { ok: false, message: `Too many arguments: ${argv.length}` };
  const a: GradleArgs = {
    tasks: [],
    flags: new Set(),
    values: new Map(),
    properties: new Map(),
    excluded: [],
    quiet: false,
    stacktrace: false,
    dryRun: false,
    version: false,
    help: false,
    noDaemon: false,
    projectDir: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "") continue;
    const m = /^-([PD])(.+)$/.exec(arg);
    if (m || arg === "-P" || arg === "-D") {
      const body = m ? m[2] : argv[++i];
      if (body === undefined) {
        return { ok: false, message: `No argument was provided for command-line option '${arg}'.` };
      }
      const eq = body.indexOf("=");
      a.properties.set(eq < 0 ? body : body.slice(0, eq), eq < 0 ? "" : body.slice(eq + 1));
      continue;
    }
    if (!arg.startsWith("-")) {
      a.tasks.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (TASK_OPTIONS.has(name) && a.tasks.length) {
      if (name === "--tests" && eq < 0) i++;
      continue;
    }
    if (FLAGS.has(name)) {
      if (eq > 0) {
        return { ok: false, message: `Command-line option '${name}' does not take an argument.` };
      }
      a.flags.add(name);
      continue;
    }
    if (VALUED.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value.startsWith("-") && eq < 0) {
        return {
          ok: false,
          message: `No argument was provided for command-line option '${name}'.`,
        };
      }
      a.values.set(name, [...(a.values.get(name) ?? []), value]);
      if (name === "-x" || name === "--exclude-task") a.excluded.push(value);
      if (name === "-p" || name === "--project-dir") a.projectDir = value;
      if (name === "--console" && !["plain", "auto", "rich", "verbose"].includes(value)) {
        return {
          ok: false,
          message:
            `Invalid value for command-line option '--console': '${value}'. Values are 'plain', 'auto', 'rich' or 'verbose'.`,
        };
      }
      continue;
    }
    return { ok: false, message: `Unknown command-line option '${arg}'.` };
  }
  const has = (...n: string[]) => n.some((x) => a.flags.has(x));
  a.quiet = has("-q", "--quiet");
  a.stacktrace = has("-s", "--stacktrace", "-S", "--full-stacktrace");
  a.dryRun = has("-m", "--dry-run");
  a.version = has("-v", "--version");
  a.help = has("-h", "--help", "-?");
  a.noDaemon = has("--no-daemon");
  return { ok: true, args: a };
}
