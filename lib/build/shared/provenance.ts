/**
 * Where a build came from: the git commit, branch and uncommitted changes of the project, the
 * Gradle and JDK versions, and hashes of the files that configure the build. Recorded with every
 * build so `compare_debug_sessions` can say what changed between two installs.
 *
 * git runs as argument vectors (`git -C <root> …`), each with a timeout, with
 * `GIT_OPTIONAL_LOCKS=0` (a status never takes the index lock, so it cannot fail a concurrent
 * commit), no pager, no prompts, and `core.fsmonitor=false`: a repository's own config could name
 * an fsmonitor program that `git status` would run. `rev-parse` and `status` run no hooks.
 *
 * Build files are read through `readProjectFile`, so a build file that is a symlink leaving the
 * project is skipped, not hashed.
 */
import { moduleDir, parseSettings } from "../../project/build_files.ts";
import { readProjectFile } from "../../core/project_paths.ts";
import { sha256Hex } from "../../core/hash.ts";
import { ToolError } from "../../core/errors.ts";
import { runCommand, type RunCommandResult } from "../../core/run_command.ts";

/** Each git command may take this long. */
const GIT_TIMEOUT_MS = 5_000;
/** The largest per-command timeout a caller may ask for. */
const MAX_GIT_TIMEOUT_MS = 60_000;
/** Changed files listed by path; `changed_file_count` counts all of them. */
export const MAX_CHANGED_FILES = 50;
/** A changed path longer than this is cut. */
const MAX_CHANGED_PATH_CHARS = 1_024;
/** Build files hashed at most (settings, root, modules, properties, catalog, wrapper). */
export const MAX_HASHED_BUILD_FILES = 200;
/** A build file larger than this is hashed over its first bytes (it is not a real build file). */
const MAX_HASHED_FILE_BYTES = 4 * 1024 * 1024;
/** Bytes of git's stdout kept for `rev-parse` and of stderr for the reason. */
const MAX_GIT_TEXT_BYTES = 64 * 1024;
/** A failure reason quoted from git's stderr is cut to this. */
const MAX_GIT_REASON_CHARS = 200;

export interface Provenance {
  /** `HEAD`'s full hash, or `null` (see `no_commit_because`). */
  commit: string | null;
  /** The checked-out branch; `null` when detached, without commits, or not a repository. */
  branch: string | null;
  /** Uncommitted changes (untracked files count); `null` when git could not tell. */
  dirty: boolean | null;
  /** The first `MAX_CHANGED_FILES` changed paths, relative to the repository root. */
  changed_files: string[];
  changed_file_count: number;
  /** Why `commit` is `null`; `null` when there is a commit. */
  no_commit_because: string | null;
  gradle_version: string | null;
  jdk_version: string | null;
  /** Path relative to the project root (with `/`) → SHA-256 (hex) of its content. */
  build_files: Record<string, string>;
}

export const NoCommitReason = {
  notRepository: "not a git repository",
  notInstalled: "git is not installed",
  noCommits: "the repository has no commits yet",
  timedOut: "git timed out",
} as const;

interface ReadProvenanceOptions {
  gradleVersion?: string | null;
  jdkVersion?: string | null;
  /** Per git command; default `GIT_TIMEOUT_MS`, max `MAX_GIT_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** The git executable; default `git` from PATH. */
  git?: string;
}

/** The environment git runs with, on top of ours. */
const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_OPTIONAL_LOCKS: "0",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
  LC_ALL: "C",
};

/** Options placed before every git subcommand. */
const GIT_GLOBAL_ARGS = ["--no-pager", "--no-optional-locks", "-c", "core.fsmonitor=false"];

/** A git command's run (`code` is `null` when git could not be started or timed out). */
export type GitRun = Omit<RunCommandResult, "error">;

/** Streams NUL-separated `status --porcelain=v1 -z` records, keeping a bounded list. */
export class PorcelainCounter {
  count = 0;
  readonly files: string[] = [];
  #field: number[] = [];
  #skipNext = false;

  constructor(readonly maxFiles = MAX_CHANGED_FILES) {}

  push(bytes: Uint8Array): void {
    for (const b of bytes) {
      if (b === 0) this.#endField();
      else if (this.#field.length < MAX_CHANGED_PATH_CHARS + 3) this.#field.push(b);
    }
  }

  /** Call once at the end of output (a last record without a final NUL). */
  finish(): void {
    if (this.#field.length > 0) this.#endField();
  }

  #endField(): void {
    const field = this.#field;
    this.#field = [];
    if (this.#skipNext) {
      // The original path of a rename or copy: part of the previous entry.
      this.#skipNext = false;
      return;
    }
    if (field.length < 4) return;
    const x = String.fromCharCode(field[0]);
    this.#skipNext = x === "R" || x === "C";
    this.count++;
    if (this.files.length < this.maxFiles) {
      this.files.push(new TextDecoder().decode(new Uint8Array(field.slice(3))));
    }
  }
}

/** Why `git rev-parse HEAD` gave no commit, from its result. Pure. */
export function noCommitReason(run: GitRun): string {
  if (run.notFound) return NoCommitReason.notInstalled;
  if (run.timedOut) return NoCommitReason.timedOut;
  const err = run.stderr;
  if (/not a git repository/i.test(err)) return NoCommitReason.notRepository;
  if (/unknown revision|ambiguous argument 'HEAD'|bad revision 'HEAD'/i.test(err)) {
    return NoCommitReason.noCommits;
  }
  if (/dubious ownership/i.test(err)) {
    return "git refused the repository: it is owned by another user (safe.directory)";
  }
  const first = err.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  const detail = first.replace(/^fatal:\s*/, "").slice(0, MAX_GIT_REASON_CHARS);
  return detail === "" ? `git failed with exit code ${run.code}` : `git failed: ${detail}`;
}

/** Runs `git <global args> -C root args…` with a timeout; never throws. */
async function runGit(
  git: string,
  root: string,
  args: string[],
  timeoutMs: number,
  onStdout?: (chunk: Uint8Array) => void,
): Promise<GitRun> {
  const run = await runCommand(git, [...GIT_GLOBAL_ARGS, "-C", root, ...args], {
    timeoutMs,
    maxOutputBytes: MAX_GIT_TEXT_BYTES,
    env: { ...GIT_ENV },
    onStdout,
  });
  const startFailed = run.code === null && !run.timedOut;
  return {
    code: run.code,
    stdout: run.stdout,
    // When git could not start, the reason takes the place of its stderr.
    stderr: startFailed ? run.error ?? run.stderr : run.stderr,
    timedOut: run.timedOut,
    notFound: run.notFound,
  };
}

/** The build files worth hashing, relative to the root, from the settings file's modules. Pure. */
export function buildFileCandidates(settingsText: string | null): string[] {
  const files = [
    "settings.gradle.kts",
    "settings.gradle",
    "build.gradle.kts",
    "build.gradle",
    "gradle.properties",
    "gradle/libs.versions.toml",
    "gradle/wrapper/gradle-wrapper.properties",
  ];
  if (settingsText !== null) {
    const settings = parseSettings(settingsText);
    for (const path of settings.modules) {
      const dir = moduleDir(path, settings.projectDirs);
      if (dir === "" || dir.startsWith("/") || dir.split("/").includes("..")) continue;
      files.push(`${dir}/build.gradle.kts`, `${dir}/build.gradle`);
    }
  }
  return [...new Set(files)].slice(0, MAX_HASHED_BUILD_FILES);
}

/** `null` when the file is absent or not served (a symlink out of the project, a folder…). */
async function readServed(root: string, rel: string): Promise<string | null> {
  try {
    return (await readProjectFile(root, rel, MAX_HASHED_FILE_BYTES)).text;
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}

/** SHA-256 of each build file that exists inside the project (see `buildFileCandidates`). */
async function hashBuildFiles(root: string): Promise<Record<string, string>> {
  const settings = (await readServed(root, "settings.gradle.kts")) ??
    (await readServed(root, "settings.gradle"));
  const out: Record<string, string> = {};
  for (const rel of buildFileCandidates(settings)) {
    const text = await readServed(root, rel);
    if (text === null) continue;
    out[rel] = await sha256Hex(text);
  }
  return out;
}

/** The provenance of a build of `root` about to run (see the module comment). */
export async function readProvenance(
  root: string,
  options: ReadProvenanceOptions = {},
): Promise<Provenance> {
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_GIT_TIMEOUT_MS) {
    throw new RangeError(`timeoutMs must be 1..${MAX_GIT_TIMEOUT_MS}, got ${timeoutMs}`);
  }
  const git = options.git ?? "git";
  const provenance: Provenance = {
    commit: null,
    branch: null,
    dirty: null,
    changed_files: [],
    changed_file_count: 0,
    no_commit_because: null,
    gradle_version: options.gradleVersion ?? null,
    jdk_version: options.jdkVersion ?? null,
    build_files: await hashBuildFiles(root),
  };

  const head = await runGit(git, root, ["rev-parse", "HEAD"], timeoutMs);
  const commit = head.stdout.trim();
  if (head.code === 0 && /^[0-9a-f]{40,64}$/.test(commit)) {
    provenance.commit = commit;
  } else {
    provenance.no_commit_because = noCommitReason(head);
    // A repository without commits still has a status worth recording.
    if (provenance.no_commit_because !== NoCommitReason.noCommits) return provenance;
  }

  if (provenance.commit !== null) {
    const branch = await runGit(git, root, ["rev-parse", "--abbrev-ref", "HEAD"], timeoutMs);
    const name = branch.stdout.trim();
    if (branch.code === 0 && name !== "" && name !== "HEAD") provenance.branch = name;
  }

  const counter = new PorcelainCounter();
  const status = await runGit(
    git,
    root,
    ["status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=dirty"],
    timeoutMs,
    (chunk) => counter.push(chunk),
  );
  if (status.code === 0) {
    counter.finish();
    provenance.dirty = counter.count > 0;
    provenance.changed_files = counter.files;
    provenance.changed_file_count = counter.count;
  }
  return provenance;
}
