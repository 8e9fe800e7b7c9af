/**
 * The agent skill installer for Claude Code (spec "Agent skill"): `~/.claude/skills/keynobi/
 * SKILL.md`, written through a unique temporary file renamed over the target. It refuses a
 * `keynobi` folder that resolves outside `~/.claude/skills`, and a `SKILL.md` that differs from
 * the shipped one (a symlink counts as different) unless the caller passes `replace: true`, which
 * the dashboard sends only after the user confirmed replacing it. `skillStatus` only reads.
 */
import { dirname, isAbsolute, join, relative } from "../core/path.ts";
import { writeFileAtomic } from "../core/file_lock.ts";

/** A SKILL.md larger than this is not read to compare (it differs). */
const MAX_COMPARED_SKILL_BYTES = 1024 * 1024;

type SkillState =
  /** No SKILL.md there. */
  | "missing"
  /** The shipped skill is installed. */
  | "installed"
  /** Another SKILL.md (or a symlink) is there: replacing it needs `replace: true`. */
  | "different"
  /** The keynobi folder resolves outside ~/.claude/skills: never written. */
  | "outside";

interface SkillStatus {
  state: SkillState;
  path: string;
  detail: string;
}

export function skillPaths(home: string) {
  const skills = join(home, ".claude", "skills");
  const folder = join(skills, "keynobi");
  return { skills, folder, file: join(folder, "SKILL.md") };
}

async function realOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.realPath(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** Where the install stands, without writing anything. */
export async function skillStatus(home: string, shipped: string): Promise<SkillStatus> {
  const p = skillPaths(home);
  const skillsReal = await realOrNull(p.skills);
  const folderReal = await realOrNull(p.folder);
  if (folderReal !== null && (skillsReal === null || !inside(skillsReal, folderReal))) {
    return {
      state: "outside",
      path: p.file,
      detail: `${p.folder} resolves to ${folderReal}, outside ${p.skills}: remove or fix it first`,
    };
  }
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(p.file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return { state: "missing", path: p.file, detail: "not installed" };
    }
    throw e;
  }
  if (info.isSymlink) {
    return { state: "different", path: p.file, detail: "SKILL.md is a symlink" };
  }
  if (!info.isFile || info.size > MAX_COMPARED_SKILL_BYTES) {
    return { state: "different", path: p.file, detail: "another file is there" };
  }
  const text = await Deno.readTextFile(p.file);
  return text === shipped
    ? { state: "installed", path: p.file, detail: "the shipped skill is installed" }
    : { state: "different", path: p.file, detail: "a different SKILL.md is installed" };
}

/** A refusal the page shows as it is (nothing was written). */
export class SkillInstallRefused extends Error {}

/** Install the shipped skill; see the module comment for what is refused. */
export async function installSkill(
  home: string,
  shipped: string,
  opts: { replace: boolean },
): Promise<SkillStatus> {
  const before = await skillStatus(home, shipped);
  if (before.state === "outside") throw new SkillInstallRefused(`Not installed: ${before.detail}`);
  if (before.state === "installed") return before;
  if (before.state === "different" && !opts.replace) {
    throw new SkillInstallRefused(
      `Not installed: ${before.detail} at ${before.path}; confirm replacing it to overwrite`,
    );
  }
  const p = skillPaths(home);
  await Deno.mkdir(p.folder, { recursive: true, mode: 0o755 });
  // Checked again once the folder exists: it must still resolve inside ~/.claude/skills.
  const skillsReal = await Deno.realPath(p.skills);
  const folderReal = await Deno.realPath(p.folder);
  if (!inside(skillsReal, folderReal)) {
    throw new SkillInstallRefused(
      `Not installed: ${p.folder} resolves to ${folderReal}, outside ${p.skills}`,
    );
  }
  const target = join(folderReal, "SKILL.md");
  if (dirname(target) !== folderReal) throw new SkillInstallRefused("Not installed: bad path");
  // The rename replaces a symlink itself, never the file it points to.
  await writeFileAtomic(target, shipped, 0o644);
  return await skillStatus(home, shipped);
}
