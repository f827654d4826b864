/**
 * Ledger benchmark (architecture §8, issue #18):
 * `node_modules/.bin/bun bench/ledger.ts [--events N] [--rounds N] [--keep] [--open-only] [--against <checkout>]`.
 *
 * `--rounds N` (default 7, at least 7 for the verdicts): each round runs every open mode once, each in a fresh
 * process, in an order that alternates from round to round; figures are the median and spread (min–max) of the
 * rounds, ratios are taken per round (both sides measured in the same round) and then their median.
 * Open modes: the floor (read the ledger, split it, `JSON.parse` every line: what any open must pay), the
 * store's open without a checkpoint (ledger read + checks + the projection fold, `loadState`), with a
 * checkpoint (digest checked, or deferred as the TUI does), and the real open path — process start to session
 * ready through `createAppContext` + `openSessionIn`, as `baton exec` opens a session — on an empty session and
 * on the 100k session with and without a checkpoint.
 *
 * Builds a realistic ledger in a temp dir — 100,000 events over 200 turns, ~1 KB each with `raw`
 * kept (~100 MB), ~92 % agent_message_chunk/agent_thought_chunk, the rest tool_call_update
 * (200–2,000 char outputs), plan_update, usage_update, _baton_turn_summary and state_update — then
 * measures, each open in a fresh child process so the build does not pollute its memory:
 * open to a ready projection with a checkpoint (its ledger digest checked during the open, or after
 * it as the TUI does) and without, peak RSS, append + reduce per streamed event (each draft made just before it),
 * first append after open, fsync'd durable append (these in `--rounds` fresh processes on the same ledger and
 * checkpoint: median and spread), and the background checkpoint write. The appends stream after the tables' indexes
 * were read ahead, as an opened session does in the background (src/app/read-ahead.ts); each round also streams them
 * right after the open, the indexes still on disk (`appends-cold`), for comparison.
 *
 * `--open-only`: only the figures of the open without a checkpoint — the floor (and, for information, the floor with
 * Bun's JSONL parser, the one the load uses), the store's open and the real open
 * path on the 100k and on an empty session — alternated in fresh processes (nothing else runs, so the rounds are
 * close together). `--against <checkout>` (e.g. `/tmp/base` at main) adds that checkout's store open and real open
 * of the same session to every round (its own `bench/ledger.ts --child`), so this code and that are A/B'd in one
 * run: per-round ratios to the same round's floor and to each other.
 *
 * Then bytes per turn with the real agents (issue 12.14, `bench/_turn-bytes.ts`): a trivial turn and a turn with
 * a `--prompt-kib N` (default 2048) prompt through `baton exec` on each harness. `--turn-bytes` runs only this part;
 * `--no-agents` skips it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { AnyEvent } from "../src/event/envelope.ts";
import { initialState, readIndexes, reduce, storedProjectionFold, type ProjectionState } from "../src/projection/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createUlidSource, type BatonSessionId, type TurnId } from "../src/shared/ids.ts";
import { createSessionStore } from "../src/store/index.ts";
import { LineFramer } from "../src/shared/jsonl.ts";
import { loadState, writeCheckpoint, type StateFold } from "../src/store/checkpoint.ts";
import { openLedger, type Ledger } from "../src/store/ledger.ts";
import { readLines } from "../src/store/ledger-lines.ts";
import { threadCpu } from "./_proc.ts";
import { chunkDraft, EVENTS_PER_TURN, turnDrafts } from "./_fixture.ts";
import { BenchReport, samples as spreadOf, withSpread } from "./_report.ts";
import { printTurnBytes } from "./_turn-bytes.ts";

/** Switch to false to bench with a trivial fold instead of the real projection reducer. */
const USE_REAL_REDUCER = true;

/** The bench session's id: minted by the store in the parent, passed to each child. */
let SESSION = "bs_01KBENCH0000000000000000000" as BatonSessionId;
/** Rounds of opens (every mode once per round, each in a fresh process); `--rounds N`. */
let ROUNDS = 7;
/** Issue #18: an open without a checkpoint costs at most this many times the read + parse floor. */
const OPEN_FLOOR_BUDGET = 1.2;

interface CountState {
  readonly lastSeq: number;
  readonly count: number;
}

const projectionFold: StateFold<ProjectionState> = { ...storedProjectionFold, initial: () => initialState(SESSION) };
const report = new BenchReport("ledger");
const countFold: StateFold<CountState> = {
  version: "bench-count/1",
  initial: () => ({ lastSeq: 0, count: 0 }),
  fold: (state, event) => ({ lastSeq: event.seq, count: state.count + 1 }),
};
// Both folds are used through this one (structurally compatible) handle.
const FOLD = (USE_REAL_REDUCER ? projectionFold : countFold) as StateFold<unknown>;

// ---------- measurement helpers ----------

function peakRssMb(): number {
  try {
    const status = fs.readFileSync("/proc/self/status", "utf8");
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    if (match?.[1]) return Number(match[1]) / 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024;
}

function percentile(sorted: ArrayLike<number>, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/** A figure with a budget (`limit` in the figure's unit, lower is better) or, without one, information. */
function line(label: string, value: string, budget?: string, ok?: boolean, ratio?: number): void {
  if (budget === undefined) report.info(label, value);
  else report.figure(label, value, budget, ratio ?? (ok === true ? 1 : Number.POSITIVE_INFINITY));
}

function open(file: string, readOnly = false): Ledger {
  return openLedger({ path: file, batonSessionId: SESSION, clock: systemClock, ids: createUlidSource(), readOnly });
}

// ---------- child: open in a fresh process ----------

interface OpenReport {
  readonly openSeconds: number;
  /** `deferred` mode: the asynchronous check of the checkpoint's ledger digest, after the open. */
  readonly verifySeconds?: number;
  readonly verifyProblem?: string;
  readonly fromCheckpoint: boolean;
  readonly replayed: number;
  readonly peakRssMb: number;
  readonly baselineRssMb: number;
  readonly firstAppendUs?: number;
  /** Append and reduce, as the session pipeline does, of drafts made one by one (as a harness's parser makes them). */
  readonly appendMeanUs?: number;
  readonly appendP50Us?: number;
  readonly appendP99Us?: number;
  /** The ledger's share of that: `ledger.append` alone. */
  readonly ledgerP50Us?: number;
  readonly ledgerP99Us?: number;
  /** Append and reduce of drafts all made before the loop (out of cache by their turn, as no harness hands them). */
  readonly agedP99Us?: number;
  /** Append and reduce of the first chunk of each message (it creates the message: ~1 chunk in 58). */
  readonly firstChunkP50Us?: number;
  readonly durableMeanMs?: number;
  /** `appends`: the tables' indexes read ahead after the open, as an opened session does in the background. */
  readonly readAheadRecords?: number;
  readonly readAheadMs?: number;
  /** CPU time of the open on the main thread, and on the runtime's other threads (JIT compilers, GC markers), ms. */
  readonly mainCpuMs?: number;
  readonly otherCpuMs?: number;
}

/** The CPU of the work since `before` (a `threadCpu()`), ms: the main thread's and the other threads'. */
function cpuSince(before: { readonly main: number; readonly all: number }): { readonly mainCpuMs: number; readonly otherCpuMs: number } {
  const after = threadCpu();
  const main = after.main - before.main;
  return { mainCpuMs: main / 1e6, otherCpuMs: (after.all - before.all - main) / 1e6 };
}

/** The floor: read the ledger, split it, `JSON.parse` every line — nothing an open could leave out. */
function floorChild(file: string): void {
  const cpu = threadCpu();
  const started = Bun.nanoseconds();
  let lines = 0;
  for (const text of fs.readFileSync(file, "utf8").split("\n")) {
    if (text === "") continue;
    JSON.parse(text);
    lines++;
  }
  const openSeconds = (Bun.nanoseconds() - started) / 1e9;
  console.log(JSON.stringify({ openSeconds, ...cpuSince(cpu), replayed: lines, fromCheckpoint: false, peakRssMb: peakRssMb(), baselineRssMb: 0 }));
}

/** The floor with the parser the load uses: Bun's JSONL parser over reads of 256 KiB (what no check or fold adds to). */
function jsonlFloorChild(file: string): void {
  const cpu = threadCpu();
  const started = Bun.nanoseconds();
  const fd = fs.openSync(file, "r");
  const size = fs.fstatSync(fd).size;
  let buffer = Buffer.allocUnsafe(256 * 1024);
  let position = 0;
  let held = 0;
  let lines = 0;
  while (position < size) {
    if (held === buffer.byteLength) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.byteLength)]);
    const got = fs.readSync(fd, buffer, held, buffer.byteLength - held, position);
    position += got;
    const filled = held + got;
    const lastNl = buffer.lastIndexOf(0x0a, filled - 1);
    if (lastNl === -1) {
      held = filled;
      continue;
    }
    lines += Bun.JSONL.parseChunk(buffer, 0, lastNl + 1).values.length;
    held = filled - lastNl - 1;
    buffer.copyWithin(0, lastNl + 1, filled);
  }
  fs.closeSync(fd);
  const openSeconds = (Bun.nanoseconds() - started) / 1e9;
  console.log(JSON.stringify({ openSeconds, ...cpuSince(cpu), replayed: lines, fromCheckpoint: false, peakRssMb: peakRssMb(), baselineRssMb: 0 }));
}

/**
 * The real open path, as `baton exec` takes it: from process start (`performance.now()` counts from it) through
 * loading the app's modules, the config, the store and `openSessionIn` to a session ready for its turn.
 */
async function appChild(id: string): Promise<void> {
  const { createProcessIo } = await import("../src/app/process-io.ts");
  const { createAppContext, openSessionIn, withResolvedHome } = await import("../src/app/app-context.ts");
  const { io } = createProcessIo();
  const ctx = createAppContext(withResolvedHome(io));
  const session = await openSessionIn(ctx, { kind: "id", id }, { generateTitles: false });
  const openSeconds = performance.now() / 1000;
  const peak = peakRssMb();
  const loaded = session.loaded;
  await session.close();
  console.log(JSON.stringify({ openSeconds, fromCheckpoint: loaded.fromCheckpoint, replayed: loaded.replayed, peakRssMb: peak, baselineRssMb: 0 }));
}

async function child(mode: string, file: string): Promise<void> {
  if (mode === "floor") return floorChild(file);
  if (mode === "floor-jsonl") return jsonlFloorChild(file);
  if (mode.startsWith("app-")) return appChild(file);
  const turnId = "t_01KBENCHAPPEND00000000000000" as TurnId;
  const appends = mode === "appends" || mode === "appends-cold";
  if (appends) {
    // Warm the append path (JIT, schema compilation) on a scratch ledger, so the first append on
    // the big one shows only what depends on the ledger: nothing is re-read.
    const scratch = open(path.join(path.dirname(file), "scratch.jsonl"));
    for (let i = 0; i < 5000; i++) scratch.append(chunkDraft(9998, turnId, i % 2 === 0, 0));
    await scratch.close();
  }
  Bun.gc(true);
  const baselineRssMb = peakRssMb();
  const fold = mode === "full" ? { ...FOLD, version: "bench-no-checkpoint" } : FOLD;
  const cpu = threadCpu();
  const started = Bun.nanoseconds();
  const ledger = open(file);
  const loaded = loadState(ledger, fold, { verify: mode === "deferred" ? "deferred" : "sync" });
  const openSeconds = (Bun.nanoseconds() - started) / 1e9;
  const openCpu = cpuSince(cpu);
  const peak = peakRssMb();
  if (mode === "deferred") {
    const before = Bun.nanoseconds();
    const problem = await loaded.verifyCheckpoint?.();
    const verifySeconds = (Bun.nanoseconds() - before) / 1e9;
    console.log(JSON.stringify({ openSeconds, verifySeconds, ...(problem === undefined ? {} : { verifyProblem: problem }), fromCheckpoint: loaded.fromCheckpoint, replayed: loaded.replayed, peakRssMb: peak, baselineRssMb }));
    return;
  }
  let t = Bun.nanoseconds();
  ledger.append(chunkDraft(9999, turnId, false, 0));
  const firstAppendUs = (Bun.nanoseconds() - t) / 1e3;
  let report: OpenReport = { openSeconds, ...openCpu, fromCheckpoint: loaded.fromCheckpoint, replayed: loaded.replayed, peakRssMb: peak, baselineRssMb, firstAppendUs };
  if (!appends) {
    console.log(JSON.stringify(report));
    return;
  }
  if (mode === "appends" && USE_REAL_REDUCER) {
    // An opened session reads its tables' indexes ahead in the background, half a second after the open
    // (src/app/read-ahead.ts); `appends-cold` streams right after the open instead, with them on disk.
    t = Bun.nanoseconds();
    let records = 0;
    for (const _ of readIndexes(loaded.state as ProjectionState)) records++;
    report = { ...report, readAheadRecords: records, readAheadMs: (Bun.nanoseconds() - t) / 1e6 };
  }
  // Turns appended to the opened session, each event reduced as the session pipeline does (append → reduce), the
  // streamed chunks timed; then durable appends. The turns are the fixture's (500 events: messages of 57-58 chunks,
  // tool calls, plans), each draft made just before its append, untimed, as a harness's parser hands one over: a fresh
  // object. Drafts all made before the loop are out of cache by their turn (≈ 20 MB of them); that figure is info.
  const TURNS = 40;
  const reduceLive = USE_REAL_REDUCER ? (state: unknown, event: AnyEvent) => reduce(state as ProjectionState, event) : FOLD.fold;
  let state: unknown = loaded.state;
  const samples: number[] = [];
  const ledgerOnly: number[] = [];
  const firstChunks: number[] = [];
  const messages = new Set<string>();
  const streamedKind = (draft: { readonly kind: string }): boolean => draft.kind === "agent_message_chunk" || draft.kind === "agent_thought_chunk";
  const firstTurn = Math.ceil(ledger.lastSeq / EVENTS_PER_TURN) + 10;
  for (let turn = firstTurn; turn < firstTurn + TURNS; turn++) {
    for (const draft of turnDrafts(turn)) {
      const before = Bun.nanoseconds();
      const event = ledger.append(draft);
      const appended = Bun.nanoseconds();
      state = reduceLive(state, event);
      if (!streamedKind(draft)) continue;
      samples.push((Bun.nanoseconds() - before) / 1e3);
      ledgerOnly.push((appended - before) / 1e3);
      const messageId = (draft.payload as { readonly messageId: string }).messageId;
      if (!messages.has(messageId)) firstChunks.push(samples.at(-1) as number);
      messages.add(messageId);
    }
  }
  const aged = Array.from({ length: TURNS }, (_, k) => [...turnDrafts(firstTurn + TURNS + k)]).flat();
  const agedSamples: number[] = [];
  for (const draft of aged) {
    const before = Bun.nanoseconds();
    state = reduceLive(state, ledger.append(draft));
    if (streamedKind(draft)) agedSamples.push((Bun.nanoseconds() - before) / 1e3);
  }
  for (const list of [samples, ledgerOnly, agedSamples, firstChunks]) list.sort((a, b) => a - b);
  const appendMeanUs = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  let durable = 0;
  for (let i = 0; i < 20; i++) {
    t = Bun.nanoseconds();
    await ledger.appendDurable(chunkDraft(9999, turnId, false, 2));
    durable += (Bun.nanoseconds() - t) / 1e6;
  }
  await ledger.close();
  console.log(
    JSON.stringify({
      ...report,
      appendMeanUs,
      appendP50Us: percentile(samples, 0.5),
      appendP99Us: percentile(samples, 0.99),
      ledgerP50Us: percentile(ledgerOnly, 0.5),
      ledgerP99Us: percentile(ledgerOnly, 0.99),
      agedP99Us: percentile(agedSamples, 0.99),
      firstChunkP50Us: percentile(firstChunks, 0.5),
      durableMeanMs: durable / 20,
    }),
  );
}

/** `app`: the environment and directory a user's `baton exec` would run with (the session's project). */
function runChild(mode: string, file: string, app?: { readonly env: Record<string, string>; readonly cwd: string }, script: string = import.meta.path): OpenReport {
  const result = Bun.spawnSync([process.execPath, script, "--child", mode, file, SESSION], { stdout: "pipe", stderr: "inherit", ...(app ?? {}) });
  if (result.exitCode !== 0) throw new Error(`child ${mode} failed with ${result.exitCode}`);
  return JSON.parse(result.stdout.toString().trim().split("\n").at(-1) ?? "{}") as OpenReport;
}

/**
 * `--open-only`: the open without a checkpoint against its floor, alternated in fresh processes, `ROUNDS` rounds in
 * an order rotated from round to round. With `against`, that checkout's store open and real open of the same
 * session run in every round too. Each open may leave a checkpoint (the app writes one at close): removed before
 * every run.
 */
function openOnly(file: string, dir: string, options: { readonly app: { readonly env: Record<string, string>; readonly cwd: string }; readonly empty: string; readonly against: string | undefined }): void {
  const { app, empty, against } = options;
  const otherScript = against === undefined ? undefined : path.join(against, "bench", "ledger.ts");
  if (otherScript !== undefined && !fs.existsSync(otherScript)) throw new Error(`--against: no ${otherScript}`);
  const clean = (): void => {
    for (const name of fs.readdirSync(dir).filter((n) => n.startsWith("checkpoint"))) fs.rmSync(path.join(dir, name), { force: true });
  };
  type Mode = "floor" | "floor-jsonl" | "full" | "app-empty" | "app-full" | "base-full" | "base-app-empty" | "base-app-full";
  const modes: Mode[] = ["floor", "floor-jsonl", "full", "app-empty", "app-full"];
  if (otherScript !== undefined) modes.push("base-full", "base-app-empty", "base-app-full");
  const runs = Object.fromEntries(modes.map((mode) => [mode, [] as OpenReport[]])) as Record<Mode, OpenReport[]>;
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < modes.length; k++) {
      const mode = modes[(k + round) % modes.length] as Mode;
      clean();
      const base = mode.startsWith("base-");
      const childMode = base ? mode.slice("base-".length) : mode;
      const script = base ? (otherScript as string) : import.meta.path;
      const target = childMode === "app-empty" ? empty : childMode === "app-full" ? SESSION : file;
      runs[mode].push(runChild(childMode, target, childMode.startsWith("app-") ? app : undefined, script));
    }
  }
  clean();
  if (modes.some((mode) => !mode.startsWith("floor") && mode.endsWith("full") && runs[mode].some((r) => r.fromCheckpoint))) throw new Error("an open without a checkpoint used one");
  const seconds = (mode: Mode, round: number): number => runs[mode][round]!.openSeconds;
  const ms = (mode: Mode) => spreadOf(runs[mode].map((r) => r.openSeconds * 1000));
  const perRound = (ratio: (round: number) => number) => spreadOf(Array.from({ length: ROUNDS }, (_, round) => ratio(round)));
  const times = (s: ReturnType<typeof spreadOf>) => `${s.median.toFixed(2)}× (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
  line("rounds (fresh processes, order rotated)", `${ROUNDS}`);
  line("floor: read + split + JSON.parse of every line", withSpread(ms("floor"), "ms"));
  line("open without a checkpoint (read, checks, fold)", withSpread(ms("full"), "ms"));
  line("  peak RSS (no checkpoint)", withSpread(spreadOf(runs.full.map((r) => r.peakRssMb)), "MB"));
  const fullRatio = perRound((round) => seconds("full", round) / seconds("floor", round));
  line("open without a checkpoint ÷ floor, per round", times(fullRatio), `${OPEN_FLOOR_BUDGET}×`, undefined, fullRatio.median / OPEN_FLOOR_BUDGET);
  // CPU time does not count the time a thread waited for a core (six other people share the two): steadier.
  const cpuOf = (mode: Mode, round: number, part: "mainCpuMs" | "otherCpuMs"): number => runs[mode][round]![part] ?? NaN;
  const cpuLine = (mode: Mode, label: string): void => {
    line(`  ${label}: CPU main thread / other threads`, `${withSpread(spreadOf(runs[mode].map((r) => r.mainCpuMs ?? NaN)), "")} / ${withSpread(spreadOf(runs[mode].map((r) => r.otherCpuMs ?? NaN)), "ms")}`);
  };
  cpuLine("floor", "floor");
  cpuLine("full", "open");
  line("floor with Bun's JSONL parser (the load's parser, 256 KiB reads)", withSpread(ms("floor-jsonl"), "ms"));
  line("  open ÷ that floor, per round: what the checks and the fold add", times(perRound((round) => seconds("full", round) / seconds("floor-jsonl", round))));
  line("  open ÷ floor, CPU of all threads, per round", times(perRound((round) => (cpuOf("full", round, "mainCpuMs") + cpuOf("full", round, "otherCpuMs")) / (cpuOf("floor", round, "mainCpuMs") + cpuOf("floor", round, "otherCpuMs")))));
  line("app open (process start → session ready), empty", withSpread(ms("app-empty"), "ms"));
  line("app open, 100k without a checkpoint", withSpread(ms("app-full"), "ms"));
  const appRatio = perRound((round) => (seconds("app-full", round) - seconds("app-empty", round)) / seconds("floor", round));
  line("  (that − empty) ÷ floor, per round", times(appRatio), `${OPEN_FLOOR_BUDGET}×`, undefined, appRatio.median / OPEN_FLOOR_BUDGET);
  if (against === undefined) return;
  line(`against ${against}: open without a checkpoint`, withSpread(ms("base-full"), "ms"));
  line("  its open ÷ floor, per round", times(perRound((round) => seconds("base-full", round) / seconds("floor", round))));
  line("  this open ÷ its open, per round", times(perRound((round) => seconds("full", round) / seconds("base-full", round))));
  if (runs["base-full"].every((r) => r.mainCpuMs !== undefined)) {
    cpuLine("base-full", "its open");
    line("  this open ÷ its open, CPU of all threads, per round", times(perRound((round) => (cpuOf("full", round, "mainCpuMs") + cpuOf("full", round, "otherCpuMs")) / (cpuOf("base-full", round, "mainCpuMs") + cpuOf("base-full", round, "otherCpuMs")))));
  }
  line(`against ${against}: app open, empty`, withSpread(ms("base-app-empty"), "ms"));
  line(`against ${against}: app open, 100k without a checkpoint`, withSpread(ms("base-app-full"), "ms"));
  line("  its (that − empty) ÷ floor, per round", times(perRound((round) => (seconds("base-app-full", round) - seconds("base-app-empty", round)) / seconds("floor", round))));
  line("  this app open ÷ its, 100k, per round", times(perRound((round) => seconds("app-full", round) / seconds("base-app-full", round))));
}

// ---------- parent ----------

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const eventsArg = args.indexOf("--events");
  const totalEvents = eventsArg === -1 ? 100_000 : Number(args[eventsArg + 1]);
  const roundsArg = args.indexOf("--rounds");
  if (roundsArg !== -1) ROUNDS = Math.max(1, Number(args[roundsArg + 1]));
  const turns = Math.max(1, Math.round(totalEvents / EVENTS_PER_TURN));
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-"));
  // The session lives in a real store (a temp BATON_HOME), so that the app can open it as `baton exec` does.
  const home = path.join(base, "home");
  const project = path.join(base, "project");
  fs.mkdirSync(project, { recursive: true });
  const store = createSessionStore({ home, clock: systemClock, ids: createUlidSource() });
  const ref = store.createSession({ cwd: project });
  const empty = store.createSession({ cwd: project });
  SESSION = ref.batonSessionId;
  const dir = ref.paths.dir;
  const file = ref.paths.ledger;
  const app = { env: { ...(process.env as Record<string, string>), HOME: base, BATON_HOME: home }, cwd: project };
  console.log(`fold: ${USE_REAL_REDUCER ? "real projection reducer (src/projection)" : "trivial count fold"}; dir ${dir}`);
  try {
    // Build through the real append path (no listeners), timing every append.
    const ledger = open(file);
    // Streamed chunks (what the 10 µs budget is for) and the other kinds apart: a user message or a turn summary
    // is validated whole and may be kilobytes, a few percent of the events but most of the p99.
    const samples = new Float64Array(turns * EVENTS_PER_TURN);
    const streamed = new Float64Array(turns * EVENTS_PER_TURN);
    let n = 0;
    let s = 0;
    const buildStart = Bun.nanoseconds();
    for (let turn = 0; turn < turns; turn++) {
      for (const draft of turnDrafts(turn)) {
        const before = Bun.nanoseconds();
        ledger.append(draft);
        const us = (Bun.nanoseconds() - before) / 1e3;
        samples[n++] = us;
        if (draft.kind === "agent_message_chunk" || draft.kind === "agent_thought_chunk") streamed[s++] = us;
      }
    }
    const buildSeconds = (Bun.nanoseconds() - buildStart) / 1e9;
    const built = samples.subarray(0, n).sort();
    const builtStreamed = streamed.subarray(0, s).sort();
    const mean = built.reduce((sum, value) => sum + value, 0) / n;
    line("ledger built", `${n} events`, undefined);
    line("ledger size", `${(ledger.byteLength / 1e6).toFixed(1)} MB`, undefined);
    line("  bytes per event", `${Math.round(ledger.byteLength / n)}`, undefined);
    line("  build wall time (incl. drafts)", `${buildSeconds.toFixed(2)} s`, undefined);
    line("append during build, every kind (mean)", `${mean.toFixed(2)} µs`, "10 µs", mean <= 10, mean / 10);
    line("  every kind (p99)", `${percentile(built, 0.99).toFixed(2)} µs`, undefined);
    line(`append during build, streamed chunks (p99 of ${s})`, `${percentile(builtStreamed, 0.99).toFixed(2)} µs`, "10 µs", percentile(builtStreamed, 0.99) <= 10, percentile(builtStreamed, 0.99) / 10);
    if (args.includes("--open-only")) {
      await ledger.close();
      const againstArg = args.indexOf("--against");
      openOnly(file, dir, { app, empty: empty.batonSessionId, against: againstArg === -1 ? undefined : path.resolve(args[againstArg + 1] ?? "") });
      return;
    }

    // Line splitting: byte splitter used by the store vs. the shared LineFramer (decoded strings).
    // Each runs three times, alternating, and the best run counts (JIT warm-up, a shared machine).
    const fd = fs.openSync(file, "r");
    const splitWithStore = (): number => {
      let count = 0;
      for (const raw of readLines(fd, 0, ledger.byteLength, 1)) count += raw.text.length > 0 ? 1 : 0;
      return count;
    };
    const splitWithFramer = (): number => {
      const framer = new LineFramer();
      const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
      let count = 0;
      for (let position = 0; ; ) {
        const got = fs.readSync(fd, buffer, 0, buffer.byteLength, position);
        if (got === 0) break;
        position += got;
        count += framer.push(buffer.subarray(0, got)).length;
      }
      return count;
    };
    let bytesSplit = Infinity;
    let framerSplit = Infinity;
    for (let round = 0; round < 3; round++) {
      let t = Bun.nanoseconds();
      const count = splitWithStore();
      bytesSplit = Math.min(bytesSplit, (Bun.nanoseconds() - t) / 1e9);
      t = Bun.nanoseconds();
      const framed = splitWithFramer();
      framerSplit = Math.min(framerSplit, (Bun.nanoseconds() - t) / 1e9);
      if (count !== framed) throw new Error(`splitters disagree: ${count} vs ${framed}`);
    }
    fs.closeSync(fd);
    line("split lines: store (with offsets)", `${bytesSplit.toFixed(3)} s`, undefined);
    line("split lines: LineFramer (no offsets)", `${framerSplit.toFixed(3)} s`, undefined);

    // Fold everything once (as the live session would have), then write the checkpoint in the
    // background while measuring the longest event-loop stall it causes.
    let t = Bun.nanoseconds();
    const loaded = loadState(ledger, FOLD);
    line("full replay in the build process", `${((Bun.nanoseconds() - t) / 1e9).toFixed(3)} s`, undefined);
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 1);
    t = Bun.nanoseconds();
    await writeCheckpoint(ledger, FOLD, loaded.state, loaded.position);
    const checkpointSeconds = (Bun.nanoseconds() - t) / 1e9;
    clearInterval(ticker);
    const checkpointBytes = fs.statSync(path.join(dir, "checkpoint.jsonl")).size;
    line("checkpoint write (background)", `${checkpointSeconds.toFixed(3)} s`, undefined);
    line("  checkpoint size", `${(checkpointBytes / 1e6).toFixed(1)} MB`, undefined);
    line("  longest event-loop stall", `${longestGap.toFixed(1)} ms`, undefined);

    // One more turn after the checkpoint, as after a normal turn end: the open replays this tail.
    for (const draft of turnDrafts(turns)) ledger.append(draft);
    await ledger.close();

    // Each open runs in a fresh process; every round runs every mode once, in an order rotated from round to
    // round (no mode always follows the same one). Before each, the session is put back as built: the ledger at
    // its length, the checkpoint there or not (an app open writes one when it closes).
    const ledgerBytes = fs.statSync(file).size;
    const pristine = path.join(base, "pristine");
    fs.mkdirSync(pristine);
    const isCheckpointFile = (name: string): boolean => name.startsWith("checkpoint");
    for (const name of fs.readdirSync(dir).filter(isCheckpointFile)) fs.copyFileSync(path.join(dir, name), path.join(pristine, name));
    const prepare = (withCheckpoint: boolean): void => {
      fs.truncateSync(file, ledgerBytes);
      for (const name of fs.readdirSync(dir).filter(isCheckpointFile)) fs.rmSync(path.join(dir, name), { force: true });
      if (withCheckpoint) for (const name of fs.readdirSync(pristine)) fs.copyFileSync(path.join(pristine, name), path.join(dir, name));
    };
    type Mode = "floor" | "full" | "checkpoint" | "deferred" | "app-empty" | "app-full" | "app-checkpoint";
    const modes: readonly Mode[] = ["floor", "full", "checkpoint", "deferred", "app-empty", "app-full", "app-checkpoint"];
    const runs = Object.fromEntries(modes.map((mode) => [mode, [] as OpenReport[]])) as Record<Mode, OpenReport[]>;
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < modes.length; k++) {
        const mode = modes[(k + round) % modes.length] as Mode;
        prepare(mode === "checkpoint" || mode === "deferred" || mode === "app-checkpoint");
        if (mode === "app-empty") runs[mode].push(runChild(mode, empty.batonSessionId, app));
        else if (mode.startsWith("app-")) runs[mode].push(runChild(mode, SESSION, app));
        else runs[mode].push(runChild(mode, file));
      }
    }
    prepare(true);
    const withCheckpoint = runs.checkpoint[0]!;
    if (![...runs.checkpoint, ...runs.deferred, ...runs["app-checkpoint"]].every((r) => r.fromCheckpoint)) throw new Error("the checkpoint was not used");
    if ([...runs.full, ...runs["app-full"]].some((r) => r.fromCheckpoint)) throw new Error("an open without a checkpoint used one");
    if (runs.deferred.some((r) => r.verifyProblem !== undefined)) throw new Error(`the checkpoint did not verify: ${runs.deferred[0]?.verifyProblem}`);
    const ms = (mode: Mode) => spreadOf(runs[mode].map((r) => r.openSeconds * 1000));
    const perRound = (ratio: (round: number) => number) => spreadOf(Array.from({ length: ROUNDS }, (_, round) => ratio(round)));
    const seconds = (mode: Mode, round: number) => runs[mode][round]!.openSeconds;
    const times = (s: ReturnType<typeof spreadOf>) => `${s.median.toFixed(2)}× (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
    const openSync = ms("checkpoint");
    const openDeferred = ms("deferred");
    line(`open (checkpoint, digest checked)`, withSpread(openSync, "ms"), "200 ms", undefined, openSync.median / 200);
    line(`open (checkpoint, check deferred)`, withSpread(openDeferred, "ms"), "200 ms", undefined, openDeferred.median / 200);
    line("  deferred digest check (async, after open)", withSpread(spreadOf(runs.deferred.map((r) => (r.verifySeconds ?? 0) * 1000)), "ms"));
    line("  tail events replayed", `${withCheckpoint.replayed}`);
    const peakSync = spreadOf(runs.checkpoint.map((r) => r.peakRssMb));
    line("peak RSS after open (checkpoint)", withSpread(peakSync, "MB"), "150 MB", undefined, peakSync.median / 150);
    line("  RSS of the bare process", `${withCheckpoint.baselineRssMb.toFixed(0)} MB`);
    line("floor: read + split + JSON.parse of every line", withSpread(ms("floor"), "ms"));
    line("open without a checkpoint (read, checks, fold)", withSpread(ms("full"), "ms"));
    line("  peak RSS (no checkpoint)", withSpread(spreadOf(runs.full.map((r) => r.peakRssMb)), "MB"));
    const fullRatio = perRound((round) => seconds("full", round) / seconds("floor", round));
    line("open without a checkpoint ÷ floor, per round", times(fullRatio), `${OPEN_FLOOR_BUDGET}×`, undefined, fullRatio.median / OPEN_FLOOR_BUDGET);
    line("app open (process start → session ready), empty", withSpread(ms("app-empty"), "ms"));
    line("app open, 100k with a checkpoint", withSpread(ms("app-checkpoint"), "ms"));
    line("app open, 100k without a checkpoint", withSpread(ms("app-full"), "ms"));
    // What the 100k session adds to the app's own start, against the floor of reading it, in the same round.
    const appRatio = perRound((round) => (seconds("app-full", round) - seconds("app-empty", round)) / seconds("floor", round));
    line("  (that − empty) ÷ floor, per round", times(appRatio), `${OPEN_FLOOR_BUDGET}×`, undefined, appRatio.median / OPEN_FLOOR_BUDGET);

    line("  first append, cold process", `${((withCheckpoint.firstAppendUs ?? 0) / 1000).toFixed(2)} ms`, undefined);
    // The appends, ROUNDS times, each in a fresh process on the same ledger and checkpoint (the tail each run adds is cut off).
    // Alternated with the same appends right after the open, the indexes still on disk (`appends-cold`).
    const appendRuns: OpenReport[] = [];
    const coldRuns: OpenReport[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const cold of round % 2 === 0 ? [false, true] : [true, false]) {
        prepare(true);
        fs.rmSync(path.join(dir, "scratch.jsonl"), { force: true });
        (cold ? coldRuns : appendRuns).push(runChild(cold ? "appends-cold" : "appends", file));
      }
    }
    prepare(true);
    const appendFigure = (figure: string, of: (r: OpenReport) => number | undefined, unit: "µs" | "ms", budget?: number, budgetText?: string): void => {
      const spread = spreadOf(appendRuns.map((r) => of(r) ?? NaN));
      const value = withSpread(spread, unit, unit === "ms" ? 2 : 1);
      if (budget === undefined) line(figure, value, undefined);
      else line(figure, value, budgetText ?? `${budget} ${unit}`, spread.median <= budget, spread.median / budget);
    };
    appendFigure("first append after open (warm)", (r) => r.firstAppendUs, "µs", 1000, "1000 µs (no re-read)");
    appendFigure("append + reduce per streamed event (mean)", (r) => r.appendMeanUs, "µs", 10);
    appendFigure("append + reduce per streamed event (p50)", (r) => r.appendP50Us, "µs", 10);
    appendFigure("append + reduce per streamed event (p99)", (r) => r.appendP99Us, "µs", 10);
    line("  right after the open, indexes on disk (p99)", withSpread(spreadOf(coldRuns.map((r) => r.appendP99Us ?? NaN)), "µs", 1), undefined);
    line("  the first chunk of a message then (p50)", withSpread(spreadOf(coldRuns.map((r) => r.firstChunkP50Us ?? NaN)), "µs", 1), undefined);
    line("  indexes read ahead, in the background", `${appendRuns[0]?.readAheadRecords ?? 0} records, ${withSpread(spreadOf(appendRuns.map((r) => r.readAheadMs ?? NaN)), "ms", 1)}`, undefined);
    appendFigure("  the ledger's append alone (p50)", (r) => r.ledgerP50Us, "µs");
    appendFigure("  the ledger's append alone (p99)", (r) => r.ledgerP99Us, "µs");
    appendFigure("  the first chunk of a message (p50)", (r) => r.firstChunkP50Us, "µs");
    appendFigure("  drafts made before the loop, out of cache (p99)", (r) => r.agedP99Us, "µs");
    appendFigure("durable append (fdatasync)", (r) => r.durableMeanMs, "ms");
  } finally {
    if (!args.includes("--keep")) fs.rmSync(base, { recursive: true, force: true });
  }
}

async function turnBytes(): Promise<void> {
  const args = process.argv.slice(2);
  const kibArg = args.indexOf("--prompt-kib");
  console.log("bytes per turn (real baton exec against the mock model servers)");
  await printTurnBytes(kibArg === -1 ? 2048 : Number(args[kibArg + 1]), line);
}

if (process.argv[2] === "--child") {
  SESSION = (process.argv[5] ?? SESSION) as BatonSessionId;
  await child(process.argv[3] ?? "checkpoint", process.argv[4] ?? "");
} else {
  if (!process.argv.includes("--turn-bytes")) await main();
  if (!process.argv.includes("--no-agents")) await turnBytes();
  report.summary();
}
