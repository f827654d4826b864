/**
 * `baton gc-checkpoints [--cwd DIR] [--dry-run]` (issue 19): remove the checkpoint refs of sessions that no
 * longer exist, so `git gc` may prune their commits. A checkpoint a live session's ledger still names (a fork
 * copied it) is first kept under that session's own refs: git gc never loses what a ledger names.
 */
import { CHECKPOINT_BOUNDARIES } from "../../event/kinds.ts";
import { Git } from "../../rewind/git.ts";
import { checkpointRef, deleteRefs, listCheckpointRefs, writeRefs } from "../../rewind/refs.ts";
import { probeRepo } from "../../rewind/repo.ts";
import { BatonError } from "../../shared/errors.ts";
import type { SessionRef, SessionStore } from "../../store/index.ts";
import { createAppContext } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { EXIT, parse, reportError, UsageError } from "./shared.ts";

const OPTIONS = { cwd: { type: "string" }, "dry-run": { type: "boolean" } } as const;

export async function runGcCheckpoints(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    if (positionals.length > 0) throw new UsageError("usage: baton gc-checkpoints [--cwd DIR] [--dry-run]");
    const ctx = createAppContext(io, values.cwd === undefined ? {} : { cwd: values.cwd });
    const probe = await probeRepo(new Git({ cwd: ctx.cwd, env: ctx.childEnv }));
    if (probe.kind === "off") throw new BatonError("usage", `no checkpoints to collect: ${probe.reason}`);
    const git = new Git({ cwd: probe.repo.root, env: ctx.childEnv });
    const refs = await listCheckpointRefs(git);
    const alive = new Map(ctx.store.listSessions({ all: true }).sessions.map((ref) => [ref.batonSessionId as string, ref]));
    const dead = refs.filter((entry) => !alive.has(entry.sessionId));
    const deadSessions = [...new Set(dead.map((entry) => entry.sessionId))].sort();
    if (dead.length === 0) {
      io.stdout.write(`nothing to remove: ${refs.length} checkpoint ref${refs.length === 1 ? "" : "s"}, all of existing sessions\n`);
      return EXIT.ok;
    }
    const deadCommits = new Set(dead.map((entry) => entry.commit));
    const kept = rehome(ctx.store, [...alive.values()], deadCommits, new Set(refs.map((entry) => entry.ref)));
    const dry = values["dry-run"] === true;
    if (!dry) {
      await writeRefs(git, kept);
      await deleteRefs(git, dead.map((entry) => entry.ref));
    }
    io.stdout.write(
      `${dry ? "would remove" : "removed"} ${dead.length} checkpoint ref${dead.length === 1 ? "" : "s"} of ${deadSessions.length} deleted session${deadSessions.length === 1 ? "" : "s"} (${deadSessions.join(", ")})` +
        `${kept.length > 0 ? `; ${kept.length} checkpoint${kept.length === 1 ? "" : "s"} still named by a live session ${dry ? "would be" : "were"} kept under its refs` : ""}\n`,
    );
    return EXIT.ok;
  } catch (error) {
    return reportError(io, error);
  }
}

/** Refs to create so every commit in `commits` that a live session's ledger names stays referenced. */
function rehome(store: SessionStore, sessions: readonly SessionRef[], commits: ReadonlySet<string>, existing: ReadonlySet<string>): { ref: string; commit: string }[] {
  const out: { ref: string; commit: string }[] = [];
  for (const session of sessions) {
    // Only a fork's ledger can hold another session's checkpoints (fork copies a prefix).
    if (session.meta.forkedFrom === undefined) continue;
    const ledger = store.openLedger(session, { readOnly: true });
    try {
      for (const { event } of ledger.readEvents()) {
        if (event.kind !== "_baton_checkpoint") continue;
        const payload = event.payload as { turnId?: string; commit?: string; boundary?: string; undo?: { commit?: string } };
        const boundary = (CHECKPOINT_BOUNDARIES as readonly string[]).includes(payload.boundary ?? "") ? (payload.boundary as "before" | "after" | "rewind") : "before";
        const wanted: [string | undefined, "before" | "after" | "rewind" | "undo"][] = [[payload.commit, boundary], [payload.undo?.commit, "undo"]];
        for (const [commit, role] of wanted) {
          if (commit === undefined || payload.turnId === undefined || !commits.has(commit)) continue;
          const ref = checkpointRef(session.batonSessionId, payload.turnId, role);
          if (!existing.has(ref) && !out.some((o) => o.ref === ref)) out.push({ ref, commit });
        }
      }
    } finally {
      void ledger.close();
    }
  }
  return out;
}
