/**
 * Projects group sessions by the directory they were started in:
 * `projects/<basename sanitized, ≤80>-<sha256(realpath cwd)[0..12]>/project.json {cwd}`.
 * The hash makes two directories with the same basename distinct; project.json makes a hash
 * collision (or a moved tree) visible instead of silently mixing sessions.
 */
import fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../shared/digest.ts";
import { BatonError } from "../shared/errors.ts";
import { ensureDir, isErrno, listDirs, readFileIfExists, writeFileAtomicSync } from "./files.ts";
import { writeError } from "./write-errors.ts";

export const PROJECT_FILE = "project.json";
const MAX_KEY_BASENAME = 80;

export interface ProjectInfo {
  /** Absolute, symlink-free working directory. */
  readonly cwd: string;
  readonly key: string;
  readonly dir: string;
}

export function projectsRoot(home: string): string {
  return path.join(home, "projects");
}

/** The canonical form of a cwd: absolute and symlinks resolved. A missing directory is a usage error. */
export function resolveCwd(cwd: string): string {
  try {
    return fs.realpathSync(path.resolve(cwd));
  } catch (error) {
    throw new BatonError("usage", `working directory ${cwd} does not exist or cannot be read`, { cause: error });
  }
}

export function sanitizeBasename(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, MAX_KEY_BASENAME);
  return cleaned.length > 0 ? cleaned : "root";
}

/** Key for an already resolved cwd. */
export function projectKey(realCwd: string): string {
  const hash = sha256Hex(realCwd).slice(0, 12);
  return `${sanitizeBasename(path.basename(realCwd))}-${hash}`;
}

/** Where the project for `cwd` lives; nothing is created. */
export function locateProject(home: string, cwd: string): ProjectInfo {
  const real = resolveCwd(cwd);
  const key = projectKey(real);
  return { cwd: real, key, dir: path.join(projectsRoot(home), key) };
}

/** Create the project directory and project.json if needed; a different recorded cwd is an error. */
export function ensureProject(home: string, cwd: string): ProjectInfo {
  const project = locateProject(home, cwd);
  const existed = fs.existsSync(project.dir);
  const file = path.join(project.dir, PROJECT_FILE);
  try {
    ensureDir(project.dir);
  } catch (error) {
    throw writeError(project.dir, "create", error);
  }
  const recorded = readProjectCwd(project.dir);
  if (recorded === undefined) {
    try {
      writeFileAtomicSync(file, `${JSON.stringify({ cwd: project.cwd }, null, 2)}\n`, "project");
    } catch (error) {
      // A project directory without project.json would be refused later: leave nothing behind.
      if (!existed) fs.rmSync(project.dir, { recursive: true, force: true });
      throw writeError(file, "write", error);
    }
  } else {
    assertProjectCwd(project, recorded);
  }
  return project;
}

/** Throws project_mismatch when an existing project directory belongs to another cwd. */
export function assertProjectCwd(project: ProjectInfo, recorded: string): void {
  if (recorded !== project.cwd) {
    throw new BatonError(
      "project_mismatch",
      `project directory ${project.dir} belongs to ${recorded}, not ${project.cwd}`,
      { hint: "two working directories hash to the same project key; move one of them or remove the stale project directory" },
    );
  }
}

/** The cwd recorded in project.json, or undefined when there is none. A corrupt file is an error. */
export function readProjectCwd(projectDir: string): string | undefined {
  const file = path.join(projectDir, PROJECT_FILE);
  let text: string | undefined;
  try {
    text = readFileIfExists(file);
  } catch (error) {
    if (isErrno(error, "EISDIR")) throw new BatonError("meta_invalid", `${file} is not a file`, { cause: error });
    throw error;
  }
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BatonError("meta_invalid", `${file} is not valid JSON`, { cause: error });
  }
  const cwd = (parsed as { cwd?: unknown } | null)?.cwd;
  if (typeof cwd !== "string") throw new BatonError("meta_invalid", `${file} has no "cwd" string`);
  return cwd;
}

/** Every project directory under the home (names only joined to paths). */
export function listProjectDirs(home: string): string[] {
  const root = projectsRoot(home);
  return listDirs(root).map((name) => path.join(root, name));
}

/** How far `enclosingProject` climbs: never to the user's home or above it (unless the search starts there). */
export interface AncestorLimit {
  readonly userHome?: string | undefined;
}

export interface EnclosingProject extends ProjectInfo {
  /** The directory the search started from (resolved); differs from `cwd` when an ancestor's project was found. */
  readonly from: string;
  /** Where the search stopped: the git root, the directory below the user's home, or the filesystem root. */
  readonly stoppedAt: string;
}

/**
 * The project whose sessions apply to `cwd`: the nearest of `cwd` and its ancestors whose project has at
 * least one session, climbing no further than the git root (a directory holding `.git`) and never to the
 * user's home or above. When none has sessions, `cwd`'s own project (nothing is created).
 */
export function enclosingProject(home: string, cwd: string, limit: AncestorLimit = {}): EnclosingProject {
  const from = resolveCwd(cwd);
  const userHome = limit.userHome === undefined ? undefined : realOrSelf(limit.userHome);
  let dir = from;
  for (;;) {
    const project = locateProject(home, dir);
    if (listDirs(path.join(project.dir, "sessions")).length > 0) return { ...project, from, stoppedAt: dir };
    const parent = path.dirname(dir);
    const atHome = userHome !== undefined && isInside(userHome, parent);
    if (fs.existsSync(path.join(dir, ".git")) || parent === dir || atHome) return { ...locateProject(home, from), from, stoppedAt: dir };
    dir = parent;
  }
}

/** `enclosingProject` with asynchronous reads (the TUI's `/sessions`); the same answer. */
export async function enclosingProjectAsync(home: string, cwd: string, limit: AncestorLimit = {}): Promise<EnclosingProject> {
  const from = await realpathOrUsage(cwd);
  const userHome = limit.userHome === undefined ? undefined : await fs.promises.realpath(path.resolve(limit.userHome)).catch(() => path.resolve(limit.userHome!));
  // Parents of a resolved directory are resolved: each ancestor's project is keyed without another realpath.
  const projectAt = (dir: string): ProjectInfo => ({ cwd: dir, key: projectKey(dir), dir: path.join(projectsRoot(home), projectKey(dir)) });
  let dir = from;
  for (;;) {
    const project = projectAt(dir);
    const sessions = await fs.promises.readdir(path.join(project.dir, "sessions"), { withFileTypes: true }).catch(() => []);
    if (sessions.some((entry) => entry.isDirectory())) return { ...project, from, stoppedAt: dir };
    const parent = path.dirname(dir);
    const atHome = userHome !== undefined && isInside(userHome, parent);
    const git = await fs.promises.stat(path.join(dir, ".git")).then(() => true, () => false);
    if (git || parent === dir || atHome) return { ...projectAt(from), from, stoppedAt: dir };
    dir = parent;
  }
}

/** `resolveCwd` with an asynchronous realpath. */
export async function realpathOrUsage(cwd: string): Promise<string> {
  try {
    return await fs.promises.realpath(path.resolve(cwd));
  } catch (error) {
    throw new BatonError("usage", `working directory ${cwd} does not exist or cannot be read`, { cause: error });
  }
}

/** True when `inner` is `outer` or below it. */
function isInside(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(path.sep) ? outer : `${outer}${path.sep}`);
}

function realOrSelf(dir: string): string {
  try {
    return fs.realpathSync(path.resolve(dir));
  } catch {
    return path.resolve(dir);
  }
}
