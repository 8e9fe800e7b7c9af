/**
 * What both threads know of an R8 / ProGuard mapping file (`mapping.txt`): the largest keynobi
 * keeps or reads, and its header (`# pg_map_id`, `# pg_map_hash`, `# compiler…`), which a build
 * reads on the main thread to list the mapping it keeps (lib/retrace/shared/mapping_store.ts) and
 * the retrace worker reads when it indexes one (lib/retrace/mapping_index.ts). The class blocks
 * are the worker's (lib/retrace/mapping.ts). Pure: takes the text, does no I/O.
 */

/** Bytes of a mapping we keep or index at most (the worker refuses a larger file unread). */
export const MAX_MAPPING_BYTES = 512 * 1024 * 1024;
/** Header lines (`#` at the top) read for the map id and hash. */
const MAX_HEADER_LINES = 64;

export interface MappingHeader {
  /** `# pg_map_id: 48ffd94`; `null` when absent. */
  mapId: string | null;
  /** `# pg_map_hash: SHA-256 <hex>`: the hex; `null` when absent. */
  mapHash: string | null;
  compiler: string | null;
  compilerVersion: string | null;
}

function readHeaderLine(line: string, h: MappingHeader): void {
  const m = /^#\s*([\w.]+)\s*:\s*(.*?)\s*$/.exec(line);
  if (!m) return;
  const [, key, value] = m;
  if (key === "pg_map_id") h.mapId = value || null;
  else if (key === "pg_map_hash") {
    const hex = /([0-9a-fA-F]{64})/.exec(value);
    h.mapHash = hex ? hex[1].toLowerCase() : null;
  } else if (key === "compiler") h.compiler = value || null;
  else if (key === "compiler_version") h.compilerVersion = value || null;
}

/** Just the header of a mapping (map id, hash), reading no further than the first class. Pure. */
export function readMappingHeader(text: string): MappingHeader {
  const h: MappingHeader = { mapId: null, mapHash: null, compiler: null, compilerVersion: null };
  let pos = 0;
  for (let k = 0; k < MAX_HEADER_LINES && pos < text.length; k++) {
    let nl = text.indexOf("\n", pos);
    if (nl < 0) nl = text.length;
    const line = text.slice(pos, nl);
    if (!line.startsWith("#")) {
      if (line.trim() !== "") break;
    } else readHeaderLine(line, h);
    pos = nl + 1;
  }
  return h;
}
