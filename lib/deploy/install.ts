/**
 * Installing APK bytes on a device: the streamed install of modern `adb install` (PROTOCOLS.md
 * 5.1): `exec:cmd package install -r -t -S <size>`, then exactly `<size>` bytes on the same
 * stream, then one reply that starts with `Success` or says `Failure [<STATUS>…]`.
 *
 * Devices without the `cmd` feature (Android 6 and older) need the legacy push + `pm install`
 * path over `sync:`, which keynobi does not implement: they get an actionable error.
 */
import { ToolError } from "../core/errors.ts";
import type { AdbClient, StdinSource } from "../adb/client.ts";
import { deviceGoneError, type ListingAdb } from "../adb/device_gone.ts";

/** Default and longest time one install may take (bytes + the package manager's work). */
const DEFAULT_INSTALL_TIMEOUT_MS = 5 * 60_000;
const MAX_INSTALL_TIMEOUT_MS = 10 * 60_000;
/** The install reply is short; more than this is cut. */
const MAX_INSTALL_REPLY_BYTES = 64 * 1024;
/** Longest reply quoted in a message. */
const MAX_INSTALL_REPLY_CHARS = 1_000;

/** `listDevices`, when given, tells a device that left during the install from a failure. */
export type InstallAdb = Pick<AdbClient, "features" | "exec"> & Partial<ListingAdb>;

type InstallReply =
  | { ok: true; text: string }
  | { ok: false; text: string; status: string | null };

/** Reads the package manager's reply. Pure. */
function parseInstallReply(raw: string): InstallReply {
  const text = raw.replace(/^\uFEFF/, "").trim().slice(0, MAX_INSTALL_REPLY_CHARS);
  if (text.startsWith("Success")) return { ok: true, text };
  const m = /Failure \[([A-Z_0-9]+)?[^\]]*\]/.exec(text);
  return { ok: false, text: text === "" ? "(no reply)" : text, status: m?.[1] ?? null };
}

/** What the model can do about a failure status. Pure. */
function installAdvice(status: string | null): string {
  switch (status) {
    case "INSTALL_FAILED_UPDATE_INCOMPATIBLE":
      return "the installed app is signed with another key: uninstall it from the device first";
    case "INSTALL_FAILED_VERSION_DOWNGRADE":
      return "the device has a newer versionCode: uninstall it first or raise versionCode";
    case "INSTALL_FAILED_INSUFFICIENT_STORAGE":
      return "free space on the device, then retry";
    case "INSTALL_FAILED_OLDER_SDK":
      return "the APK's minSdk is above the device's API level: use a newer device or emulator";
    case "INSTALL_FAILED_NO_MATCHING_ABIS":
      return "the APK has no native code for this device's ABI: build for it or use another device";
    case "INSTALL_FAILED_TEST_ONLY":
      return "the APK is test-only: install it with the -t flag from a terminal";
    case "INSTALL_PARSE_FAILED_NO_CERTIFICATES":
      return "the APK is unsigned: build a debug variant (assembleDebug) or sign it";
    default:
      return "read the failure, fix the build or the device, and retry";
  }
}

/**
 * Streams `apk` to `serial`'s package manager and waits for its verdict. `onProgress` gets the
 * bytes sent so far. A failure is a `ToolError` with code `install_failed` naming the status.
 */
export async function streamInstall(
  adb: InstallAdb,
  serial: string,
  apk: Uint8Array | StdinSource,
  opts: {
    signal?: AbortSignal;
    timeoutMs?: number;
    onProgress?: (sent: number, total: number) => void;
  } = {},
): Promise<{ reply: string }> {
  const features = await adb.features(serial, { signal: opts.signal });
  if (!features.has("cmd")) {
    throw new ToolError(
      "install_failed",
      `Cannot install on ${serial}: the device lacks the cmd feature (Android 6 or older), ` +
        "and keynobi installs only by streaming; run `adb install` from a terminal",
      { serial },
    );
  }
  const timeoutMs = Math.min(opts.timeoutMs ?? DEFAULT_INSTALL_TIMEOUT_MS, MAX_INSTALL_TIMEOUT_MS);
  const out = await adb.exec(
    serial,
    [
      "cmd",
      "package",
      "install",
      "-r",
      "-t",
      "-S",
      String(apk instanceof Uint8Array ? apk.length : apk.size),
    ],
    {
      stdin: apk,
      onStdinProgress: opts.onProgress,
      signal: opts.signal,
      timeoutMs,
      maxOutputBytes: MAX_INSTALL_REPLY_BYTES,
    },
  );
  const reply = parseInstallReply(new TextDecoder().decode(out));
  if (!reply.ok && out.length === 0 && adb.listDevices) {
    // No verdict at all: the package manager's answer, or the device, was lost.
    const gone = await deviceGoneError(
      { listDevices: adb.listDevices.bind(adb) },
      serial,
      "the install (it may or may not have been installed)",
    );
    if (gone) throw gone;
  }
  if (!reply.ok) {
    throw new ToolError(
      "install_failed",
      `Install on ${serial} failed: ${reply.text}; ${installAdvice(reply.status)}`,
      { serial, status: reply.status, reply: reply.text },
    );
  }
  return { reply: reply.text };
}
