/**
 * Session directories: `projects/<key>/sessions/<bs_id>/{session.jsonl, meta.json, session.log, lock}`.
 * Create, find (exact id or unique prefix, across all projects) and list (STO-02).
 */
import fs from "node:fs";
import * as path from "node:path";
import type { Clock } from "../shared/clock.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import { isBatonSessionId, sessionIdPrefix, type BatonSessionId, type IdSource } from "../shared/ids.ts";
import type { Logger } from "../shared/log.ts";
import { CHECKPOINT_FILE } from "./checkpoint.ts";
import { checkDiskWrite } from "./disk-faults.ts";
import { FILE_MODE, ensureDir, isErrno, isoTime, listDirs } from "./files.ts";
import { activityTime, parseMeta, readMeta, writeMeta, type SessionMeta } from "./meta.ts";
import { enclosingProject, enclosingProjectAsync, ensureProject, listProjectDirs, locateProject, projectKey, projectsRoot, realpathOrUsage, resolveCwd, type AncestorLimit } from "./project.ts";
import { writeError } from "./write-errors.ts";

export const LEDGER_FILE = "session.jsonl";
export const SESSION_LOG_FILE = "session.log";
export const LOCK_FILE = "lock";

/** What every store operation needs. `home` is BATON_HOME, resolved by the app (never read from env here). */
export interface StoreContext {
  readonly home: string;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly log?: Logger;
}

export interface SessionPaths {
  readonly dir: string;
  readonly ledger: string;
  readonly meta: string;
  readonly log: string;
  readonly lock: string;
  readonly checkpoint: string;
}

export interface SessionRef {
  readonly batonSessionId: BatonSessionId;
  readonly projectDir: string;
  readonly paths: SessionPaths;
  readonly meta: SessionMeta;
}

/** A session directory that could not be read; listings skip it and report it here. */
export interface StoreProblem {
  readonly path: string;
  readonly message: string;
}

export interface SessionListing {
  readonly sessions: readonly SessionRef[];
  readonly problems: readonly StoreProblem[];
  /** For a cwd query: the project directory listed, and the (resolved) directory asked about. */
  readonly project?: { readonly cwd: string; readonly from: string };
}

export function sessionPaths(dir: string): SessionPaths {
  return {
    dir,
    ledger: path.join(dir, LEDGER_FILE),
    meta: path.join(dir, "meta.json"),
    log: path.join(dir, SESSION_LOG_FILE),
    lock: path.join(dir, LOCK_FILE),
    checkpoint: path.join(dir, CHECKPOINT_FILE),
  };
}

function sessionsDir(projectDir: string): string {
  return path.join(projectDir, "sessions");
}

/**
 * The directory of session `id` under `projectDir`. Only a well-formed id (`bs_` + 26 Crockford base32
 * characters) names one, and the result must stay inside the project's `sessions/` directory; anything
 * else (`bs_/../..`, an absolute path) is refused before any file is touched.
 */
export function sessionDirOf(projectDir: string, id: string): string {
  if (!isBatonSessionId(id)) throw invalidSessionId(id);
  const parent = path.resolve(sessionsDir(projectDir));
  const dir = path.resolve(parent, id);
  if (path.dirname(dir) !== parent || path.basename(dir) !== id) throw invalidSessionId(id);
  return dir;
}

function invalidSessionId(typed: string): BatonError {
  return new BatonError("session_id_invalid", `'${typed}' is not a Baton session id`, {
    hint: "A session id is bs_ followed by 26 letters and digits (see baton sessions); a unique prefix of one also works",
  });
}

export interface CreateSessionOptions {
  readonly cwd: string;
  readonly title?: string;
  readonly preview?: string;
  readonly description?: string;
}

/** Reserve a new session directory with an empty ledger (under `id` when given); meta is written by the caller. */
export function createSessionDir(ctx: StoreContext, cwd: string, given?: BatonSessionId): { id: BatonSessionId; projectDir: string; cwd: string; paths: SessionPaths } {
  const project = ensureProject(ctx.home, cwd);
  const id = given ?? ctx.ids.mint("session");
  const paths = sessionPaths(sessionDirOf(project.dir, id));
  try {
    ensureDir(paths.dir);
    checkDiskWrite("session", paths.ledger);
    fs.closeSync(fs.openSync(paths.ledger, "wx", FILE_MODE));
  } catch (error) {
    removeSessionDir(paths.dir);
    throw writeError(paths.dir, "create the session directory", error);
  }
  return { id, projectDir: project.dir, cwd: project.cwd, paths };
}

/** Remove a session directory this process just created and could not finish (no half-created sessions). */
export function removeSessionDir(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    // nothing more to do: listings report an unreadable directory
  }
}

/** Create a session under `cwd`'s project: directory (0700), empty ledger (0600), meta.json — all or nothing. */
export function createSession(ctx: StoreContext, options: CreateSessionOptions): SessionRef {
  const reserved = createSessionDir(ctx, options.cwd);
  const meta: SessionMeta = {
    batonSessionId: reserved.id,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.preview === undefined ? {} : { preview: options.preview }),
    ...(options.description === undefined ? {} : { description: options.description }),
    cwd: reserved.cwd,
    createdAt: isoTime(ctx.clock.now()),
    harnessSessions: {},
  };
  try {
    writeMeta(reserved.paths.dir, meta);
  } catch (error) {
    removeSessionDir(reserved.paths.dir);
    throw error;
  }
  return { batonSessionId: reserved.id, projectDir: reserved.projectDir, paths: reserved.paths, meta };
}

function loadRef(projectDir: string, id: string): SessionRef {
  const paths = sessionPaths(sessionDirOf(projectDir, id));
  // A symlink could point anywhere: a session directory is a real directory under the project.
  if (!fs.lstatSync(paths.dir).isDirectory()) throw new BatonError("meta_invalid", `${paths.dir} is not a directory (a link or a file is not a session)`);
  const meta = readMeta(paths.dir);
  if (meta.batonSessionId !== id) {
    throw new BatonError("meta_invalid", `${paths.meta} names ${meta.batonSessionId}, but its directory is ${id}`);
  }
  return { batonSessionId: meta.batonSessionId, projectDir, paths, meta };
}

/**
 * Find a session by id, or by a unique prefix of an id (with or without `bs_`), in every project.
 * Throws session_not_found, or session_ambiguous listing the matches.
 */
export function findSession(ctx: StoreContext, idOrPrefix: string): SessionRef {
  const wanted = idOrPrefix.trim();
  if (wanted.length === 0) throw new BatonError("usage", "a session id is required");
  const prefix = sessionIdPrefix(wanted);
  if (prefix === undefined) throw invalidSessionId(wanted);
  const projects = listProjectDirs(ctx.home);
  if (isBatonSessionId(prefix)) {
    for (const projectDir of projects) {
      if (fs.existsSync(path.join(sessionDirOf(projectDir, prefix), "meta.json"))) return loadRef(projectDir, prefix);
    }
  }
  const matches: Array<{ projectDir: string; id: string }> = [];
  for (const projectDir of projects) {
    for (const id of listDirs(sessionsDir(projectDir))) {
      if (isBatonSessionId(id) && id.startsWith(prefix)) matches.push({ projectDir, id });
    }
  }
  const [only, ...others] = matches;
  if (only === undefined) throw new BatonError("session_not_found", `no session matches ${wanted}`);
  if (others.length > 0) {
    const ids = matches.map((match) => match.id).sort();
    throw new BatonError("session_ambiguous", `${wanted} matches ${ids.length} sessions: ${ids.join(", ")}`, {
      hint: "type more characters of the id",
    });
  }
  return loadRef(only.projectDir, only.id);
}

/**
 * `cwd`: that directory's sessions; with `ancestors`, those of the enclosing project instead (the nearest
 * of cwd and its parents that has sessions, see `enclosingProject`); `all`: every project's.
 */
export type ListQuery = { readonly cwd: string; readonly ancestors?: AncestorLimit } | { readonly all: true };

/**
 * Sessions newest first (updatedAt || createdAt, desc). For a cwd: that project's sessions whose
 * meta.cwd is exactly the project's directory. Unreadable sessions are skipped and reported in `problems`.
 */
export function listSessions(ctx: StoreContext, query: ListQuery): SessionListing {
  const problems: StoreProblem[] = [];
  const sessions: SessionRef[] = [];
  let projectDirs: string[];
  let cwd: string | undefined;
  let project: { readonly cwd: string; readonly from: string } | undefined;
  if ("cwd" in query) {
    const found = query.ancestors === undefined ? { ...locateProject(ctx.home, query.cwd), from: resolveCwd(query.cwd) } : enclosingProject(ctx.home, query.cwd, query.ancestors);
    projectDirs = [found.dir];
    cwd = found.cwd;
    project = { cwd: found.cwd, from: found.from };
  } else {
    projectDirs = listProjectDirs(ctx.home);
  }
  for (const projectDir of projectDirs) {
    for (const id of listDirs(sessionsDir(projectDir))) {
      try {
        const ref = loadRef(projectDir, id);
        if (cwd === undefined || ref.meta.cwd === cwd) sessions.push(ref);
      } catch (error) {
        problems.push({ path: path.join(sessionsDir(projectDir), id), message: describeError(error) });
      }
    }
  }
  sessions.sort((a, b) => compareDesc(activityTime(a.meta), activityTime(b.meta)) || compareDesc(a.batonSessionId, b.batonSessionId));
  return { sessions, problems, ...(project === undefined ? {} : { project }) };
}

/**
 * `listSessions` without blocking the event loop (the TUI's `/sessions`): the same result, read
 * with asynchronous directory listings and file reads.
 */
export async function listSessionsAsync(ctx: StoreContext, query: ListQuery): Promise<SessionListing> {
  const problems: StoreProblem[] = [];
  let projectDirs: string[];
  let cwd: string | undefined;
  let project: { readonly cwd: string; readonly from: string } | undefined;
  if ("cwd" in query) {
    let found: { readonly cwd: string; readonly dir: string; readonly from: string };
    if (query.ancestors === undefined) {
      const real = await realpathOrUsage(query.cwd);
      found = { cwd: real, dir: path.join(projectsRoot(ctx.home), projectKey(real)), from: real };
    } else {
      found = await enclosingProjectAsync(ctx.home, query.cwd, query.ancestors);
    }
    projectDirs = [found.dir];
    cwd = found.cwd;
    project = { cwd: found.cwd, from: found.from };
  } else {
    projectDirs = (await dirsIn(projectsRoot(ctx.home))).map((name) => path.join(projectsRoot(ctx.home), name));
  }
  const found = await Promise.all(
    projectDirs.map(async (projectDir) =>
      Promise.all(
        (await dirsIn(sessionsDir(projectDir))).map(async (id): Promise<SessionRef | StoreProblem> => {
          const paths = sessionPaths(path.join(sessionsDir(projectDir), id));
          try {
            const meta = parseMeta(await fs.promises.readFile(paths.meta, "utf8"), paths.meta);
            if (meta.batonSessionId !== id) throw new BatonError("meta_invalid", `${paths.meta} names ${meta.batonSessionId}, but its directory is ${id}`);
            return { batonSessionId: meta.batonSessionId, projectDir, paths, meta };
          } catch (error) {
            const message = isErrno(error, "ENOENT") ? `no meta.json in ${paths.dir}` : describeError(error);
            return { path: paths.dir, message };
          }
        }),
      ),
    ),
  );
  const sessions: SessionRef[] = [];
  for (const entry of found.flat()) {
    if ("message" in entry) problems.push(entry);
    else if (cwd === undefined || entry.meta.cwd === cwd) sessions.push(entry);
  }
  sessions.sort((a, b) => compareDesc(activityTime(a.meta), activityTime(b.meta)) || compareDesc(a.batonSessionId, b.batonSessionId));
  return { sessions, problems, ...(project === undefined ? {} : { project }) };
}

async function dirsIn(dir: string): Promise<string[]> {
  try {
    return (await fs.promises.readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return [];
    throw error;
  }
}

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}
