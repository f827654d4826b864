/**
 * Inbox benchmark (#20.2, budget: 200 sessions in ≤ 200 ms): `node_modules/.bin/bun bench/inbox.ts [--sessions N]
 * [--projects P] [--turns T] [--rounds R] [--keep]`.
 *
 * Builds a BATON_HOME with N sessions (default 200) over P projects (default 20), each T realistic turns (default 2,
 * 500 events each, ~1 KB per event with `raw`, the shared bench fixture) closed with a checkpoint as Baton writes on
 * exit, and its meta.json `attention` snapshot as Baton writes at close; every 4th session then has a tail after its
 * checkpoint: a turn that opened an approval and never ended (a crash while it waited: the snapshot no longer
 * matches, so the inbox reads checkpoint + tail), every 10th a pending suggestion (likewise). Then measures
 * `readInbox` in this process — first run and the median of R more — with the snapshots, and without any (sessions
 * last closed by a Baton before #20.2: checkpoint + tail for all); and the whole `baton inbox --json` (a fresh Bun
 * process, startup included) as information.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { attentionSnapshot } from "../src/app/attention-snapshot.ts";
import { readInbox } from "../src/app/inbox.ts";
import { initialState, reduce, type ProjectionState } from "../src/projection/index.ts";
import { storedProjectionFold } from "../src/projection/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createUlidSource, type TurnId } from "../src/shared/ids.ts";
import { createSessionStore, writeCheckpoint } from "../src/store/index.ts";
import { EVENTS_PER_TURN, turnDrafts } from "./_fixture.ts";

const BUDGET_MS = 200;

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Math.max(1, Number(process.argv[at + 1]));
}

function line(label: string, value: string, budget?: string, ok?: boolean): void {
  const verdict = budget === undefined ? "(info)" : `budget ${budget}  ${ok ? "OK" : "OVER"}`;
  console.log(`${label.padEnd(40)} ${value.padStart(12)}  ${verdict}`);
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function build(home: string, base: string, sessions: number, projects: number, turns: number): Promise<{ bytes: number; waiting: number }> {
  const ids = createUlidSource(() => systemClock.now());
  const store = createSessionStore({ home, clock: systemClock, ids });
  let bytes = 0;
  for (let i = 0; i < sessions; i++) {
    const cwd = path.join(base, `project-${i % projects}`);
    fs.mkdirSync(cwd, { recursive: true });
    const ref = store.createSession({ cwd });
    const ledger = store.openLedger(ref);
    let state: ProjectionState = initialState(ref.batonSessionId);
    for (let turn = 0; turn < turns; turn++) for (const draft of turnDrafts(turn)) state = reduce(state, ledger.append(draft));
    await writeCheckpoint(ledger, storedProjectionFold, state, ledger.position);
    store.updateMeta(ref, (meta) => ({ ...meta, attention: attentionSnapshot(state, ledger.byteLength) }));
    if (i % 4 === 0) {
      const turnId = `t_01KBENCHWAIT${String(i).padStart(14, "0")}` as TurnId;
      const codex = { harness: "codex", harnessTargetId: "codex", turnId } as const;
      ledger.append({ kind: "user_message", source: { type: "user" }, turnId, payload: { messageId: `m_wait_${i}`, content: [{ type: "text", text: "run the tests" }], delivery: "prompt" } });
      ledger.append({ kind: "state_update", source: { type: "baton" }, ...codex, payload: { state: "running" } });
      ledger.append({
        kind: "interaction.opened",
        source: { type: "harness", harnessTargetId: "codex" },
        ...codex,
        payload: { interactionId: `ix_wait_${i}`, requester: { type: "harness", harnessTargetId: "codex" }, draft: { type: "permission", title: "Run npm test", options: [{ optionId: "allow", name: "Allow once", polarity: "allow", lifetime: "once" }] } },
      });
    }
    if (i % 10 === 5) {
      ledger.append({
        kind: "interaction.opened",
        source: { type: "baton" },
        payload: { interactionId: `ix_suggest_${i}`, requester: { type: "baton" }, draft: { type: "proposed_input", text: "Continue on Claude Code", dedupeKey: `k${i}` } },
      });
    }
    bytes += ledger.byteLength;
    await ledger.close();
  }
  return { bytes, waiting: Math.ceil(sessions / 4) + Math.floor((sessions + 4) / 10) };
}

async function main(): Promise<void> {
  const sessions = option("--sessions", 200);
  const projects = option("--projects", 20);
  const turns = option("--turns", 2);
  const rounds = option("--rounds", 7);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-inbox-"));
  const home = path.join(dir, "baton-home");
  try {
    const started = Bun.nanoseconds();
    const built = await build(home, path.join(dir, "work"), sessions, projects, turns);
    line("sessions built", `${sessions}`, undefined);
    line("  projects", `${projects}`, undefined);
    line("  events per session", `${turns * EVENTS_PER_TURN}`, undefined);
    line("  ledger bytes in all", `${(built.bytes / 1e6).toFixed(1)} MB`, undefined);
    line("  build time", `${((Bun.nanoseconds() - started) / 1e9).toFixed(1)} s`, undefined);

    const store = createSessionStore({ home, clock: systemClock, ids: createUlidSource() });
    const problems: string[] = [];
    const once = (): { ms: number; rows: number } => {
      const before = Bun.nanoseconds();
      const rows = readInbox(store, { onProblem: (file, message) => problems.push(`${file}: ${message}`) });
      return { ms: (Bun.nanoseconds() - before) / 1e6, rows: rows.length };
    };
    const first = once();
    const runs = Array.from({ length: rounds }, once);
    if (problems.length > 0) throw new Error(`the inbox reported problems: ${problems.slice(0, 3).join("; ")}`);
    if (first.rows !== built.waiting || runs.some((run) => run.rows !== built.waiting)) throw new Error(`expected ${built.waiting} waiting sessions, listed ${first.rows}`);
    line("waiting sessions listed", `${first.rows}`, undefined);
    line(`readInbox, ${sessions} sessions (first run)`, `${first.ms.toFixed(1)} ms`, `${BUDGET_MS} ms`, first.ms <= BUDGET_MS);
    line(`readInbox, ${sessions} sessions (median of ${rounds})`, `${median(runs.map((run) => run.ms)).toFixed(1)} ms`, `${BUDGET_MS} ms`, median(runs.map((run) => run.ms)) <= BUDGET_MS);
    line("  per session (median)", `${(median(runs.map((run) => run.ms)) / sessions).toFixed(2)} ms`, undefined);

    const entry = path.resolve(import.meta.dir, "../src/app/main.ts");
    const cli: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = Bun.nanoseconds();
      const run = Bun.spawnSync([process.execPath, entry, "inbox", "--json"], { env: { ...process.env, BATON_HOME: home, HOME: dir }, cwd: dir });
      cli.push((Bun.nanoseconds() - before) / 1e6);
      if (run.exitCode !== 0) throw new Error(`baton inbox exited ${run.exitCode}: ${run.stderr.toString()}`);
    }
    line("`baton inbox --json` wall (median of 3)", `${median(cli).toFixed(0)} ms`, undefined);

    // Without snapshots: every session read from its checkpoint + tail.
    for (const ref of store.listSessions({ all: true }).sessions) store.updateMeta(ref, ({ attention: _dropped, ...meta }) => meta);
    const cold = once();
    const coldRuns = Array.from({ length: Math.min(rounds, 3) }, once);
    if (cold.rows !== built.waiting) throw new Error(`expected ${built.waiting} waiting sessions without snapshots, listed ${cold.rows}`);
    line("no snapshots: checkpoint + tail (first)", `${cold.ms.toFixed(1)} ms`, undefined);
    line("no snapshots: checkpoint + tail (median)", `${median(coldRuns.map((run) => run.ms)).toFixed(1)} ms`, undefined);

  } finally {
    if (process.argv.includes("--keep")) console.log(`kept ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
