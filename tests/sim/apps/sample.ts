/**
 * The sample app every simulated device starts with (as if the developer had installed the
 * sample-kts project's demo debug build earlier): its APK bytes, written by the fake Gradle's
 * own writer, and the manifest facts the package manager reads from them. Pure.
 *
 * The identity mirrors tests/sim/projects/sample-kts/.sim-gradle.json (module `:app`, variant
 * `demoDebug`); tests/sim/sample_app_test.ts checks the two agree and that `readApk` of the bytes
 * gives `SAMPLE_APK_INFO`.
 */
import { SAMPLE_ACTIVITY, SAMPLE_PACKAGE } from "../ui/app.ts";
import { apkBytes } from "../gradle/artifacts.ts";
import type { ApkInfo } from "./apk.ts";

export { SAMPLE_ACTIVITY, SAMPLE_PACKAGE };

export const SAMPLE_VARIANT = "demoDebug";
export const SAMPLE_VERSION_CODE = 3;
export const SAMPLE_VERSION_NAME = "1.2.0-demo";
export const SAMPLE_MIN_SDK = 24;
/** What the fake Gradle's manifests declare (artifacts.ts `manifestAxml`). */
export const SAMPLE_TARGET_SDK = 35;
/** Build number stamped into the preinstalled APK: builds of a simulator run start at 1, so a
 * fresh build always has other bytes (and another SHA-256) than what is on the device. */
export const PREINSTALLED_BUILD = 0;

/** The preinstalled APK: a real ZIP with a binary AndroidManifest.xml. */
export function sampleApkBytes(): Uint8Array {
  return apkBytes({
    variant: {
      name: SAMPLE_VARIANT,
      cap: "DemoDebug",
      flavor: "demo",
      buildType: { name: "debug", application_id_suffix: ".debug" },
      applicationId: SAMPLE_PACKAGE,
      versionName: SAMPLE_VERSION_NAME,
    },
    versionCode: SAMPLE_VERSION_CODE,
    minSdk: SAMPLE_MIN_SDK,
    launcherActivity: SAMPLE_ACTIVITY,
    build: PREINSTALLED_BUILD,
  });
}

/** What `readApk(sampleApkBytes())` returns, known without parsing (the apps service boots
 * synchronously). */
export function sampleApkInfo(): ApkInfo {
  return {
    packageName: SAMPLE_PACKAGE,
    versionCode: SAMPLE_VERSION_CODE,
    versionName: SAMPLE_VERSION_NAME,
    minSdk: SAMPLE_MIN_SDK,
    targetSdk: SAMPLE_TARGET_SDK,
    activities: [{ name: SAMPLE_ACTIVITY, exported: false, filters: [] }],
    permissions: [],
  };
}
