/**
 * How a UI tool result says which path ran (the emulator's gRPC endpoint or ADB) and, when ADB
 * ran on an emulator, why: `path` and `fallback` in the structured result, a short note in the
 * text. Pure.
 */
import type { Fallback } from "../../emulator/shared/fallback.ts";

interface PathInfo {
  path: "grpc" | "adb";
  fallback: Fallback | null;
}

export function pathFields(p: PathInfo | null): Record<string, unknown> {
  if (!p) return {};
  return { path: p.path, fallback: p.fallback ? { ...p.fallback } : null };
}

/** ` via gRPC`, ` via ADB`, ` via ADB (gRPC fallback: <reason>)`. */
export function pathNote(p: PathInfo | null): string {
  if (!p) return "";
  if (p.path === "grpc") return " via gRPC";
  return p.fallback ? ` via ADB (gRPC fallback: ${p.fallback.reason})` : " via ADB";
}
