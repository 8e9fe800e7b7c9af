/** The resource interface the server reads through; lib/tools/resources.ts provides the entries. */

export interface ResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
}

export interface ResourceContent {
  uri: string;
  mimeType: string;
  text: string;
}

export interface ResourceProvider {
  list(signal: AbortSignal): Promise<ResourceEntry[]>;
  /** Throws an `RpcError` (`resourceNotFound`, `invalidRequest`) for what it refuses. */
  read(uri: string, signal: AbortSignal): Promise<ResourceContent>;
}
