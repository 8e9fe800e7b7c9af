/**
 * Runs a parsed `sh` script the way the device's mksh would, for the commands the simulator
 * knows. Device-specific commands (`getprop`, `wm`, `dumpsys`, `simctl`, ...) come from the
 * `commands` hook; this file owns expansion, redirection, pipes, `&&`/`||` and the generic
 * builtins (`echo`, `printf`, `cat`, `sh -c`, `sleep`, `exit`, `id`, ...).
 */
import {
  type Command,
  parseSh,
  type Pipeline,
  type Redirect,
  type Script,
  type SimpleCommand,
  type Word,
} from "./sh_parse.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** `$0` and the prefix of every shell diagnostic, as on a device. */
export const SHELL_NAME = "/system/bin/sh";
/** Longest `sleep` the simulated shell honours; longer requests sleep this long. */
export const MAX_SLEEP_SECONDS = 600;
/** Bound on the bytes one command substitution or pipe stage may buffer. */
export const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;
/** Bound on nested `sh -c` / command substitutions at run time. */
export const MAX_EXEC_DEPTH = 16;

export interface ShIo {
  /** All of stdin, resolved once stdin reaches EOF. */
  stdin: () => Promise<Uint8Array>;
  /**
   * The first `n` bytes of stdin as soon as they have arrived (fewer at EOF), for commands that
   * are told a size and read without waiting for EOF (`cmd package install -S <size>`).
   */
  stdinExactly?: (n: number) => Promise<Uint8Array>;
  out: (bytes: Uint8Array) => void;
  err: (bytes: Uint8Array) => void;
  /**
   * Resolves once what `out` was given so far has left for the client (the socket took it), so a
   * fast producer can wait for a slow reader instead of queueing without bound. Absent where
   * output is captured in memory (pipeline stages, redirections).
   */
  drained?: () => Promise<void>;
}

/** The device file system as the shell sees it: absolute paths, `/` separated. */
export interface ShFs {
  read(path: string): Uint8Array | undefined;
  isDir(path: string): boolean;
  write(path: string, data: Uint8Array, append: boolean): void;
  /** Every file and directory path, for glob matching. */
  paths(): string[];
}

/** A device command; returns its exit status, or null when no such command exists. */
export type CommandHook = (
  argv: string[],
  io: ShIo,
  shell: ShellRun,
) => Promise<number | null> | number | null;

export interface ShellOptions {
  env: Record<string, string>;
  fs: ShFs;
  commands: CommandHook;
  signal?: AbortSignal;
}

class ShExit {
  constructor(readonly code: number) {}
}

export class ShAborted extends Error {
  constructor() {
    super("Shell aborted: the stream was closed");
  }
}

/** One shell process: `sh -c <script>`. */
/** Pids a new `sh -c` process takes (the shell adbd starts is SHELL_PID, `$$` 4242). */
let nextShellPid = 20_000;

export class ShellRun {
  readonly env: Map<string, string>;
  /** `$$`: this shell process's pid; subshells and `$(...)` keep it, `sh -c` is a new process. */
  pid = 4242;
  positional: string[] = [];
  arg0 = SHELL_NAME;
  status = 0;
  depth = 0;

  /** Aborted when the stream that runs this shell closes (long-running commands stop then). */
  get signal(): AbortSignal | undefined {
    return this.opts.signal;
  }

  constructor(readonly opts: ShellOptions) {
    this.env = new Map(Object.entries(opts.env));
  }

  /** Runs a command string like `sh -c`; returns the exit status (0-255). */
  async runScript(src: string, io: ShIo): Promise<number> {
    const parsed = parseSh(src);
    if (!parsed.ok) {
      io.err(enc.encode(`${SHELL_NAME}: ${parsed.error}\n`));
      return 1;
    }
    try {
      await this.runList(parsed.script, io);
      return this.status & 255;
    } catch (e) {
      if (e instanceof ShExit) return e.code & 255;
      throw e;
    }
  }

  /** A child shell (`sh -c`, `$(...)`, `( ... )`): copies the environment. */
  child(): ShellRun {
    const c = new ShellRun(this.opts);
    c.env.clear();
    for (const [k, v] of this.env) c.env.set(k, v);
    c.positional = [...this.positional];
    c.arg0 = this.arg0;
    c.status = this.status;
    c.depth = this.depth + 1;
    c.pid = this.pid;
    return c;
  }

  private checkAbort() {
    if (this.opts.signal?.aborted) throw new ShAborted();
  }

  async runList(script: Script, io: ShIo): Promise<void> {
    for (const item of script) {
      this.checkAbort();
      // `&` would fork; the simulator runs the job to completion in order instead.
      let status = await this.runPipeline(item.first, io);
      for (const { op, pipeline } of item.rest) {
        if ((op === "&&" && status === 0) || (op === "||" && status !== 0)) {
          status = await this.runPipeline(pipeline, io);
        }
      }
      this.status = status;
    }
  }

  private async runPipeline(p: Pipeline, io: ShIo): Promise<number> {
    let status: number;
    if (p.commands.length === 1) {
      status = await this.runCommand(p.commands[0], io);
    } else {
      let input: () => Promise<Uint8Array> = io.stdin;
      status = 0;
      for (let k = 0; k < p.commands.length; k++) {
        const last = k === p.commands.length - 1;
        const sink = new Capture();
        const stageIo: ShIo = {
          stdin: input,
          out: last ? io.out : sink.write,
          err: io.err,
          drained: last ? io.drained : undefined,
        };
        // Each stage of a pipeline runs in a subshell: `exit` ends only that stage.
        const sub = this.child();
        try {
          status = await sub.runCommand(p.commands[k], stageIo);
        } catch (e) {
          if (!(e instanceof ShExit)) throw e;
          status = e.code;
        }
        const bytes = sink.bytes();
        input = () => Promise.resolve(bytes);
      }
    }
    this.status = p.bang ? (status === 0 ? 1 : 0) : status;
    return this.status;
  }

  private async runCommand(cmd: Command, io: ShIo): Promise<number> {
    this.checkAbort();
    const rio = await this.applyRedirects(cmd.redirects, io);
    if (!rio) return 1;
    try {
      if (cmd.kind === "subshell") {
        const sub = this.child();
        try {
          await sub.runList(cmd.body, rio.io);
          return sub.status;
        } catch (e) {
          if (e instanceof ShExit) return e.code;
          throw e;
        }
      }
      return await this.runSimple(cmd, rio.io);
    } finally {
      rio.flush();
    }
  }

  private async runSimple(cmd: SimpleCommand, io: ShIo): Promise<number> {
    const argv: string[] = [];
    for (const w of cmd.words) argv.push(...await this.expandWord(w, io));
    const assigns: [string, string[]][] = [];
    for (const a of cmd.assigns) assigns.push([a.name, await this.expandWord(a.value, io, false)]);
    if (argv.length === 0) {
      for (const [k, v] of assigns) this.env.set(k, v[0] ?? "");
      return this.status;
    }
    const saved = assigns.map(([k]) => [k, this.env.get(k)] as const);
    for (const [k, v] of assigns) this.env.set(k, v[0] ?? "");
    try {
      return await this.exec(argv, io);
    } finally {
      for (const [k, v] of saved) v === undefined ? this.env.delete(k) : this.env.set(k, v);
    }
  }

  /** Runs one argv: device hook first (it also serves `simctl respond`), then builtins. */
  async exec(argv: string[], io: ShIo): Promise<number> {
    this.checkAbort();
    const hooked = await this.opts.commands(argv, io, this);
    if (hooked !== null) return hooked;
    const name = argv[0].startsWith("/system/bin/") ? argv[0].slice(12) : argv[0];
    const builtin = BUILTINS[name];
    if (builtin) return await builtin(argv, io, this);
    io.err(enc.encode(`${SHELL_NAME}: ${argv[0]}: inaccessible or not found\n`));
    return 127;
  }

  private async applyRedirects(
    redirects: Redirect[],
    io: ShIo,
  ): Promise<{ io: ShIo; flush: () => void } | null> {
    if (redirects.length === 0) return { io, flush: () => {} };
    const fds: ShIo = { ...io };
    const files: { path: string; cap: Capture; append: boolean }[] = [];
    const flush = () => {
      for (const f of files) this.opts.fs.write(f.path, f.cap.bytes(), f.append);
    };
    for (const r of redirects) {
      const target = (await this.expandWord(r.target, io, false))[0] ?? "";
      if (r.op === ">&" || r.op === "<&") {
        const from = target === "1" ? fds.out : target === "2" ? fds.err : null;
        if (r.op === ">&" && from) {
          if (r.fd === 1) fds.out = from;
          else if (r.fd === 2) fds.err = from;
          continue;
        }
        if (target === "0" && r.fd === 0) continue;
        io.err(enc.encode(`${SHELL_NAME}: ${target}: bad file descriptor\n`));
        flush();
        return null;
      }
      const path = absPath(target, this.env.get("PWD") ?? "/");
      if (r.op === "<" || r.op === "<>") {
        if (path === "/dev/null") {
          fds.stdin = () => Promise.resolve(new Uint8Array());
          continue;
        }
        const data = this.opts.fs.read(path);
        if (!data) {
          io.err(enc.encode(`${SHELL_NAME}: can't open ${target}: No such file or directory\n`));
          flush();
          return null;
        }
        if (r.fd === 0) fds.stdin = () => Promise.resolve(data);
        continue;
      }
      let sink: (b: Uint8Array) => void;
      if (path === "/dev/null") sink = () => {};
      else {
        const parent = path.slice(0, path.lastIndexOf("/")) || "/";
        if (!this.opts.fs.isDir(parent) || this.opts.fs.isDir(path)) {
          const why = this.opts.fs.isDir(path) ? "Is a directory" : "No such file or directory";
          io.err(enc.encode(`${SHELL_NAME}: can't create ${target}: ${why}\n`));
          flush();
          return null;
        }
        const cap = new Capture();
        files.push({ path, cap, append: r.op === ">>" });
        sink = cap.write;
      }
      if (r.fd === 1) {
        fds.out = sink;
        fds.drained = undefined;
      } else if (r.fd === 2) fds.err = sink;
    }
    return { io: fds, flush };
  }

  private param(name: string): string | undefined {
    switch (name) {
      case "?":
        return String(this.status);
      case "$":
        return String(this.pid);
      case "#":
        return String(this.positional.length);
      case "0":
        return this.arg0;
      case "@":
      case "*":
        return this.positional.join(" ");
      case "!":
      case "-":
        return "";
    }
    if (/^[1-9]$/.test(name)) return this.positional[Number(name) - 1];
    return this.env.get(name);
  }

  /** Expands a word into fields: parameters, command substitution, field splitting, globs. */
  async expandWord(word: Word, io: ShIo, split = true): Promise<string[]> {
    type Chunk = { text: string; glob: boolean };
    const fields: Chunk[][] = [];
    let cur: Chunk[] = [];
    let touched = false;
    const flushField = () => {
      if (touched) fields.push(cur);
      cur = [];
      touched = false;
    };
    // "$@" with no parameters and nothing beside it but quotes is no field at all.
    const onlyAt = word.parts.some((p) => p.kind === "param" && p.name === "@" && p.quoted) &&
      word.parts.every((p) =>
        (p.kind === "lit" && p.text === "") || (p.kind === "param" && p.name === "@")
      );
    if (split && onlyAt && this.positional.length === 0) return [];
    for (const part of word.parts) {
      if (part.kind === "lit") {
        cur.push({ text: part.text, glob: !part.quoted });
        if (part.quoted || part.text) touched = true;
        continue;
      }
      if (part.kind === "param" && part.name === "@" && part.quoted && split) {
        // "$@": one field per positional parameter, the first and last joined to what stands
        // beside them in the word; no parameters and nothing else: no field at all.
        this.positional.forEach((p, i) => {
          if (i > 0) {
            touched = true;
            flushField();
          }
          cur.push({ text: p, glob: false });
          touched = true;
        });
        continue;
      }
      let value: string;
      if (part.kind === "param") value = this.param(part.name) ?? "";
      else value = await this.commandSubstitution(part.script, io);
      if (part.quoted || !split) {
        cur.push({ text: value, glob: false });
        touched = true;
        continue;
      }
      const pieces = value.split(/[ \t\n]+/);
      pieces.forEach((piece, idx) => {
        if (idx > 0) flushField();
        if (piece) {
          cur.push({ text: piece, glob: true });
          touched = true;
        }
      });
    }
    flushField();
    if (!split) return [fields.map((f) => f.map((c) => c.text).join("")).join(" ")];
    const out: string[] = [];
    for (const f of fields) {
      const text = f.map((c) => c.text).join("");
      const hasGlob = f.some((c) => c.glob && /[*?[]/.test(c.text));
      if (!hasGlob) {
        out.push(text);
        continue;
      }
      const matches = this.glob(f);
      if (matches.length) out.push(...matches);
      else out.push(text);
    }
    return out;
  }

  private glob(chunks: { text: string; glob: boolean }[]): string[] {
    let re = "";
    for (const c of chunks) {
      if (!c.glob) {
        re += escapeRe(c.text);
        continue;
      }
      for (let k = 0; k < c.text.length; k++) {
        const ch = c.text[k];
        if (ch === "*") re += "[^/]*";
        else if (ch === "?") re += "[^/]";
        else if (ch === "[") {
          const close = c.text.indexOf("]", k + 2);
          if (close < 0) {
            re += "\\[";
            continue;
          }
          let body = c.text.slice(k + 1, close);
          if (body.startsWith("!")) body = "^" + body.slice(1);
          re += "[" + body.replace(/\\/g, "\\\\") + "]";
          k = close;
        } else re += escapeRe(ch);
      }
    }
    const pattern = chunks.map((c) => c.text).join("");
    const abs = pattern.startsWith("/");
    const cwd = this.env.get("PWD") ?? "/";
    const prefix = cwd.endsWith("/") ? cwd : cwd + "/";
    let rx: RegExp;
    try {
      rx = new RegExp("^" + re + "$");
    } catch {
      return [];
    }
    const hits: string[] = [];
    for (const p of this.opts.fs.paths()) {
      const cand = abs ? p : p.startsWith(prefix) ? p.slice(prefix.length) : null;
      if (cand === null || cand === "") continue;
      const base = cand.slice(cand.lastIndexOf("/") + 1);
      if (base.startsWith(".") && !/(^|\/)\./.test(pattern)) continue;
      if (rx.test(cand)) hits.push(cand);
    }
    return hits.sort();
  }

  private async commandSubstitution(script: Script, io: ShIo): Promise<string> {
    if (this.depth >= MAX_EXEC_DEPTH) {
      io.err(enc.encode(`${SHELL_NAME}: too deeply nested\n`));
      return "";
    }
    const sub = this.child();
    const cap = new Capture();
    try {
      await sub.runList(script, { stdin: io.stdin, out: cap.write, err: io.err });
      this.status = sub.status;
    } catch (e) {
      if (!(e instanceof ShExit)) throw e;
      this.status = e.code;
    }
    return dec.decode(cap.bytes()).replace(/\n+$/, "");
  }

  /** Sleeps, waking early (with ShAborted) when the stream closes. */
  sleep(ms: number): Promise<void> {
    const signal = this.opts.signal;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new ShAborted());
      const onAbort = () => {
        clearTimeout(timer);
        reject(new ShAborted());
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** Collects bytes (bounded by MAX_CAPTURE_BYTES; the excess is dropped like a full pipe). */
export class Capture {
  private chunks: Uint8Array[] = [];
  private size = 0;
  write = (b: Uint8Array) => {
    if (this.size + b.length > MAX_CAPTURE_BYTES) return;
    this.chunks.push(b);
    this.size += b.length;
  };
  bytes(): Uint8Array {
    const out = new Uint8Array(this.size);
    let off = 0;
    for (const c of this.chunks) {
      out.set(c, off);
      off += c.length;
    }
    return out;
  }
  text(): string {
    return dec.decode(this.bytes());
  }
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

export function absPath(p: string, cwd: string): string {
  const joined = p.startsWith("/") ? p : (cwd.endsWith("/") ? cwd : cwd + "/") + p;
  const out: string[] = [];
  for (const seg of joined.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return "/" + out.join("/");
}

type Builtin = (argv: string[], io: ShIo, sh: ShellRun) => Promise<number> | number;

const say = (io: ShIo, s: string) => io.out(enc.encode(s));
const complain = (io: ShIo, s: string) => io.err(enc.encode(s));

/** Backslash escapes as mksh's `echo` and `printf` format strings read them. */
export function unescapeBackslashes(s: string, forEcho: boolean): { text: string; stop: boolean } {
  let text = "";
  for (let k = 0; k < s.length; k++) {
    const c = s[k];
    if (c !== "\\" || k === s.length - 1) {
      text += c;
      continue;
    }
    const n = s[++k];
    const simple: Record<string, string> = {
      a: "\x07",
      b: "\b",
      e: "\x1b",
      f: "\f",
      n: "\n",
      r: "\r",
      t: "\t",
      v: "\v",
      "\\": "\\",
    };
    if (n in simple) text += simple[n];
    else if (n === "c" && forEcho) return { text, stop: true };
    else if (n >= "0" && n <= "7") {
      // echo: \0nnn; printf: \nnn
      let digits = "";
      let j = k + (forEcho && n === "0" ? 1 : 0);
      while (digits.length < 3 && j < s.length && s[j] >= "0" && s[j] <= "7") digits += s[j++];
      text += String.fromCharCode(parseInt(digits || "0", 8) & 255);
      k = j - 1;
    } else text += "\\" + n;
  }
  return { text, stop: false };
}

function formatPrintf(fmt: string, args: string[]): string {
  let out = "";
  let ai = 0;
  const next = () => args[ai++];
  do {
    const start = ai;
    let k = 0;
    while (k < fmt.length) {
      const c = fmt[k];
      if (c === "\\") {
        const m = /^\\([0-7]{1,3}|.)/s.exec(fmt.slice(k));
        out += unescapeBackslashes(m![0], false).text;
        k += m![0].length;
        continue;
      }
      if (c !== "%") {
        out += c;
        k++;
        continue;
      }
      const m = /^%([-+ #0]*)(\d*)(?:\.(\d*))?([sdiuxXoc%b])/.exec(fmt.slice(k));
      if (!m) {
        out += c;
        k++;
        continue;
      }
      k += m[0].length;
      const [, flags, width, prec, conv] = m;
      if (conv === "%") {
        out += "%";
        continue;
      }
      const a = next();
      let s: string;
      if (conv === "s") s = a ?? "";
      else if (conv === "b") s = unescapeBackslashes(a ?? "", true).text;
      else if (conv === "c") s = (a ?? "").slice(0, 1);
      else {
        const n = a === undefined || a === "" ? 0 : Number.parseInt(a, 10);
        const v = Number.isNaN(n) ? 0 : n;
        s = conv === "x"
          ? v.toString(16)
          : conv === "X"
          ? v.toString(16).toUpperCase()
          : conv === "o"
          ? v.toString(8)
          : String(v);
      }
      if (prec !== undefined && (conv === "s" || conv === "b")) s = s.slice(0, Number(prec));
      const w = Number(width || 0);
      if (s.length < w) {
        if (flags.includes("-")) s = s.padEnd(w);
        else if (flags.includes("0") && conv !== "s") s = s.padStart(w, "0");
        else s = s.padStart(w);
      }
      out += s;
    }
    if (ai === start) break;
  } while (ai < args.length);
  return out;
}

export const BUILTINS: Record<string, Builtin> = {
  true: () => 0,
  ":": () => 0,
  false: () => 1,
  echo(argv, io) {
    let k = 1;
    let newline = true;
    let escapes = true;
    while (k < argv.length && /^-[neE]+$/.test(argv[k])) {
      for (const f of argv[k].slice(1)) {
        if (f === "n") newline = false;
        else if (f === "e") escapes = true;
        else escapes = false;
      }
      k++;
    }
    const joined = argv.slice(k).join(" ");
    if (!escapes) {
      say(io, joined + (newline ? "\n" : ""));
      return 0;
    }
    const { text, stop } = unescapeBackslashes(joined, true);
    say(io, text + (newline && !stop ? "\n" : ""));
    return 0;
  },
  printf(argv, io) {
    if (argv.length < 2) {
      complain(io, "printf: Need 1 argument\n");
      return 1;
    }
    say(io, formatPrintf(argv[1], argv.slice(2)));
    return 0;
  },
  async cat(argv, io, sh) {
    const files = argv.slice(1).filter((a) => a !== "-u");
    if (files.length === 0) files.push("-");
    let status = 0;
    for (const f of files) {
      if (f === "-") {
        io.out(await io.stdin());
        continue;
      }
      const path = absPath(f, sh.env.get("PWD") ?? "/");
      if (sh.opts.fs.isDir(path)) {
        complain(io, `cat: ${f}: Is a directory\n`);
        status = 1;
        continue;
      }
      const data = path === "/dev/null" ? new Uint8Array() : sh.opts.fs.read(path);
      if (!data) {
        complain(io, `cat: ${f}: No such file or directory\n`);
        status = 1;
        continue;
      }
      io.out(data);
    }
    return status;
  },
  exit(argv, _io, sh) {
    const n = argv[1] === undefined ? sh.status : Number.parseInt(argv[1], 10);
    throw new ShExit((Number.isNaN(n) ? 2 : n) & 255);
  },
  id(_argv, io) {
    say(
      io,
      "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb)," +
        "1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin)," +
        "3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs)" +
        " context=u:r:shell:s0\n",
    );
    return 0;
  },
  pwd(_argv, io, sh) {
    say(io, (sh.env.get("PWD") ?? "/") + "\n");
    return 0;
  },
  cd(argv, io, sh) {
    const target = absPath(argv[1] ?? "/", sh.env.get("PWD") ?? "/");
    if (!sh.opts.fs.isDir(target)) {
      complain(io, `${SHELL_NAME}: cd: ${argv[1]}: No such file or directory\n`);
      return 2;
    }
    sh.env.set("PWD", target);
    return 0;
  },
  export(argv, _io, sh) {
    for (const a of argv.slice(1)) {
      const eq = a.indexOf("=");
      if (eq > 0) sh.env.set(a.slice(0, eq), a.slice(eq + 1));
    }
    return 0;
  },
  unset(argv, _io, sh) {
    for (const a of argv.slice(1)) sh.env.delete(a);
    return 0;
  },
  async exec(argv, io, sh) {
    if (argv.length < 2) return 0;
    throw new ShExit(await sh.exec(argv.slice(1), io));
  },
  async sh(argv, io, sh) {
    if (argv[1] !== "-c" || argv.length < 3) {
      complain(io, `${SHELL_NAME}: interactive shells are not simulated: use sh -c <script>\n`);
      return 2;
    }
    if (sh.depth >= MAX_EXEC_DEPTH) {
      complain(io, `${SHELL_NAME}: too deeply nested\n`);
      return 2;
    }
    const sub = sh.child();
    sub.pid = nextShellPid++;
    sub.arg0 = argv[3] ?? SHELL_NAME;
    sub.positional = argv.slice(4);
    return await sub.runScript(argv[2], io);
  },
  async sleep(argv, io, sh) {
    const s = Number(argv[1]);
    if (argv[1] === undefined || !Number.isFinite(s) || s < 0) {
      complain(io, `sleep: Not a number: ${argv[1] ?? ""}\n`);
      return 1;
    }
    await sh.sleep(Math.min(s, MAX_SLEEP_SECONDS) * 1000);
    return 0;
  },
};
