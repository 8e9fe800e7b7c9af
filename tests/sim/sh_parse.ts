/**
 * A POSIX `sh` parser for the simulated device shell (the subset that adb clients send).
 *
 * A real device runs every `shell:`/`exec:` command string with `/system/bin/sh -c` (mksh), so
 * the simulator must read the string exactly as mksh would: quotes, backslashes, `$VAR`,
 * `$(...)`, backticks, operators, redirections and globs. While parsing it records every
 * metacharacter that took effect unquoted; that record is how tests catch a client that failed to
 * quote an argument.
 *
 * Independent of `lib/`: a quoting bug in the client must not be mirrored here.
 */

export type WordPart =
  | { kind: "lit"; text: string; quoted: boolean }
  | { kind: "param"; name: string; quoted: boolean; source: string }
  | { kind: "cmdsub"; script: Script; quoted: boolean; source: string };

export interface Word {
  parts: WordPart[];
}

export type RedirectOp = ">" | ">>" | ">|" | "<" | ">&" | "<&" | "<>";

export interface Redirect {
  fd: number;
  op: RedirectOp;
  target: Word;
}

export interface Assignment {
  name: string;
  value: Word;
}

export interface SimpleCommand {
  kind: "simple";
  assigns: Assignment[];
  words: Word[];
  redirects: Redirect[];
}

export interface Subshell {
  kind: "subshell";
  body: Script;
  redirects: Redirect[];
}

export type Command = SimpleCommand | Subshell;

export interface Pipeline {
  bang: boolean;
  commands: Command[];
}

export interface AndOr {
  first: Pipeline;
  rest: { op: "&&" | "||"; pipeline: Pipeline }[];
  background: boolean;
}

export type Script = AndOr[];

/** Metacharacters whose unquoted use means a command string ran more than one argv as meant. */
export const INJECTION_METACHARS: readonly string[] = [
  ";",
  "&&",
  "||",
  "|",
  "&",
  "\n",
  "$(",
  "`",
  "*",
  "?",
  "[",
  "(",
] as const;

/** Nesting bound for `$(...)`, backticks and subshells; deeper input is a syntax error. */
export const MAX_PARSE_DEPTH = 32;

/** Longest command string the simulated shell parses (adbd's own limit is far above this). */
export const MAX_SCRIPT_CHARS = 1024 * 1024;

export type ParseResult =
  | { ok: true; script: Script; argv: string[][]; unquoted: string[]; injection: boolean }
  | { ok: false; error: string; argv: string[][]; unquoted: string[]; injection: boolean };

class ShSyntaxError extends Error {}

/** Parses one `sh -c` script. Never throws: a syntax error comes back as `ok: false`. */
export function parseSh(src: string): ParseResult {
  const rec = new Recorder();
  if (src.length > MAX_SCRIPT_CHARS) {
    return { ok: false, error: "script too long", argv: [], unquoted: [], injection: false };
  }
  try {
    const p = new Parser(src, rec, 0);
    const script = p.parseList(null);
    if (p.i < src.length) throw p.unexpected();
    return { ok: true, script, ...rec.result() };
  } catch (e) {
    if (e instanceof ShSyntaxError) return { ok: false, error: e.message, ...rec.result() };
    throw e;
  }
}

/** `argv` of a word with quotes removed and expansions left as written (`$HOME`, `$(id)`). */
export function staticWord(word: Word): string {
  return word.parts.map((p) => p.kind === "lit" ? p.text : p.source).join("");
}

class Recorder {
  seen: string[] = [];
  argv: string[][] = [];
  note(meta: string) {
    if (!this.seen.includes(meta)) this.seen.push(meta);
  }
  result() {
    return {
      argv: this.argv,
      unquoted: this.seen,
      injection: this.seen.some((m) => INJECTION_METACHARS.includes(m)),
    };
  }
}

const BLANK = new Set([" ", "\t"]);
/** Characters that end an unquoted word. */
const WORD_END = new Set([" ", "\t", "\n", ";", "&", "|", "<", ">", "(", ")"]);
const SPECIAL_PARAMS = new Set(["?", "$", "#", "!", "@", "*", "-", "0", "1", "2", "3", "4", "5"]);

class Parser {
  i = 0;
  constructor(readonly src: string, readonly rec: Recorder, readonly depth: number) {
    if (depth > MAX_PARSE_DEPTH) throw new ShSyntaxError("syntax error: nesting too deep");
  }

  private get ch(): string | undefined {
    return this.src[this.i];
  }

  unexpected(): ShSyntaxError {
    const c = this.ch;
    if (c === undefined) return new ShSyntaxError("syntax error: unexpected EOF");
    const tok = this.src.startsWith("&&", this.i)
      ? "&&"
      : this.src.startsWith("||", this.i)
      ? "||"
      : this.src.startsWith(";;", this.i)
      ? ";;"
      : c === "\n"
      ? "newline"
      : c;
    return new ShSyntaxError(`syntax error: unexpected '${tok}'`);
  }

  private skipBlanks() {
    for (;;) {
      const c = this.ch;
      if (c !== undefined && BLANK.has(c)) this.i++;
      else if (c === "\\" && this.src[this.i + 1] === "\n") this.i += 2;
      else if (c === "#") {
        this.rec.note("#");
        while (this.ch !== undefined && this.ch !== "\n") this.i++;
      } else return;
    }
  }

  private skipBlanksAndNewlines() {
    for (;;) {
      this.skipBlanks();
      if (this.ch === "\n") {
        this.i++;
        continue;
      }
      return;
    }
  }

  /** list := and_or ((';' | '&' | '\n') and_or)* ; stops at end or at `end` (")"). */
  parseList(end: ")" | null): Script {
    const script: Script = [];
    this.skipBlanksAndNewlines();
    for (;;) {
      this.skipBlanks();
      const c = this.ch;
      if (c === undefined || (end !== null && c === end)) break;
      const item = this.parseAndOr();
      script.push(item);
      this.skipBlanks();
      const s = this.ch;
      if (s === ";" && this.src[this.i + 1] !== ";") {
        this.rec.note(";");
        this.i++;
      } else if (s === "&" && this.src[this.i + 1] !== "&") {
        this.rec.note("&");
        item.background = true;
        this.i++;
      } else if (s === "\n") {
        this.rec.note("\n");
        this.i++;
      } else if (s === undefined || (end !== null && s === end)) {
        break;
      } else {
        throw this.unexpected();
      }
      this.skipBlanksAndNewlines();
    }
    return script;
  }

  private parseAndOr(): AndOr {
    const first = this.parsePipeline();
    const rest: AndOr["rest"] = [];
    for (;;) {
      this.skipBlanks();
      const op = this.src.startsWith("&&", this.i)
        ? "&&"
        : this.src.startsWith("||", this.i)
        ? "||"
        : null;
      if (!op) break;
      this.rec.note(op);
      this.i += 2;
      this.skipBlanksAndNewlines();
      rest.push({ op, pipeline: this.parsePipeline() });
    }
    return { first, rest, background: false };
  }

  private parsePipeline(): Pipeline {
    this.skipBlanks();
    let bang = false;
    if (
      this.ch === "!" && (this.src[this.i + 1] === undefined || BLANK.has(this.src[this.i + 1]))
    ) {
      bang = true;
      this.i++;
    }
    const commands = [this.parseCommand()];
    for (;;) {
      this.skipBlanks();
      if (this.ch !== "|" || this.src[this.i + 1] === "|") break;
      this.rec.note("|");
      this.i++;
      this.skipBlanksAndNewlines();
      commands.push(this.parseCommand());
    }
    return { bang, commands };
  }

  private parseCommand(): Command {
    this.skipBlanks();
    if (this.ch === "(") {
      this.rec.note("(");
      this.i++;
      const inner = new Parser(this.src, this.rec, this.depth + 1);
      inner.i = this.i;
      const body = inner.parseList(")");
      this.i = inner.i;
      if (this.src[this.i] !== ")") throw this.unexpected();
      if (body.length === 0) throw this.unexpected();
      this.i++;
      const redirects: Redirect[] = [];
      for (;;) {
        this.skipBlanks();
        const r = this.tryRedirect();
        if (!r) break;
        redirects.push(r);
      }
      return { kind: "subshell", body, redirects };
    }
    const cmd: SimpleCommand = { kind: "simple", assigns: [], words: [], redirects: [] };
    for (;;) {
      this.skipBlanks();
      const c = this.ch;
      if (c === undefined) break;
      const r = this.tryRedirect();
      if (r) {
        cmd.redirects.push(r);
        continue;
      }
      if (WORD_END.has(c)) break;
      const word = this.parseWord();
      const assign = cmd.words.length === 0 ? asAssignment(word) : null;
      if (assign) cmd.assigns.push(assign);
      else cmd.words.push(word);
    }
    if (cmd.words.length === 0 && cmd.assigns.length === 0 && cmd.redirects.length === 0) {
      throw this.unexpected();
    }
    if (cmd.words.length > 0) this.rec.argv.push(cmd.words.map(staticWord));
    return cmd;
  }

  /** `[n]>`, `>>`, `>|`, `<`, `>&`, `<&`, `<>` followed by a word; `<<` is not supported. */
  private tryRedirect(): Redirect | null {
    let j = this.i;
    while (j < this.src.length && this.src[j] >= "0" && this.src[j] <= "9") j++;
    const c = this.src[j];
    if (c !== ">" && c !== "<") return null;
    const fdText = this.src.slice(this.i, j);
    let op: RedirectOp;
    const two = this.src.slice(j, j + 2);
    if (two === "<<") throw new ShSyntaxError("syntax error: here-documents are not simulated");
    if (two === ">>" || two === ">&" || two === "<&" || two === "<>" || two === ">|") {
      op = two as RedirectOp;
    } else op = c as RedirectOp;
    this.i = j + op.length;
    this.rec.note(op === ">>" || op === ">|" ? ">" : op === "<>" ? "<" : op);
    this.skipBlanks();
    const t = this.ch;
    if (t === undefined || WORD_END.has(t)) throw this.unexpected();
    const target = this.parseWord();
    const fd = fdText === "" ? (op.startsWith("<") ? 0 : 1) : Number(fdText);
    return { fd, op, target };
  }

  private parseWord(): Word {
    const parts: WordPart[] = [];
    let openBracket = false;
    const lit = (text: string, quoted: boolean) => {
      const last = parts[parts.length - 1];
      if (last && last.kind === "lit" && last.quoted === quoted) last.text += text;
      else parts.push({ kind: "lit", text, quoted });
    };
    for (;;) {
      const c = this.ch;
      if (c === undefined || WORD_END.has(c)) break;
      if (c === "\\") {
        const n = this.src[this.i + 1];
        if (n === "\n") this.i += 2;
        else if (n === undefined) {
          lit("\\", true);
          this.i++;
        } else {
          lit(n, true);
          this.i += 2;
        }
      } else if (c === "'") {
        const close = this.src.indexOf("'", this.i + 1);
        if (close < 0) throw new ShSyntaxError("no closing quote");
        lit(this.src.slice(this.i + 1, close), true);
        this.i = close + 1;
      } else if (c === '"') {
        this.i++;
        this.parseDoubleQuoted(parts, lit);
      } else if (c === "$") {
        const part = this.parseDollar(false);
        if (part) parts.push(part);
        else lit("$", false);
      } else if (c === "`") {
        parts.push(this.parseBackquote(false));
      } else {
        // `[` is a glob only when an unquoted `]` closes it within the same word.
        if (c === "*" || c === "?") this.rec.note(c);
        else if (c === "[") openBracket = true;
        else if (c === "]" && openBracket) this.rec.note("[");
        lit(c, false);
        this.i++;
      }
    }
    return { parts };
  }

  private parseDoubleQuoted(parts: WordPart[], lit: (t: string, q: boolean) => void) {
    // An empty "" still makes a (quoted, empty) field.
    lit("", true);
    for (;;) {
      const c = this.ch;
      if (c === undefined) throw new ShSyntaxError("no closing quote");
      if (c === '"') {
        this.i++;
        return;
      }
      if (c === "\\") {
        const n = this.src[this.i + 1];
        if (n === "\n") this.i += 2;
        else if (n === "$" || n === "`" || n === '"' || n === "\\") {
          lit(n, true);
          this.i += 2;
        } else {
          lit("\\", true);
          this.i++;
        }
      } else if (c === "$") {
        const part = this.parseDollar(true);
        if (part) parts.push(part);
        else lit("$", true);
      } else if (c === "`") {
        parts.push(this.parseBackquote(true));
      } else {
        lit(c, true);
        this.i++;
      }
    }
  }

  /** At `$`: returns the expansion, or null (and consumes the `$`) when it is a literal `$`. */
  private parseDollar(quoted: boolean): WordPart | null {
    const start = this.i;
    const n = this.src[this.i + 1];
    if (n === "(") {
      if (this.src[this.i + 2] === "(") {
        throw new ShSyntaxError("syntax error: arithmetic expansion is not simulated");
      }
      // Quoted or not, the inner command runs.
      this.rec.note("$(");
      const inner = new Parser(this.src, this.rec, this.depth + 1);
      inner.i = this.i + 2;
      const script = inner.parseList(")");
      if (inner.i >= this.src.length) throw new ShSyntaxError("syntax error: unmatched '('");
      this.i = inner.i + 1;
      return { kind: "cmdsub", script, quoted, source: this.src.slice(start, this.i) };
    }
    if (n === "{") {
      const close = this.src.indexOf("}", this.i + 2);
      if (close < 0) throw new ShSyntaxError("syntax error: missing '}'");
      const name = this.src.slice(this.i + 2, close);
      if (!/^([A-Za-z_][A-Za-z0-9_]*|[0-9?$#!@*-])$/.test(name)) {
        throw new ShSyntaxError(`\${${name}}: bad substitution`);
      }
      this.i = close + 1;
      if (!quoted) this.rec.note("$");
      return { kind: "param", name, quoted, source: this.src.slice(start, this.i) };
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.src.slice(this.i + 1, this.i + 257));
    if (m) {
      this.i += 1 + m[0].length;
      if (!quoted) this.rec.note("$");
      return { kind: "param", name: m[0], quoted, source: this.src.slice(start, this.i) };
    }
    if (n !== undefined && SPECIAL_PARAMS.has(n)) {
      this.i += 2;
      if (!quoted) this.rec.note("$");
      return { kind: "param", name: n, quoted, source: this.src.slice(start, this.i) };
    }
    this.i++;
    return null;
  }

  /** Backquotes: the body is unescaped (`\$`, `` \` ``, `\\`) and parsed as its own script. */
  private parseBackquote(quoted: boolean): WordPart {
    const start = this.i;
    this.rec.note("`");
    let j = this.i + 1;
    let body = "";
    for (;;) {
      const c = this.src[j];
      if (c === undefined) throw new ShSyntaxError("no closing quote");
      if (c === "`") break;
      if (c === "\\") {
        const n = this.src[j + 1];
        if (n === "$" || n === "`" || n === "\\" || (quoted && n === '"')) {
          body += n;
          j += 2;
          continue;
        }
      }
      body += c;
      j++;
    }
    this.i = j + 1;
    const inner = new Parser(body, this.rec, this.depth + 1);
    const script = inner.parseList(null);
    if (inner.i < body.length) throw inner.unexpected();
    return { kind: "cmdsub", script, quoted, source: this.src.slice(start, this.i) };
  }
}

function asAssignment(word: Word): Assignment | null {
  const first = word.parts[0];
  if (!first || first.kind !== "lit" || first.quoted) return null;
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(first.text);
  if (!m) return null;
  const rest: WordPart[] = [];
  const tail = first.text.slice(m[0].length);
  if (tail) rest.push({ kind: "lit", text: tail, quoted: false });
  rest.push(...word.parts.slice(1));
  return { name: m[1], value: { parts: rest } };
}
