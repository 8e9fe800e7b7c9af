/**
 * A whole console (a saved log) through one BuildOutputParser, line by line as the build service
 * feeds it: every line classified, and the summary.
 */
import {
  type BuildLine,
  BuildOutputParser,
  type BuildSummary,
} from "../../lib/build/build_parser.ts";

export function parseBuildOutput(text: string): { lines: BuildLine[]; summary: BuildSummary } {
  const parser = new BuildOutputParser();
  const parts = text.split(/\r\n|\r|\n/);
  if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  const lines = parts.map((l) => parser.push(l));
  return { lines, summary: parser.finish() };
}
