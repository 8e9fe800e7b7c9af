/**
 * Run by `buildBundle` (lib/cli/bundle.ts) from the checkout's sources: prints every tool's
 * `tools/list` entry, by name, as one JSON object. The bundle keeps it beside itself, so a session
 * of the bundle lists its tools without converting each tool's zod schema to JSON Schema first
 * (~15–25 ms, the largest part of answering the first `tools/list`). Written from the same sources
 * as the bundle, replaced with it, and read only by the bundle's own code.
 */
import { toolListing } from "../mcp/server.ts";
import { TOOLS } from "../tools/registry.ts";

/** Every tool's listing entry, by name, in registry order. */
export function listingByName(): Record<string, unknown> {
  return Object.fromEntries(TOOLS.map((t) => [t.name, toolListing(t)]));
}

if (import.meta.main) console.log(JSON.stringify(listingByName()));
