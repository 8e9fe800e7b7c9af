/**
 * Throughput of the build-output parser, for `scripts/bench.ts` (tests never assert times).
 * Uses only `performance.now()`; the caller supplies the lines (a real console, repeated).
 */
import { BuildOutputParser } from "../lib/build/build_parser.ts";

/** Passes over `lines` at most, so a caller's huge input cannot run unbounded. */
export const MAX_BENCH_ROUNDS = 1_000;

export interface BenchResult {
  lines: number;
  rounds: number;
  elapsed_ms: number;
  linesPerSecond: number;
  diagnostics: number;
}

/**
 * Push `lines` through a fresh parser `rounds` times (default 1, max `MAX_BENCH_ROUNDS`), then
 * finish; report lines per second over the whole run.
 */
export function benchParse(lines: readonly string[], rounds = 1): BenchResult {
  const n = Math.max(1, Math.min(MAX_BENCH_ROUNDS, Math.floor(rounds)));
  let diagnostics = 0;
  const start = performance.now();
  for (let r = 0; r < n; r++) {
    const parser = new BuildOutputParser();
    for (const line of lines) parser.push(line);
    diagnostics = parser.finish().diagnostics.length;
  }
  const elapsed = Math.max(performance.now() - start, 1e-3);
  const total = lines.length * n;
  return {
    lines: total,
    rounds: n,
    elapsed_ms: elapsed,
    linesPerSecond: Math.round(total / (elapsed / 1000)),
    diagnostics,
  };
}
