/**
 * `baton fork [bs_id|native-id|--last] [--cwd DIR]` and `baton resume [bs_id|native-id]` (CLI-03/04). A native
 * id (Codex thread, Claude Code session; `cx:`/`cc:` to pin the harness) is adopted first (NAT-06/08). Fork is pure storage:
 * the logical prefix (through the last moment no turn was running) is copied into a new session under
 * the invoking directory's project; its first turn starts a fresh native session and receives the
 * history through context delivery.
 */
import path from "node:path";
import { createSessionStore, loadState, resolveCwd, type SessionRef, type SessionStore } from "../../store/index.ts";
import { initialState, lastSummary, type ProjectionState } from "../../projection/index.ts";
import { systemClock } from "../../shared/clock.ts";
import { createUlidSource } from "../../shared/ids.ts";
import { batonHome } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { projectionFold, sessionsQuery } from "../open-session.ts";
import { displayTitle } from "../../store/display.ts";
import { describeAdoption, resolveSessionArg } from "./session-arg.ts";
import { EXIT, parse, reportError, UsageError } from "./shared.ts";
import { runTuiCommand } from "./tui.ts";
import { sessionRows } from "../session-rows.ts";
import { pickSession } from "../../tui/index.ts";

export async function runFork(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv, { last: { type: "boolean" }, cwd: { type: "string" } });
    const cwd = path.resolve(io.cwd, values.cwd ?? ".");
    const store = createSessionStore({ home: batonHome(io.env), clock: systemClock, ids: createUlidSource() });
    if (positionals.length > 1 || (values.last && positionals.length > 0)) throw new UsageError("usage: baton fork [bs_id | native-id | --last] [--cwd DIR]");
    let source: SessionRef;
    if (positionals[0]) source = await sourceFor(io, store, positionals[0], values.cwd);
    else if (values.last) source = latest(store, cwd, io.env["HOME"]);
    else {
      const picked = await pick(io, store, cwd, "Fork a previous session");
      if (picked.kind === "none") throw new UsageError(`no sessions for ${cwd} to fork`);
      if (picked.kind === "cancelled") return EXIT.ok;
      source = picked.ref;
    }
    const throughSeq = logicalEnd(store, source);
    const child = store.forkSession(source.batonSessionId, throughSeq, { cwd });
    store.updateMeta(child, (meta) => ({ ...meta, description: `fork of "${displayTitle(source.meta)}"` }));
    io.stdout.write(`forked ${source.batonSessionId} → ${child.batonSessionId}\n`);
    io.stdout.write(`open it with: baton -s ${child.batonSessionId}   (or: baton exec --session ${child.batonSessionId} "…")\n`);
    return EXIT.ok;
  } catch (error) {
    return reportError(io, error);
  }
}

export async function runResume(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv, { cwd: { type: "string" } });
    if (positionals.length > 1) throw new UsageError("usage: baton resume [bs_id | native-id]");
    const cwd = path.resolve(io.cwd, values.cwd ?? ".");
    const store = createSessionStore({ home: batonHome(io.env), clock: systemClock, ids: createUlidSource() });
    let ref: SessionRef | undefined;
    if (positionals[0]) {
      const resolved = await resolveSessionArg(io, store, positionals[0], values.cwd);
      if (resolved.kind === "native") {
        // The adopted session lives where the native one ran (NAT-06): open it there.
        const adopted = resolved.adoption.ref;
        io.stdout.write(describeAdoption(resolved.adoption));
        const at = adopted.meta.cwd === resolveCwd(cwd) ? "" : ` --cwd ${adopted.meta.cwd}`;
        if (!io.stdout.isTTY || !io.stdinIsTTY) {
          io.stdout.write(`open it with: baton${at} -s ${adopted.batonSessionId}   (or: baton exec${at} --session ${adopted.batonSessionId} "…")\n`);
          return EXIT.ok;
        }
        return runTuiCommand(["--session", adopted.batonSessionId, "--cwd", adopted.meta.cwd], io);
      }
      ref = resolved.ref;
    } else {
      const picked = await pick(io, store, cwd, "Resume a session");
      if (picked.kind === "cancelled") return EXIT.ok;
      // Nothing to resume here yet: start fresh.
      if (picked.kind === "none") return runTuiCommand(values.cwd ? ["--cwd", values.cwd] : [], io);
      ref = picked.ref;
    }
    return runTuiCommand(["--session", ref.batonSessionId, ...(values.cwd ? ["--cwd", values.cwd] : [])], io);
  } catch (error) {
    return reportError(io, error);
  }
}

/** The fork source: a Baton session, or the owner of an adopted native session (adopted first). */
async function sourceFor(io: CliIo, store: SessionStore, arg: string, cwd: string | undefined): Promise<SessionRef> {
  const resolved = await resolveSessionArg(io, store, arg, cwd);
  if (resolved.kind === "baton") return resolved.ref;
  io.stdout.write(describeAdoption(resolved.adoption));
  return resolved.adoption.ref;
}

function latest(store: SessionStore, cwd: string, userHome: string | undefined): SessionRef {
  const found = store.listSessions(sessionsQuery(cwd, userHome)).sessions[0];
  if (!found) throw new UsageError(`no sessions for ${cwd} to fork`);
  return found;
}

/** The pre-screen picker of this directory's sessions; without a terminal there is nobody to ask. */
type Picked = { readonly kind: "none" } | { readonly kind: "cancelled" } | { readonly kind: "chosen"; readonly ref: SessionRef };

async function pick(io: CliIo, store: SessionStore, cwd: string, title: string): Promise<Picked> {
  const userHome = io.env["HOME"];
  if (!io.stdinIsTTY || !io.stdout.isTTY) throw new UsageError("no session id given and no terminal to pick one: pass a bs_ id (see baton sessions)");
  const sessions = store.listSessions(sessionsQuery(cwd, userHome)).sessions;
  if (sessions.length === 0) return { kind: "none" };
  const chosen = await pickSession(title, sessionRows(sessions));
  const ref = chosen === undefined ? undefined : sessions.find((candidate) => candidate.batonSessionId === chosen);
  return ref ? { kind: "chosen", ref } : { kind: "cancelled" };
}

/** The seq through which the source is at rest: its end, or its last turn summary while a turn runs. */
function logicalEnd(store: SessionStore, ref: SessionRef): number {
  const ledger = store.openLedger(ref, { readOnly: true });
  try {
    const { state } = loadState<ProjectionState>(ledger, { ...projectionFold, initial: () => initialState(ref.batonSessionId) });
    if (Object.keys(state.activeTurns).length === 0) return ledger.lastSeq;
    return lastSummary(state)?.seq ?? 0;
  } finally {
    void ledger.close();
  }
}
