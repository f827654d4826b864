/**
 * Throwaway git repositories for file-checkpoint tests: init with files and a first commit, run git with a
 * neutral config (no system/global files, a fixed identity), and read the worktree back as a path → text map.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The environment tests give git (and Baton) so neither reads the real user's git config. */
export function gitEnv(base: Record<string, string | undefined> = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) if (value !== undefined && !key.startsWith("GIT_")) env[key] = value;
  return { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "Test", GIT_AUTHOR_EMAIL: "test@example.com", GIT_COMMITTER_NAME: "Test", GIT_COMMITTER_EMAIL: "test@example.com" };
}

export function git(dir: string, ...args: string[]): string {
  const result = Bun.spawnSync(["git", ...args], { cwd: dir, env: gitEnv() });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed in ${dir}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

/** `git init` + the files + one commit (unless `commit: false`). */
export function initRepo(dir: string, files: Record<string, string>, options: { commit?: boolean; ignore?: string } = {}): void {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main", ".");
  if (options.ignore !== undefined) writeFileSync(path.join(dir, ".gitignore"), options.ignore);
  writeFiles(dir, files);
  if (options.commit !== false) {
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "initial");
  }
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
}

/** Every file under `dir` except `.git`, as relative path → content. */
export function filesOf(dir: string, skip: readonly string[] = [".git"]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      const rel = path.relative(dir, full);
      if (skip.includes(rel)) continue;
      if (entry.isDirectory()) walk(full);
      else out[rel] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** What the user sees of their repository: status (untracked files listed), HEAD, branch, stash, index hash. */
export function userView(dir: string): { status: string; head: string; branch: string; stash: string; index: string } {
  return {
    status: git(dir, "status", "--porcelain=v1", "-uall"),
    head: git(dir, "rev-parse", "HEAD").trim(),
    branch: git(dir, "symbolic-ref", "HEAD").trim(),
    stash: git(dir, "stash", "list"),
    index: git(dir, "ls-files", "--stage"),
  };
}
