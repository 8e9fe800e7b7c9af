/**
 * `grant_runtime_permission` and `revoke_runtime_permission` (pm grant / pm revoke): thin adapters
 * over lib/android/app_control.ts, package scope checked before any device command.
 */
import { changePermission } from "../../android/app_control.ts";
import { defineTool } from "../define_tool.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import { allowForeignParam, packageParam, permissionParam, serialParam } from "../params.ts";

function permissionTool(grant: boolean) {
  return defineTool({
    name: grant ? "grant_runtime_permission" : "revoke_runtime_permission",
    toolset: "device-admin",
    kind: grant ? "W" : "D",
    description: grant
      ? "Grant a runtime permission the project's app requests."
      : "Revoke a runtime permission from the project's app; Android kills its process.",
    params: {
      package: packageParam,
      permission: permissionParam,
      device_serial: serialParam,
      allow_foreign_package: allowForeignParam,
    },
    async run(args, ctx) {
      const pkg = args.package;
      const permission = args.permission;
      const serial = await deviceFor(ctx, args.device_serial);
      const r = await changePermission(ctx.adb, serial, pkg, permission, grant, callOpts(ctx));
      const killed = !grant && r.was_running && !r.running_after;
      return {
        structured: {
          device_serial: serial,
          package: pkg,
          permission,
          granted: grant,
          process_killed: killed,
        },
        text: `${grant ? "Granted" : "Revoked"} ${permission} ${grant ? "to" : "from"} ${pkg} ` +
          `on ${serial}${killed ? "; Android stopped the app's process" : ""}`,
      };
    },
  });
}

export const permissionTools = [permissionTool(true), permissionTool(false)];
