/** Reading a session's files under a temp BATON_HOME the way an end-to-end test checks them (no Baton code). */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export type LedgerLine = { kind: string; payload: Record<string, unknown>; turnId?: string; source: { type: string } };

export function sessionDir(home: string, id: string): string {
  const projects = path.join(home, "projects");
  for (const project of readdirSync(projects)) {
    const dir = path.join(projects, project, "sessions", id);
    if (existsSync(dir)) return dir;
  }
  throw new Error(`no session ${id}`);
}

/** The id of the newest session under `home` (ids sort by creation). */
export function newestSession(home: string): string {
  const projects = path.join(home, "projects");
  const ids = readdirSync(projects).flatMap((project) => readdirSync(path.join(projects, project, "sessions")));
  return ids.sort().at(-1)!;
}

/** Every complete ledger line (a torn last line is left for Baton to repair on reopen). */
export function ledgerOf(home: string, id: string): LedgerLine[] {
  return readFileSync(path.join(sessionDir(home, id), "session.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LedgerLine];
      } catch {
        return [];
      }
    });
}

export function lockFile(home: string, id: string): string {
  return path.join(sessionDir(home, id), "lock");
}
