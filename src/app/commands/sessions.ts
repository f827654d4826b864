/** `baton sessions [--cwd DIR] [--all] [--json]`: sessions of the cwd's project, newest first. */
import path from "node:path";
import { activityTime } from "../../store/index.ts";
import { lineage, lineageIndent } from "../../shared/lineage.ts";
import { batonHome } from "../app-context.ts";
import { createSessionStore } from "../../store/index.ts";
import { systemClock } from "../../shared/clock.ts";
import { terminalJson } from "../../shared/terminal-text.ts";
import { createUlidSource } from "../../shared/ids.ts";
import type { CliIo } from "../io.ts";
import { displayTitle, targetsOf } from "../../store/display.ts";
import { sessionsQuery } from "../open-session.ts";
import { EXIT, parse, reportError } from "./shared.ts";

const OPTIONS = { cwd: { type: "string" }, all: { type: "boolean" }, json: { type: "boolean" }, tree: { type: "boolean" } } as const;

export async function runSessions(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values } = parse(argv, OPTIONS);
    const home = batonHome(io.env);
    const cwd = path.resolve(io.cwd, values.cwd ?? ".");
    const store = createSessionStore({ home, clock: systemClock, ids: createUlidSource() });
    const listing = store.listSessions(values.all ? { all: true } : sessionsQuery(cwd, io.env["HOME"]));
    for (const problem of listing.problems) io.stderr.write(`baton: skipped ${problem.path}: ${problem.message}\n`);
    const rows = listing.sessions.map((ref) => ({
      id: ref.batonSessionId,
      title: displayTitle(ref.meta),
      preview: ref.meta.preview ?? null,
      cwd: ref.meta.cwd,
      createdAt: ref.meta.createdAt,
      updatedAt: activityTime(ref.meta),
      targets: targetsOf(ref.meta),
      forkedFrom: ref.meta.forkedFrom?.batonSessionId ?? null,
    }));
    if (values.json) {
      io.stdout.write(`${terminalJson(rows, 2)}\n`);
      return EXIT.ok;
    }
    if (rows.length === 0) {
      io.stdout.write(values.all ? "No sessions yet.\n" : `No sessions for ${cwd} yet. Start one with: baton exec "…"  (or baton repl)\n`);
      return EXIT.ok;
    }
    const enclosing = listing.project !== undefined && listing.project.cwd !== listing.project.from ? listing.project.cwd : undefined;
    if (enclosing !== undefined) io.stdout.write(`Sessions of ${enclosing} (the enclosing project of ${listing.project?.from}):\n`);
    for (const { row, depth } of values.tree ? lineage(rows) : rows.map((row) => ({ row, depth: 0 }))) {
      const where = values.all ? `  ${row.cwd}` : "";
      const indent = lineageIndent(depth);
      io.stdout.write(`${indent}@${row.id}  [${row.targets.join(", ")}]  ${row.title}  (${row.createdAt})${where}\n`);
    }
    io.stdout.write(`\nReference one in a prompt with @session:<id>; continue it with: baton exec --session <id> "…"\n`);
    return EXIT.ok;
  } catch (error) {
    return reportError(io, error);
  }
}
