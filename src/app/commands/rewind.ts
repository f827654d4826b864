/**
 * `baton rewind [ID] [--to <turnId> | --undo] [--yes] [--cwd DIR]` (issue 19): put the files back to a turn's
 * file checkpoint and fork the conversation there. Without a point it lists the points; without `--yes` it
 * shows the diff and asks on a terminal (elsewhere it is a dry run). On success stdout is only the new
 * session id; what happened goes to stderr. Refused (files changed outside any agent turn): exit 1, naming them.
 */
import { UNDO_POINT_ID } from "../../projection/index.ts";
import { createAppContext, openSessionIn } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { describePoint, performRewind, planRewind, rewindPoints, rewindSessionOf, type RewindPlan } from "../rewind.ts";
import { EXIT, parse, reportError, UsageError } from "./shared.ts";

const OPTIONS = {
  to: { type: "string" },
  undo: { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  cwd: { type: "string" },
} as const;

const USAGE = "usage: baton rewind [bs_id] [--to <turnId> | --undo] [--yes] [--cwd DIR]";

export async function runRewind(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    if (positionals.length > 1) throw new UsageError(USAGE);
    if (values.to !== undefined && values.undo) throw new UsageError("--to and --undo cannot be used together");
    const ctx = createAppContext(io, values.cwd === undefined ? {} : { cwd: values.cwd });
    const id = positionals[0] ?? ctx.store.listSessions({ cwd: ctx.cwd }).sessions[0]?.batonSessionId;
    if (id === undefined) throw new UsageError(`no sessions for ${ctx.cwd} to rewind`);
    const opened = await openSessionIn(ctx, { kind: "id", id }, { generateTitles: false });
    try {
      if (opened.rewindRecovery.kind !== "none") io.stderr.write(`baton: ${opened.rewindRecovery.message}\n`);
      const session = rewindSessionOf(opened, { store: ctx.store, ids: ctx.ids, clock: ctx.clock, env: io.env });
      const pointId = values.undo ? UNDO_POINT_ID : values.to;
      if (pointId === undefined) return listPoints(io, session.ref.batonSessionId, rewindPoints(session));
      const plan = await planRewind(session, pointId);
      io.stderr.write(summary(session.ref.batonSessionId, plan));
      if (plan.refused) {
        io.stderr.write(`baton: refused: ${plan.refused.message}\n`);
        return EXIT.failed;
      }
      if (!values.yes) {
        const confirmed = await confirm(io, plan);
        if (!confirmed) return EXIT.ok;
      }
      const done = await performRewind(session, plan);
      io.stdout.write(`${done.newSessionId}\n`);
      const deleted = done.restored.deleted.length;
      io.stderr.write(
        `baton: rewound ${session.ref.batonSessionId} ${plan.label}: ${done.restored.written.length} file${done.restored.written.length === 1 ? "" : "s"} restored` +
          `${deleted > 0 ? `, ${deleted} deleted` : ""}. The conversation continues in ${done.newSessionId} (${session.ref.batonSessionId} is unchanged).\n` +
          `  open it with: baton -s ${done.newSessionId}   undo with: baton rewind ${done.newSessionId} --undo --yes\n`,
      );
      return EXIT.ok;
    } finally {
      await opened.close();
    }
  } catch (error) {
    return reportError(io, error);
  }
}

function listPoints(io: CliIo, sessionId: string, points: ReturnType<typeof rewindPoints>): number {
  if (points.length === 0) {
    io.stdout.write(`${sessionId} has no rewind points (no file checkpoints yet: they are taken before each turn in a git worktree)\n`);
    return EXIT.ok;
  }
  const width = Math.max(...points.map((p) => p.id.length));
  for (const point of points) {
    io.stdout.write(`${point.id.padEnd(width)}  ${point.ts.slice(0, 16).replace("T", " ")}  ${(point.harnessTargetId ?? "-").padEnd(8)}  ${describePoint(point)}\n`);
  }
  io.stdout.write(`rewind with: baton rewind ${sessionId} --to <id> [--yes]${points.some((p) => p.kind === "undo") ? "   (or --undo)" : ""}\n`);
  return EXIT.ok;
}

function summary(sessionId: string, plan: RewindPlan): string {
  const lines = [`baton: rewind ${sessionId} ${plan.label}: ${plan.files.length === 0 ? "no file changes" : `${plan.files.length} file${plan.files.length === 1 ? "" : "s"}`}`];
  for (const file of plan.files) lines.push(`  ${file.op === "add" ? "A" : file.op === "delete" ? "D" : "M"} ${file.path}`);
  return `${lines.join("\n")}\n`;
}

/** On a terminal: show the diff and ask. Elsewhere: print the diff (a dry run) and say how to do it. */
async function confirm(io: CliIo, plan: RewindPlan): Promise<boolean> {
  for (const file of plan.files) io.stdout.write(`--- ${file.path}\n${file.patch}${file.patch.endsWith("\n") ? "" : "\n"}`);
  if (!io.stdinIsTTY) {
    io.stderr.write("baton: nothing changed (dry run); add --yes to rewind\n");
    return false;
  }
  io.stderr.write("Rewind: restore these files and fork the session? [y/N] ");
  const answer = (await io.stdin.next())?.trim().toLowerCase();
  if (answer === "y" || answer === "yes") return true;
  io.stderr.write("baton: nothing changed\n");
  return false;
}
