/**
 * A file-system error that reached the CLI (a read-only or foreign-owned BATON_HOME, a path that is not a directory)
 * as one line naming the path, and a hint saying what to do — never "unexpected error" with a stack.
 */
import path from "node:path";

interface ErrnoLike {
  readonly code: string;
  readonly path?: string;
  readonly syscall?: string;
}

const WRITE_CODES = new Set(["EROFS", "EACCES", "EPERM", "ENOTDIR", "EEXIST", "EISDIR"]);

/** The errno error in `error` or its causes, if any. */
function errnoIn(error: unknown): ErrnoLike | undefined {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return current as ErrnoLike;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Temp files (`lock.tmp-…`, `meta.json.tmp-…`) say little: name the directory they were written in. */
function shown(file: string): string {
  return /\.tmp-|^partial-/.test(path.basename(file)) ? path.dirname(file) : file;
}

export const READ_ONLY_READERS = "baton sessions, export and logs still work on it";

/** What to do when `home` (BATON_HOME) is on a read-only file system. */
export function readOnlyHint(home: string): string {
  return `Baton writes sessions, locks and logs under BATON_HOME (${home}): remount it read-write, or set BATON_HOME to a writable directory (${READ_ONLY_READERS}).`;
}

export function describeFsError(error: unknown, home: string): { message: string; hint: string } | undefined {
  const errno = errnoIn(error);
  if (errno === undefined || !WRITE_CODES.has(errno.code) || errno.path === undefined) return undefined;
  const where = shown(errno.path);
  switch (errno.code) {
    case "EROFS":
      return { message: `cannot write ${where}: the file system is read-only`, hint: readOnlyHint(home) };
    case "EACCES":
    case "EPERM":
      return {
        message: `cannot ${errno.syscall === "open" || errno.syscall === undefined ? "write" : errno.syscall} ${where}: permission denied`,
        hint: `Baton needs BATON_HOME (${home}) readable and writable by you: fix its owner or mode (chmod 700), or set BATON_HOME to a directory of yours.`,
      };
    default:
      return { message: `cannot ${errno.syscall ?? "write"} ${where}: ${errno.code}`, hint: `Move what is in the way, or set BATON_HOME to another directory (now ${home}).` };
  }
}
