/**
 * Dagger and Hilt errors: after javac's caret they print the chain that says where a missing
 * binding is used (`X is injected at` → the site → …, `It is also requested at:`). `extendChain`
 * takes one line of it onto the diagnostic; the first site after `is injected at` outside
 * generated code becomes its `caused_at`. Pure but for the diagnostic it fills in.
 */
import { clip } from "../core/text.ts";
import { matchJavac, matchKotlin } from "./build_parser_patterns.ts";
import type { Diagnostic } from "./shared/diagnostic.ts";

/** Lines of a Dagger/Hilt error's chain kept (`X is injected at` / its site / `also requested`). */
const MAX_CHAIN_LINES = 40;
/** Characters kept of one chain line. */
const MAX_CHAIN_LINE_CHARS = 500;

/** Dagger and Hilt errors, whose lines after the caret say what to fix. */
const DI_MESSAGE_RE = /^\[(?:Dagger|Hilt)[/\]]|^\[dagger\.|^\[ComponentProcessor/;
/** A chain line: indented (the site lines deeper), or its section headers. */
const DI_CHAIN_RE = /^\s{2,}\S/;
/** `X is injected at` / `is requested at` / `is provided at` followed by the site's line. */
const DI_STEP_RE = /\bis (?:injected|requested|provided) at\s*$/;

/** Whether a diagnostic's message is a Dagger or Hilt error (a chain may follow it). */
export function isInjectionError(message: string): boolean {
  return DI_MESSAGE_RE.test(message);
}

/** `[Component] com.x.HomeViewModel(useCase)` → `com.x.HomeViewModel(useCase)`. */
function injectionSite(line: string): string {
  return line.trim().replace(/^\[[^\]]*\]\s*/, "").replace(/\s+\[[^\]]*→[^\]]*\]?$/, "");
}

/**
 * A line of a Dagger/Hilt error's chain: kept (bounded) when indented or blank; the first site
 * after `is injected at` outside generated code is where the cause is. Returns whether the line
 * belongs to the chain.
 */
export function extendChain(d: Diagnostic, text: string): boolean {
  if (text.trim() === "") return d.chain !== undefined || text.length > 0;
  if (!DI_CHAIN_RE.test(text) || matchJavac(text.trim()) || matchKotlin(text.trim())) {
    return false;
  }
  const chain = d.chain ??= [];
  const prev = chain.length > 0 ? chain[chain.length - 1] : "";
  if (chain.length < MAX_CHAIN_LINES) chain.push(clip(text.trim(), MAX_CHAIN_LINE_CHARS));
  if (d.caused_at === undefined && DI_STEP_RE.test(prev)) {
    const site = injectionSite(text);
    if (!/(?:_HiltModules|_GeneratedInjector|_HiltComponents|^dagger\.)/.test(site)) {
      d.caused_at = site;
    }
  }
  return true;
}
