/**
 * The mappings the retrace worker holds indexed, under ONE memory budget for all of them
 * (DESIGN.md's "retrace memory" row). Before a mapping is read, what it may cost
 * (`estimateMappingCost`: the file, its class tables, both caches full) is reserved: the least
 * recently used mappings are evicted until it fits, and a mapping that cannot fit even alone is
 * refused with the reason, without reading a byte. After indexing, the real cost replaces the
 * estimate. Loads run one at a time, so two loads never hold memory the budget does not see.
 * Worker-only: runs where the mapping bytes live (lib/retrace/retrace_service.ts).
 */
import { ToolError } from "../core/errors.ts";
import {
  frameBudget,
  indexMapping,
  type MappingIndex,
  memoBytes,
  rememberedFrames,
  tableBytes,
} from "./mapping_index.ts";
import { BYTES_PER_LINE } from "./member_lines.ts";
import { memoTableBytes } from "./frame_memo.ts";
import { MAX_MAPPING_BYTES } from "./shared/mapping_file.ts";
import type { CacheStats } from "./shared/retrace_protocol.ts";

/**
 * Bytes all cached mappings may cost together, by default: one mapping of the 512 MiB limit fits
 * even before it is read (its estimate assumes a class every 48 bytes: ~1,040 MB), two do not.
 */
const DEFAULT_RETRACE_MEMORY_BYTES = 1536 * 1024 * 1024;
/** The largest budget a caller may set. */
const MAX_RETRACE_MEMORY_BYTES = 4 * 1024 * 1024 * 1024;
/** The smallest budget a caller may set. */
const MIN_RETRACE_MEMORY_BYTES = 4 * 1024 * 1024;
/** Mappings cached at once, by default and at most. */
const DEFAULT_CACHED_MAPPINGS = 3;
const MAX_CACHED_MAPPINGS = 16;
/** Bytes per class the pre-load estimate assumes at least (a class line and a member or two). */
const MIN_BYTES_PER_CLASS = 48;
/** Bytes per recorded line (lib/retrace/member_lines.ts) it assumes at least (R8 writes ~70). */
const MIN_BYTES_PER_LINE = 24;

export interface MappingCacheOptions {
  /** Default `DEFAULT_RETRACE_MEMORY_BYTES`. */
  budgetBytes?: number;
  /** Default `DEFAULT_CACHED_MAPPINGS`. */
  maxMappings?: number;
}

/** What a mapping of `fileBytes` may cost before it is read (its class count unknown). Pure. */
export function estimateMappingCost(fileBytes: number): number {
  return fileBytes + tableBytes(Math.ceil(fileBytes / MIN_BYTES_PER_CLASS)) +
    Math.ceil(fileBytes / MIN_BYTES_PER_LINE) * BYTES_PER_LINE + memoBytes(frameBudget(fileBytes)) +
    memoTableBytes(rememberedFrames(fileBytes));
}

function checkedOption(name: string, v: number | undefined, def: number, lo: number, hi: number) {
  if (v === undefined) return def;
  if (!Number.isInteger(v) || v < lo || v > hi) {
    throw new RangeError(`${name} must be an integer in ${lo}..${hi}, got ${v}`);
  }
  return v;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

export class MappingCache {
  readonly budgetBytes: number;
  readonly maxMappings: number;
  /** Least recently used first. */
  readonly #held = new Map<string, MappingIndex>();
  #chain: Promise<unknown> = Promise.resolve();

  constructor(opts: MappingCacheOptions = {}) {
    this.budgetBytes = checkedOption(
      "budgetBytes",
      opts.budgetBytes,
      DEFAULT_RETRACE_MEMORY_BYTES,
      MIN_RETRACE_MEMORY_BYTES,
      MAX_RETRACE_MEMORY_BYTES,
    );
    this.maxMappings = checkedOption(
      "maxMappings",
      opts.maxMappings,
      DEFAULT_CACHED_MAPPINGS,
      1,
      MAX_CACHED_MAPPINGS,
    );
  }

  /** Bytes the held mappings may cost now. */
  get usedBytes(): number {
    let n = 0;
    for (const m of this.#held.values()) n += m.memoryBytes;
    return n;
  }

  stats(): CacheStats {
    return {
      budget_bytes: this.budgetBytes,
      max_mappings: this.maxMappings,
      mappings: [...this.#held].map(([key, m]) => ({
        key,
        file_bytes: m.fileBytes,
        classes: m.classCount,
        cost_bytes: m.memoryBytes,
      })),
      used_bytes: this.usedBytes,
    };
  }

  /** The mapping cached under `key` (now the most recently used), or `null`. */
  hit(key: string): MappingIndex | null {
    const m = this.#held.get(key);
    if (!m) return null;
    this.#held.delete(key);
    this.#held.set(key, m);
    return m;
  }

  /**
   * The mapping under `key`: cached, or read with `read` (given the bytes it may read at most)
   * after making room for `fileBytes`. Refuses (`invalid_request`, with the reason) a mapping
   * that cannot fit the budget even alone.
   */
  load(
    key: string,
    fileBytes: number,
    read: () => Promise<Uint8Array>,
    what: string,
  ): Promise<MappingIndex> {
    const run = this.#chain.then(() => this.#load(key, fileBytes, read, what));
    this.#chain = run.catch(() => {});
    return run;
  }

  async #load(
    key: string,
    fileBytes: number,
    read: () => Promise<Uint8Array>,
    what: string,
  ): Promise<MappingIndex> {
    const hit = this.hit(key);
    if (hit) return hit;
    if (fileBytes > MAX_MAPPING_BYTES) {
      throw new ToolError(
        "invalid_request",
        `Cannot retrace with ${what}: it is ${fileBytes} bytes, more than the ${MAX_MAPPING_BYTES} ` +
          `(${mb(MAX_MAPPING_BYTES)}) keynobi reads`,
        { file_bytes: fileBytes, max_bytes: MAX_MAPPING_BYTES },
      );
    }
    const need = estimateMappingCost(fileBytes);
    this.#refuseIfTooBig(need, fileBytes, what);
    this.#makeRoom(need, this.maxMappings - 1);
    const index = indexMapping(await read());
    this.#refuseIfTooBig(index.memoryBytes, fileBytes, what);
    this.#makeRoom(index.memoryBytes, this.maxMappings - 1);
    this.#held.set(key, index);
    return index;
  }

  #refuseIfTooBig(need: number, fileBytes: number, what: string): void {
    if (need <= this.budgetBytes) return;
    throw new ToolError(
      "invalid_request",
      `Cannot retrace with ${what}: a ${mb(fileBytes)} mapping needs about ${
        mb(need)
      } to retrace, more than keynobi's retrace memory budget of ${
        mb(this.budgetBytes)
      } for all cached mappings; retrace it with R8's own retrace tool`,
      { file_bytes: fileBytes, needed_bytes: need, budget_bytes: this.budgetBytes },
    );
  }

  /** Evicts the least recently used until `need` more bytes and one more mapping fit. */
  #makeRoom(need: number, keepAtMost: number): void {
    while (
      this.#held.size > 0 &&
      (this.usedBytes + need > this.budgetBytes || this.#held.size > keepAtMost)
    ) {
      this.#held.delete(this.#held.keys().next().value!);
    }
  }

  /** Drops every cached mapping. */
  clear(): void {
    this.#held.clear();
  }
}
