/**
 * Main-thread stalls while a turn streams (issue #18): the longest gap of a 4 ms timer in the process that runs
 * the Controller and the TUI, on a 100k-event session, with the answer's chunks arriving at ~1 kHz.
 *
 * The process is set up like `baton -s <id>`: the session (bench/_fixture.ts events) is written and closed, then
 * opened again as the TUI opens it (checkpoint, history verified after the first frame), with the Baton screen
 * mounted (TuiHost + chat-tui in OpenTUI's test renderer, 120x40) and a frame drawn every 33 ms (the renderer's 30
 * FPS). A scripted harness streams `--chunks` chunks, one per millisecond, then ends the turn; the timer keeps
 * running for `--after` ms past the turn's end, so the work Baton does at and after turn end (summary, meta,
 * checkpoint) is inside the window. Several turns run per process (`--turns`), and processes alternate
 * (`--rounds`), each turn a sample. Budget: no gap over 8 ms, streaming or after the turn. After each process, as
 * many bare Bun processes that run only the timer for a turn's window give the machine's idle floor (info lines).
 *
 * Each gap also says how much of it the main thread ran and how much it waited, runnable, for a CPU (Linux
 * `/proc/thread-self/schedstat`, read at every tick): on this two-core VM a long gap is often the machine's, not
 * Baton's, and the info lines say which (the verdict is the gap itself, as the budget says). `--threads` also says,
 * for each of the longest gaps, what every thread of the process ran in it (`bench/_threads.ts`; it reads ~20 files
 * at each tick, so it is off by default).
 *
 * As the TUI does after its first frame, the process runs the runtime's helper threads (JIT compilers, the
 * highlighter's worker) below its main thread (src/app/helper-threads.ts); `--helpers keep` leaves them as they are.
 *
 * What streams (`--text`): `markdown` (default) is an answer as agents write one — paragraphs of 30–70 words, a
 * bullet list, a fenced code block — a token (a word or a piece of markup) per chunk; `line` is one paragraph with
 * no line break that grows to ~12 KB (1500 chunks), a stress case: OpenTUI's markdown re-lexes the trailing block
 * at each publication and marked's setext-heading regex leaves JSC's regex JIT on a paragraph over ~5 KB.
 *
 *   node_modules/.bin/bun bench/stall.ts [--rounds 3] [--turns 3] [--chunks 1500] [--events 100000] [--after 1500] [--text markdown|line] [--threads] [--helpers lower|keep]
 *   node_modules/.bin/bun --cpu-prof bench/stall.ts --child …   (one process, prints JSON; profile it)
 */
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readSync } from "node:fs";
import { parseArgs } from "node:util";
import { screenHost } from "./_screen-host.ts";
import { fakeDefinition, type FakeAction } from "../tests/support/fake-adapter.ts";
import { makeTestHome, openTestSession } from "../tests/support/session-host.ts";
import { turnDrafts } from "./_fixture.ts";
import { BenchReport, samples, withSpread } from "./_report.ts";
import { markdownPieces } from "./_markdown-text.ts";
import { describeThreads, ThreadAccounting, type ThreadSample } from "./_threads.ts";

const BUDGET_MS = 8;
const TIMER_MS = 4;
const FRAME_MS = 33;

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    child: { type: "boolean" },
    rounds: { type: "string" },
    turns: { type: "string" },
    chunks: { type: "string" },
    events: { type: "string" },
    after: { type: "string" },
    text: { type: "string" },
    threads: { type: "boolean" },
    helpers: { type: "string" },
    "idle-child": { type: "boolean" },
  },
});
const TURNS = Number(values.turns ?? 3);
const CHUNKS = Number(values.chunks ?? 1500);
const EVENTS = Number(values.events ?? 100_000);
const AFTER_MS = Number(values.after ?? 1500);
const TEXT = values.text ?? "markdown";
if (TEXT !== "markdown" && TEXT !== "line") throw new Error(`--text: "${TEXT}" is neither markdown nor line`);
const HELPERS = values.helpers ?? "lower";
if (HELPERS !== "lower" && HELPERS !== "keep") throw new Error(`--helpers: "${HELPERS}" is neither lower nor keep`);

interface TurnResult {
  readonly streamingMax: number;
  readonly streamingP99: number;
  readonly afterMax: number;
  /** The longest gaps with what the process was doing: `12.3 ms streaming@812 ms`. */
  readonly worst: readonly string[];
  /** Of the turn's longest gap: ms the main thread ran, and ms it waited for a CPU. */
  readonly longestRan: number;
  readonly longestWaited: number;
  /** The most the main thread ran within one gap, ms. */
  readonly mostRan: number;
  readonly chunksPerSecond: number;
  /** The longest gaps as [end, length] in epoch ms, to find them in a `--cpu-prof` profile (its times are epoch µs). */
  readonly worstEpoch: readonly (readonly [number, number])[];
}

/** The calling thread's time on a CPU and time runnable but waiting for one, ns; undefined where Linux's schedstat is not. */
class ThreadSched {
  private readonly fd: number | undefined;
  private readonly buffer = Buffer.alloc(96);

  constructor() {
    let fd: number | undefined;
    try {
      fd = openSync("/proc/thread-self/schedstat", "r");
    } catch {
      fd = undefined;
    }
    this.fd = fd;
  }

  read(): { readonly run: number; readonly wait: number } | undefined {
    if (this.fd === undefined) return undefined;
    const n = readSync(this.fd, this.buffer, 0, this.buffer.length, 0);
    const [run, wait] = this.buffer.toString("latin1", 0, n).split(" ");
    return { run: Number(run), wait: Number(wait) };
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }
}

interface Gap {
  readonly ms: number;
  readonly at: number;
  readonly phase: string;
  /** Of the gap: ms the main thread ran, and ms it waited for a CPU (NaN without schedstat). */
  readonly runMs: number;
  readonly waitMs: number;
  /** With `--threads`: what each thread of the process ran in the gap. */
  readonly threads?: string;
}

/** Records every gap of a 4 ms interval, the phase it ended in and what the main thread did in it. */
class GapProbe {
  private last = performance.now();
  private readonly sched = new ThreadSched();
  private lastSched = this.sched.read();
  private readonly accounting = values.threads === true ? ThreadAccounting.open() : undefined;
  private lastThreads: ThreadSample | undefined = this.accounting?.sample();
  private readonly timer: ReturnType<typeof setInterval>;
  readonly gaps: Gap[] = [];
  phase = "idle";

  constructor(private readonly origin: number) {
    this.timer = setInterval(() => {
      const now = performance.now();
      const sched = this.sched.read();
      const before = this.lastSched;
      const runMs = sched === undefined || before === undefined ? NaN : (sched.run - before.run) / 1e6;
      const waitMs = sched === undefined || before === undefined ? NaN : (sched.wait - before.wait) / 1e6;
      const threads = this.accounting?.sample();
      const ran = threads !== undefined && this.lastThreads !== undefined ? describeThreads(this.accounting!.between(this.lastThreads, threads)) : undefined;
      this.gaps.push({ ms: now - this.last, at: now - this.origin, phase: this.phase, runMs, waitMs, ...(ran === undefined ? {} : { threads: ran }) });
      this.last = now;
      this.lastSched = sched;
      this.lastThreads = threads;
    }, TIMER_MS);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sched.close();
    this.accounting?.close();
  }
}

/** `12.3 ms streaming@812 (ran 5.1, waited 6.0)`, with `--threads` `… [main 5.1, JITWorker 4.0]` */
function describeGap(gap: Gap): string {
  const split = Number.isNaN(gap.runMs) ? "" : ` (ran ${gap.runMs.toFixed(1)}, waited ${gap.waitMs.toFixed(1)})`;
  return `${gap.ms.toFixed(1)} ms ${gap.phase}@${gap.at.toFixed(0)}${split}${gap.threads === undefined ? "" : ` [${gap.threads}]`}`;
}

/** One answer per turn (its own message id), `chunks` chunks one millisecond apart. */
function streamScript(turns: number, chunks: number): FakeAction[][] {
  const pieces = TEXT === "line" ? Array.from({ length: chunks }, (_, i) => `word${i} `) : markdownPieces(chunks);
  return Array.from({ length: turns }, (_, t) => {
    const turn: FakeAction[] = [];
    for (const text of pieces) {
      turn.push({ type: "emit", draft: { kind: "agent_message_chunk", payload: { messageId: `m_stream_${t}`, content: { type: "text", text } } } });
      turn.push({ type: "wait", ms: 1 });
    }
    turn.push({ type: "end" });
    return turn;
  });
}

async function child(): Promise<TurnResult[]> {
  // React's production build, loaded the way the CLI loads the TUI (src/app/react-build.ts; BATON_REACT_DEVELOPMENT=1
  // keeps the development build). The screen is mounted with createRoot on OpenTUI's test renderer, as start-tui.tsx
  // mounts it on the real one: no act(), which exists only in the development build.
  const { loadWithReactProduction, loadedReactBuild } = await import("../src/app/react-build.ts");
  const [{ createElement }, { createRoot }, { createTestRenderer }, { BatonApp }] = await loadWithReactProduction(() =>
    Promise.all([import("react"), import("@opentui/react"), import("@opentui/core/testing"), import("../src/tui/index.ts")]),
  );
  process.stderr.write(`stall child: React ${loadedReactBuild()} build\n`);

  const home = makeTestHome();
  const definitions = [fakeDefinition({ turns: streamScript(TURNS, CHUNKS) }, "fake")];
  // Write the session, close it (checkpoint), open it again the way the TUI does.
  const writer = await openTestSession(home, { definitions });
  let count = 0;
  for (let turn = 0; count < EVENTS; turn++) {
    for (const draft of turnDrafts(turn)) {
      writer.controller.pipeline.append(draft as never);
      count++;
    }
  }
  const id = writer.ref.batonSessionId;
  await writer.close();
  const session = await openTestSession(home, { definitions, choice: { kind: "id", id }, verifyCheckpoint: "deferred", settings: { generateTitles: false } });
  const host = await screenHost(session, home.cwd);
  const setup = await createTestRenderer({ width: 120, height: 40, exitOnCtrlC: false });
  const root = createRoot(setup.renderer);
  root.render(createElement(BatonApp, { host }));
  await Bun.sleep(0);
  await setup.renderOnce();
  await session.verifyHistory();
  const { lowerHelperThreads } = await import("../src/app/helper-threads.ts");
  const helpers = HELPERS === "lower" ? lowerHelperThreads((reason) => process.stderr.write(`stall child: helper threads keep their priority: ${reason}\n`)) : undefined;
  let rendering = false;
  const frames = setInterval(() => {
    if (rendering) return;
    rendering = true;
    void setup.renderOnce().finally(() => (rendering = false));
  }, FRAME_MS);
  await Bun.sleep(500);

  const results: TurnResult[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    Bun.gc(true);
    const origin = performance.now();
    const probe = new GapProbe(origin);
    probe.phase = "streaming";
    const started = performance.now();
    await session.controller.submit("fake", [{ type: "text", text: `stream ${turn}` }]);
    const streamedMs = performance.now() - started;
    probe.phase = "after";
    await Bun.sleep(AFTER_MS);
    probe.stop();
    const streaming = probe.gaps.filter((gap) => gap.phase === "streaming").map((gap) => gap.ms);
    const after = probe.gaps.filter((gap) => gap.phase === "after").map((gap) => gap.ms);
    const sorted = [...streaming].sort((a, b) => a - b);
    const worst = [...probe.gaps].sort((a, b) => b.ms - a.ms).slice(0, 5);
    results.push({
      streamingMax: Math.max(...streaming),
      streamingP99: sorted[Math.floor(sorted.length * 0.99)] ?? NaN,
      afterMax: Math.max(...after),
      worst: worst.map(describeGap),
      longestRan: worst[0]?.runMs ?? NaN,
      longestWaited: worst[0]?.waitMs ?? NaN,
      mostRan: Math.max(...probe.gaps.map((gap) => gap.runMs)),
      chunksPerSecond: CHUNKS / (streamedMs / 1000),
      worstEpoch: worst.map((gap) => [performance.timeOrigin + origin + gap.at, gap.ms] as const),
    });
  }
  clearInterval(frames);
  helpers?.stop();
  root.unmount();
  setup.renderer.destroy();
  host.dispose();
  await session.close();
  home.cleanup();
  return results;
}

/**
 * The machine's floor: a bare Bun process that does nothing but the 4 ms timer, for as long as a turn's window. On a
 * shared two-core VM its longest gap is already several milliseconds; the stall figures read against it.
 */
async function idleChild(): Promise<{ readonly max: number; readonly p99: number }> {
  const gaps: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, TIMER_MS);
  await Bun.sleep(CHUNKS * 1.3 + AFTER_MS);
  clearInterval(timer);
  const sorted = [...gaps].sort((a, b) => a - b);
  return { max: sorted.at(-1) ?? NaN, p99: sorted[Math.floor(sorted.length * 0.99)] ?? NaN };
}

async function main(): Promise<void> {
  if (values["idle-child"] === true) {
    process.stdout.write(`${JSON.stringify(await idleChild())}\n`);
    process.exit(0);
  }
  if (values.child === true) {
    process.stdout.write(`${JSON.stringify(await child())}\n`);
    process.exit(0);
  }
  const rounds = Number(values.rounds ?? 3);
  const report = new BenchReport("stall");
  process.stdout.write(`Main-thread stalls while streaming: ${Math.round(EVENTS / 1000)}k-event session, ${CHUNKS} chunks at ~1 kHz (${TEXT}), ${TURNS} turns × ${rounds} processes, ${TIMER_MS} ms timer, helper threads ${HELPERS === "lower" ? "lowered" : "kept"}\n\n`);
  const turns: TurnResult[] = [];
  const idle: { max: number; p99: number }[] = [];
  for (let round = 0; round < rounds; round++) {
    const args = [import.meta.path, "--child", "--turns", String(TURNS), "--chunks", String(CHUNKS), "--events", String(EVENTS), "--after", String(AFTER_MS), "--text", TEXT, "--helpers", HELPERS, ...(values.threads === true ? ["--threads"] : [])];
    const run = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    const line = run.stdout.trim().split("\n").at(-1) ?? "";
    if (run.status !== 0 || !line.startsWith("[")) throw new Error(`stall child failed (${run.status}):\n${run.stderr.slice(-2000)}`);
    turns.push(...(JSON.parse(line) as TurnResult[]));
    // The idle floor, alternated with the rounds: one bare process per turn.
    for (let t = 0; t < TURNS; t++) {
      const bare = spawnSync(process.execPath, [import.meta.path, "--idle-child", "--chunks", String(CHUNKS), "--after", String(AFTER_MS)], { encoding: "utf8" });
      if (bare.status !== 0) throw new Error(`idle child failed (${bare.status}):\n${bare.stderr.slice(-2000)}`);
      idle.push(JSON.parse(bare.stdout.trim().split("\n").at(-1) ?? "{}") as { max: number; p99: number });
    }
  }
  const streaming = samples(turns.map((t) => t.streamingMax));
  const after = samples(turns.map((t) => t.afterMax));
  report.info("chunks per second reached", withSpread(samples(turns.map((t) => t.chunksPerSecond)), "/s"));
  const p99 = samples(turns.map((t) => t.streamingP99));
  report.figure("4 ms timer gap while streaming, p99 per turn", withSpread(p99, "ms", 1), `${BUDGET_MS} ms`, p99.max / BUDGET_MS);
  report.figure("longest 4 ms timer gap while streaming (per turn)", withSpread(streaming, "ms", 1), `${BUDGET_MS} ms`, streaming.max / BUDGET_MS);
  report.figure("longest gap at and after turn end (per turn)", withSpread(after, "ms", 1), `${BUDGET_MS} ms`, after.max / BUDGET_MS);
  if (turns.every((t) => !Number.isNaN(t.longestRan))) {
    report.info("  of each turn's longest gap: the main thread ran", withSpread(samples(turns.map((t) => t.longestRan)), "ms", 1));
    report.info("  and waited, runnable, for a CPU", withSpread(samples(turns.map((t) => t.longestWaited)), "ms", 1));
    report.info("most the main thread ran within one gap (per turn)", withSpread(samples(turns.map((t) => t.mostRan)), "ms", 1));
  }
  report.info("idle floor: longest 4 ms timer gap, bare Bun process (per run)", withSpread(samples(idle.map((r) => r.max)), "ms", 1));
  report.info("idle floor: 4 ms timer gap p99 (per run)", withSpread(samples(idle.map((r) => r.p99)), "ms", 1));
  for (const [i, t] of turns.entries()) process.stdout.write(`  turn ${i + 1}: ${t.worst.join(", ")}\n`);
  process.exit(report.summary() ? 0 : 1);
}

await main();
