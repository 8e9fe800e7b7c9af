/**
 * The Gradle wrapper of a project: whether `gradlew` is there and executable, and the Gradle
 * version its `gradle/wrapper/gradle-wrapper.properties` `distributionUrl` names.
 */
import { join } from "../core/path.ts";
import { readProjectProperties } from "../core/properties.ts";

export interface WrapperInfo {
  ok: boolean;
  /** Absolute path of `gradlew` (`gradlew.bat` on Windows), or `null` when missing. */
  path: string | null;
  present: boolean;
  executable: boolean;
  distribution_url: string | null;
  gradle_version: string | null;
  hint: string | null;
}

/** `…/gradle-8.7-bin.zip` → `8.7`; `null` when the URL names no version. Pure. */
export function gradleVersionFromUrl(url: string): string | null {
  const m = /gradle-([0-9][^/]*?)-(?:bin|all)\.zip(?:$|[?#])/.exec(url);
  return m ? m[1] : null;
}

/** Inspect the wrapper of the build at `root`. Never runs it. */
export async function inspectWrapper(root: string): Promise<WrapperInfo> {
  const windows = Deno.build.os === "windows";
  const gradlew = join(root, windows ? "gradlew.bat" : "gradlew");
  let present = false;
  let executable = false;
  try {
    const info = await Deno.stat(gradlew);
    present = info.isFile;
    executable = present && (windows || info.mode === null || (info.mode & 0o111) !== 0);
  } catch { /* missing */ }
  const props = await readProjectProperties(root, "gradle/wrapper/gradle-wrapper.properties");
  const url = props?.get("distributionUrl") ?? null;
  const version = url ? gradleVersionFromUrl(url) : null;
  let hint: string | null = null;
  if (!present) {
    hint = `No ${windows ? "gradlew.bat" : "gradlew"} in ${root}: generate the wrapper with ` +
      "`gradle wrapper` (or open the project in Android Studio), since builds run the wrapper";
  } else if (url === null) {
    hint = "gradle/wrapper/gradle-wrapper.properties is missing or has no distributionUrl: " +
      "regenerate the wrapper with `gradle wrapper`";
  } else if (!executable) {
    hint = "gradlew is not executable: run `chmod +x gradlew` in the project";
  }
  return {
    ok: present && url !== null,
    path: present ? gradlew : null,
    present,
    executable,
    distribution_url: url,
    gradle_version: version,
    hint,
  };
}
