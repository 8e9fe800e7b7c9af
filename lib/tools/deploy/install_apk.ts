/**
 * `install_apk`: an adapter over lib/deploy (checked APK bytes, streamed install, the install
 * record that says which build it is).
 */
import { basename } from "../../core/path.ts";
import { z } from "zod";
import { openCheckedApk } from "../../deploy/apk_file.ts";
import { apkManifestOf, installAndRecord } from "../../deploy/deploy.ts";
import { defineTool } from "../define_tool.ts";
import { recordedLine } from "../../sessions/installed_builds.ts";
import { projectRoot } from "../context.ts";
import { appModuleDirs, deployDeps } from "./run_configurations.ts";
import { requiredSerialParam, requireScope } from "../params.ts";

const installApk = defineTool({
  name: "install_apk",
  toolset: "device-admin",
  kind: "D",
  description:
    "Install a built APK (from find_apk_path; only under <module>/build/outputs/) on a " +
    "device and record its build. Sends progress; cancellable.",
  params: {
    device_serial: requiredSerialParam,
    apk_path: z.string().max(4096).describe(
      "APK path (find_apk_path), project-relative or absolute",
    ),
    // Not `allowForeignParam`: that one makes defineTool check a `package` argument, and here
    // the package is the APK's own, known only once its manifest is read.
    allow_foreign_package: z.boolean().optional().describe(
      "The APK's package is outside this project; only when the user asked",
    ),
  },
  needsProject: true,
  async run(args, ctx) {
    const root = projectRoot(ctx);
    const serial = args.device_serial;
    const apk = await openCheckedApk(root, args.apk_path, await appModuleDirs(root));
    let out;
    try {
      const manifest = await apkManifestOf(apk);
      // The package scope applies to what is installed: a committed APK of another package
      // (com.android.settings) in an untrusted project is refused like any foreign package.
      await requireScope(ctx, manifest.package, args.allow_foreign_package);
      let lastPct = -1;
      out = await installAndRecord(deployDeps(ctx), serial, apk, root, {
        manifest,
        signal: ctx.signal,
        onProgress: (sent, total) => {
          const pct = Math.floor((sent / total) * 100);
          if (pct === lastPct) return;
          lastPct = pct;
          ctx.request.progress(sent, total, `Streaming ${apk.relative}: ${pct}%`);
        },
      });
    } finally {
      await apk.file.close();
    }
    const r = out.record;
    const structured = {
      device_serial: serial,
      package: r.package,
      version_code: r.version_code,
      version_name: r.version_name,
      apk_path: apk.relative,
      apk_canonical_path: apk.path,
      apk_sha256: r.apk_sha256,
      apk_bytes: r.apk_bytes,
      build_id: r.build_id,
      module: r.module,
      variant: r.variant,
      installed_by: r.installed_by,
      recorded: true,
    };
    return {
      structured,
      text: [
        `Installed ${r.package} (${basename(apk.path)}, ${
          Math.round(r.apk_bytes / 1024)
        } KiB) on ${serial}`,
        recordedLine(r),
      ].join("\n"),
    };
  },
});

export const installApkTools = [installApk];
