/**
 * The spec's prompts. Each names the tools it uses; the server serves a prompt only when every one of
 * them is served, and a test checks that every named tool and parameter exists in the spec's plan.
 */
import type { PromptDef } from "../mcp/prompts.ts";

export const PROMPTS: readonly PromptDef[] = [
  {
    name: "diagnose-crash",
    title: "Diagnose a crash",
    description: "Find why an app crashed: crash logs, stack trace, exit reasons, memory",
    arguments: [
      { name: "package", description: "The app's package name", required: true },
      {
        name: "device_serial",
        description: "The device, when several are connected",
        required: false,
      },
    ],
    tools: [
      "get_crash_logs",
      "get_crash_stack_trace",
      "get_exit_reasons",
      "get_logcat_entries",
      "get_memory_info",
      "dump_app_info",
    ],
    render: (a) => {
      const dev = a.device_serial ? `, device_serial: ${a.device_serial}` : "";
      return [
        `Diagnose why ${a.package} crashed${a.device_serial ? ` on ${a.device_serial}` : ""}.`,
        `1. get_crash_logs (count: 20) to see the grouped crashes; pick the groups of ${a.package}.`,
        `2. get_crash_stack_trace (package: ${a.package}); when the frames look obfuscated ` +
        `(a.b.c(SourceFile:12), r8-map-id-…), call get_crash_stack_trace (package: ${a.package}, ` +
        "retrace: true).",
        `3. get_exit_reasons (package: ${a.package}${dev}) for crashes and ANRs that never reached logcat.`,
        `4. get_logcat_entries (package: ${a.package}, min_level: W${dev}) for what led up to it.`,
        `5. When memory or state matters: get_memory_info (package: ${a.package}${dev}) and ` +
        `dump_app_info (package: ${a.package}${dev}).`,
        "Then explain the cause with file and line, and propose a fix.",
      ].join("\n");
    },
  },
  {
    name: "full-deploy",
    title: "Build, install and launch",
    description: "Build a variant, install it on a device and launch it, with the launch time",
    arguments: [
      { name: "device_serial", description: "The device to deploy to", required: true },
      {
        name: "variant",
        description: "Build variant (default: the module's active variant)",
        required: false,
      },
      {
        name: "package",
        description: "The package to launch, when it cannot be read from the APK",
        required: false,
      },
    ],
    tools: [
      "list_run_configurations",
      "run_run_configuration",
      "list_build_variants",
      "run_gradle_task",
      "find_apk_path",
      "install_apk",
      "launch_app",
    ],
    render: (a) => {
      // No variant given: the active one, whatever the project calls it (a flavored project has
      // no plain "debug" variant).
      const variant = a.variant || null;
      const named = variant ?? "<the active variant>";
      return [
        variant
          ? `Deploy the ${variant} variant to ${a.device_serial}.`
          : `Deploy the app module's active variant to ${a.device_serial}; list_build_variants names it.`,
        `1. list_run_configurations; if one builds ${named}, run_run_configuration (name: <it>, device_serial: ${a.device_serial}) and stop there.`,
        `2. Otherwise run_gradle_task (task: assemble, variant: ${named}), then ${
          variant
            ? `find_apk_path (variant: ${variant})`
            : "find_apk_path without a variant (it uses the active one)"
        }.`,
        `3. install_apk (device_serial: ${a.device_serial}, apk_path: <from find_apk_path>).`,
        `4. launch_app (device_serial: ${a.device_serial}, package: ${
          a.package || "<the app's package>"
        }) and report the launch time.`,
      ].join("\n");
    },
  },
  {
    name: "build-and-fix",
    title: "Build and fix errors",
    description: "Run a Gradle task and fix the compiler errors it reports",
    arguments: [
      { name: "task", description: "Gradle task (default assembleDebug)", required: false },
    ],
    tools: ["run_gradle_task", "get_build_errors"],
    render: (a) =>
      [
        `1. run_gradle_task (task: ${a.task || "assembleDebug"}).`,
        "2. If it fails, get_build_errors, fix each error at its file and line, and run the task again.",
        "Repeat until the build succeeds.",
      ].join("\n"),
  },
];
