/**
 * The fake Android SDK folder and the sample projects, laid out in the simulator's root.
 */
import { join } from "node:path";

export const SDK_PLATFORM = "android-35";
export const SDK_BUILD_TOOLS = "35.0.0";
/** Platform-tools version the fake `adb version` reports. */
export const PLATFORM_TOOLS_VERSION = "35.0.2-12147458";

const ADB_SCRIPT = `#!/bin/sh
# keynobi simulator stand-in for platform-tools/adb: only "adb version" is answered. The
# simulator's ADB server speaks the real host protocol; reach it with ADB_SERVER_SOCKET.
case "$1" in
  version|--version)
    here=$(cd "$(dirname "$0")" && pwd)
    echo "Android Debug Bridge version 1.0.41"
    echo "Version ${PLATFORM_TOOLS_VERSION}"
    echo "Installed as $here/$(basename "$0")"
    echo "Running on $(uname -s) $(uname -r) ($(uname -m))"
    exit 0
    ;;
esac
echo "adb: $1 not supported by the keynobi simulator" >&2
exit 1
`;

const RETRACE_SCRIPT = `#!/bin/sh
# keynobi simulator stand-in for cmdline-tools/latest/bin/retrace. It does NOT deobfuscate: it
# checks that the mapping file exists and prints the stack trace (file or stdin) unchanged.
case "$1" in
  ""|-h|--help)
    echo "Usage: retrace [options] <proguard-map> [<stack-trace-file>]" >&2
    echo "(keynobi simulator stand-in: prints the stack trace unchanged)" >&2
    exit 1
    ;;
  --version)
    echo "retrace: keynobi simulator stand-in, no deobfuscation"
    exit 0
    ;;
esac
while [ $# -gt 0 ]; do
  case "$1" in
    --verbose|--info|--quiet) shift ;;
    --regex) shift 2 ;;
    *) break ;;
  esac
done
if [ ! -f "$1" ]; then
  echo "retrace: cannot read mapping file: $1" >&2
  exit 1
fi
if [ -n "$2" ]; then exec cat "$2"; fi
exec cat
`;

async function writeExecutable(path: string, text: string) {
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, 0o755);
}

/** Lays out `<root>/sdk` and returns its path. */
export async function createSdk(root: string): Promise<string> {
  const sdk = join(root, "sdk");
  const pt = join(sdk, "platform-tools");
  const platform = join(sdk, "platforms", SDK_PLATFORM);
  const bt = join(sdk, "build-tools", SDK_BUILD_TOOLS);
  const cl = join(sdk, "cmdline-tools", "latest", "bin");
  for (const d of [pt, platform, bt, cl]) await Deno.mkdir(d, { recursive: true });
  await writeExecutable(join(pt, "adb"), ADB_SCRIPT);
  await Deno.writeTextFile(
    join(pt, "source.properties"),
    `Pkg.UserSrc=false\nPkg.Revision=${PLATFORM_TOOLS_VERSION.split("-")[0]}\n`,
  );
  await Deno.writeTextFile(
    join(platform, "source.properties"),
    "Pkg.Desc=Android SDK Platform 35\nPkg.UserSrc=false\nPlatform.Version=15\n" +
      "Platform.CodeName=\nPkg.Revision=2\nAndroidVersion.ApiLevel=35\n",
  );
  await Deno.writeTextFile(
    join(bt, "source.properties"),
    `Pkg.UserSrc=false\nPkg.Revision=${SDK_BUILD_TOOLS}\n`,
  );
  await writeExecutable(join(cl, "retrace"), RETRACE_SCRIPT);
  await Deno.writeTextFile(
    join(sdk, "cmdline-tools", "latest", "source.properties"),
    "Pkg.Revision=16.0\nPkg.Path=cmdline-tools;16.0\n",
  );
  return sdk;
}

/** Names of the project templates under tests/sim/projects/. */
export const PROJECT_NAMES = ["sample-kts", "sample-groovy"] as const;

/** Copies every template into `<root>/projects/<name>`; returns name → absolute path. */
export async function copyProjects(root: string): Promise<Record<string, string>> {
  const templates = new URL("./projects/", import.meta.url);
  const out: Record<string, string> = {};
  for (const name of PROJECT_NAMES) {
    const dest = join(root, "projects", name);
    await copyTree(new URL(`${name}/`, templates).pathname, dest);
    out[name] = dest;
  }
  return out;
}

async function copyTree(src: string, dest: string) {
  await Deno.mkdir(dest, { recursive: true });
  for await (const e of Deno.readDir(src)) {
    const from = join(src, e.name);
    const to = join(dest, e.name);
    if (e.isDirectory) await copyTree(from, to);
    else if (e.isFile) {
      await Deno.copyFile(from, to);
      const mode = (await Deno.stat(from)).mode;
      if (mode !== null) await Deno.chmod(to, mode & 0o777);
    }
  }
}
