/**
 * `list_apps`: which apps a device has (launchable ones the user installed by default, system
 * apps on request), each with its version and whether it is in the project's package scope, and
 * which app is in front. Read-only; a thin adapter over lib/android/app_list.ts.
 */
import { z } from "zod";
import {
  DEFAULT_APP_LIMIT,
  type InstalledApp,
  MAX_APP_LIMIT,
  readAppListing,
} from "../../android/app_list.ts";
import { inPackageScope, projectPackageScope } from "../../build/shared/package_scope.ts";
import { defineTool } from "../define_tool.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import { serialParam } from "../params.ts";

type ListedApp = InstalledApp & { in_project_scope: boolean | null };

function appLine(a: ListedApp): string {
  const marks = [
    a.version_code === null ? null : `versionCode ${a.version_code}`,
    a.system ? "system" : null,
    a.launchable === false ? "not launchable" : null,
    a.in_project_scope ? "in the project's scope" : null,
  ].filter((m) => m !== null);
  return `- ${a.package}${marks.length ? ` (${marks.join(", ")})` : ""}`;
}

const listApps = defineTool({
  name: "list_apps",
  toolset: "core",
  kind: "R",
  description:
    "Installed apps (launchable user apps by default) with version and whether each is in the " +
    "project's scope, and the app in the foreground.",
  params: {
    device_serial: serialParam,
    system: z.boolean().optional().describe("Include system apps (default false)"),
    launchable_only: z.boolean().optional().describe(
      "Only apps with a launcher icon (default true)",
    ),
    limit: z.number().int().min(1).max(MAX_APP_LIMIT).optional().describe(
      `Most listed (default ${DEFAULT_APP_LIMIT})`,
    ),
  },
  async run(args, ctx) {
    const limit = args.limit ?? DEFAULT_APP_LIMIT;
    const launchableOnly = args.launchable_only ?? true;
    const serial = await deviceFor(ctx, args.device_serial);
    const listing = await readAppListing(
      ctx.adb,
      serial,
      { system: args.system ?? false },
      callOpts(ctx),
    );
    const scope = ctx.project
      ? await projectPackageScope(ctx.project.root, { dataDir: ctx.dataDir })
      : null;
    // Unknown launchability keeps the app: hiding it would say it has no launcher icon.
    const matching: ListedApp[] = listing.apps
      .filter((a) => !launchableOnly || a.launchable !== false)
      .map((a) => ({ ...a, in_project_scope: scope ? inPackageScope(scope, a.package) : null }));
    const apps = matching.slice(0, limit);
    const fg = listing.foreground;
    const what = [
      launchableOnly ? "launchable" : null,
      args.system ? "user and system" : "user-installed",
    ].filter((w) => w !== null).join(" ");
    const lines = [
      `${matching.length} ${what} apps on ${serial}` +
      (apps.length < matching.length
        ? `, the first ${apps.length} listed (raise limit for more)`
        : "") +
      ":",
      ...apps.map(appLine),
      fg.activity
        ? `In the foreground: ${fg.package ?? fg.activity} (${fg.activity})`
        : "In the foreground: unknown (no resumed activity; the screen may be off or locked)",
    ];
    if (launchableOnly && !listing.launchers_known) {
      lines.push("This device did not say which apps have a launcher icon, so all are listed");
    }
    return {
      structured: {
        device_serial: serial,
        count: apps.length,
        total: matching.length,
        truncated: apps.length < matching.length,
        launchers_known: listing.launchers_known,
        foreground: fg,
        apps,
      },
      text: lines.join("\n"),
    };
  },
});

export const appListTools = [listApps];
