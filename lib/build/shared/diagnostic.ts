/**
 * What a build reports about one problem, as both threads see it: the build worker's parser makes
 * `Diagnostic`s, the history keeps them, and the gradle tools present them (diagnostic_view.ts).
 */

const DIAGNOSTIC_SOURCES = [
  "kotlin",
  "java",
  "kapt",
  "ksp",
  "aapt2",
  "r8",
  "d8",
  "lint",
  "manifest_merger",
  "configuration_cache",
  "dependency_resolution",
  "gradle",
] as const;
export type DiagnosticSource = typeof DIAGNOSTIC_SOURCES[number];

export const Severity = { error: "error", warning: "warning" } as const;
export type Severity = typeof Severity[keyof typeof Severity];

/** Characters kept of one diagnostic's message (multi-line messages included). */
export const MAX_MESSAGE_CHARS = 2_000;

/** One problem a build reported: where (when known), what, and which tool said so. */
export interface Diagnostic {
  severity: Severity;
  source: DiagnosticSource;
  /** Path as printed (file:// URIs decoded, Windows drives kept), or null when none was given. */
  file: string | null;
  /** 1-based. */
  line: number | null;
  /** 1-based. */
  column: number | null;
  message: string;
  /** The Gradle task the diagnostic came from (`:app:compileDebugKotlin`), when known. */
  task?: string;
  /** The Lint issue id (`InvalidSetHasFixedSize`). */
  rule?: string;
  /** The file is generated (`build/generated/…`, kapt stubs): the cause is in the source. */
  generated?: boolean;
  /**
   * A dependency-injection error's chain (Dagger/Hilt: `X is injected at` → site → …, `It is
   * also requested at:`), one line each, bounded by MAX_CHAIN_LINES (lib/build/injection_chain.ts).
   */
  chain?: string[];
  /** The project code the chain names as the first place the missing thing is used. */
  caused_at?: string;
  /** Its source file in the project (relative to the root), when the build service found it. */
  caused_at_file?: string;
  /** A dependency-resolution error's coordinates (`com.x:lib:1.2`), as the message names them. */
  dependency?: string;
}
