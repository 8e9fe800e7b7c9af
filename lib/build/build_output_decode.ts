/**
 * Bytes of a captured Gradle console → text the build parser reads. Consoles are not always
 * UTF-8: PowerShell's `> file` redirection writes UTF-16LE with a BOM, and Gradle's rich console
 * leaves ANSI colour codes in redirected output. Pure.
 */

/** How many leading bytes are sampled to guess a BOM-less UTF-16 encoding. */
const ENCODING_SNIFF_BYTES = 1024;

/** CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`) and two-byte escapes, as terminals read them. */
// deno-lint-ignore no-control-regex
const ANSI_RE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])/g;

/** Remove ANSI escape sequences from `text`. */
export function stripAnsi(text: string): string {
  return text.includes("\x1b") ? text.replace(ANSI_RE, "") : text;
}

/** The encoding of `bytes`: a BOM decides, else the NUL pattern of ASCII-heavy UTF-16. */
export function detectEncoding(bytes: Uint8Array): "utf-8" | "utf-16le" | "utf-16be" {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return "utf-8";
  }
  const n = Math.min(bytes.length, ENCODING_SNIFF_BYTES) & ~1;
  if (n < 4) return "utf-8";
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenNul++;
    if (bytes[i + 1] === 0) oddNul++;
  }
  const pairs = n / 2;
  // Gradle output is mostly ASCII: in UTF-16 nearly every pair has a NUL in the same half.
  if (oddNul > pairs * 0.4 && evenNul < pairs * 0.05) return "utf-16le";
  if (evenNul > pairs * 0.4 && oddNul < pairs * 0.05) return "utf-16be";
  return "utf-8";
}

/**
 * Decode a captured Gradle console: UTF-16LE/BE (BOM or NUL pattern) or UTF-8 (BOM optional,
 * invalid bytes replaced), CRLF and lone CR normalised to LF, ANSI escapes removed.
 */
export function decodeGradleOutput(bytes: Uint8Array): string {
  const text = new TextDecoder(detectEncoding(bytes)).decode(bytes);
  return stripAnsi(text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n"));
}

/** Bytes a streaming decoder waits for before it decides the encoding (unless the stream ends). */
const STREAM_SNIFF_BYTES = 4;

/**
 * Streaming `decodeGradleOutput` for a live console: the encoding is decided once, from the first
 * bytes (a BOM, or the NUL pattern of UTF-16: a `gradlew` wrapped by a PowerShell or a Windows
 * tool that writes UTF-16), then every chunk is decoded with it; a BOM is dropped. CR and ANSI
 * are left to the line reader. Pure.
 */
export class GradleOutputDecoder {
  #decoder: TextDecoder | null = null;
  #head = new Uint8Array(0);
  #started = false;

  /** Text of `chunk` (may be empty while the first bytes are still being sniffed). */
  decode(chunk: Uint8Array): string {
    if (this.#decoder) return this.#text(this.#decoder.decode(chunk, { stream: true }));
    const head = new Uint8Array(this.#head.length + chunk.length);
    head.set(this.#head);
    head.set(chunk, this.#head.length);
    if (head.length < STREAM_SNIFF_BYTES) {
      this.#head = head;
      return "";
    }
    this.#head = new Uint8Array(0);
    this.#decoder = new TextDecoder(detectEncoding(head));
    return this.#text(this.#decoder.decode(head, { stream: true }));
  }

  /** The rest at end of stream. */
  flush(): string {
    const d = this.#decoder ?? new TextDecoder(detectEncoding(this.#head));
    const text = d.decode(this.#decoder ? undefined : this.#head);
    this.#head = new Uint8Array(0);
    return this.#text(text);
  }

  #text(s: string): string {
    if (!this.#started && s !== "") {
      this.#started = true;
      if (s.charCodeAt(0) === 0xfeff) return s.slice(1);
    }
    return s;
  }
}
