/**
 * Build diagnostics as the build tools return them: the file relative to the project when inside
 * it, marked when outside, and one line of text per diagnostic. Pure.
 */
import { relative } from "../../core/path.ts";
import { isInside } from "../../core/project_paths.ts";
import type { Diagnostic } from "./diagnostic.ts";

/**
 * A diagnostic as the tools return it: its file relative to the project when inside it, and
 * `outside_project` when an absolute path lies outside (a dependency's or the SDK's file).
 */
export function presentDiagnostic(root: string, d: Diagnostic) {
  const inside = d.file !== null && isInside(root, d.file);
  const file = d.file && inside ? relative(root, d.file) : d.file;
  const absolute = d.file !== null && /^(?:\/|[A-Za-z]:[\\/]|\\\\)/.test(d.file);
  return { ...d, file, ...(absolute && !inside ? { outside_project: true } : {}) };
}

/** One line of a presented diagnostic: where, severity, message, task and marks. */
export function diagnosticLine(d: ReturnType<typeof presentDiagnostic>): string {
  const where = d.file
    ? `${d.file}${d.line !== null ? `:${d.line}` : ""}${d.column !== null ? `:${d.column}` : ""} `
    : "";
  const head = d.message.split("\n")[0];
  const marks = [
    // The text names what is missing even when the first line only names the configuration.
    d.dependency && !head.includes(d.dependency) ? `dependency ${d.dependency}` : null,
    d.generated ? "generated file" : null,
    "outside_project" in d ? "outside the project" : null,
    d.caused_at
      ? `caused at ${d.caused_at}${d.caused_at_file ? ` (${d.caused_at_file})` : ""}`
      : null,
  ].filter((m) => m !== null);
  return `${where}${d.severity}: ${head}${d.task ? ` (${d.task})` : ""}` +
    (marks.length > 0 ? ` [${marks.join("; ")}]` : "");
}
