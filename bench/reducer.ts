/**
 * Projection reducer benchmark (architecture §8, issue #18): `node_modules/.bin/bun bench/reducer.ts
 * [--events N] [--rounds N] [--against <checkout>]`.
 *
 * Builds the shared realistic ledger (bench/_fixture.ts: 100,000 events, ~92 % streamed chunks, `raw`
 * kept) through the real append path, reads its lines back, then alternates in one process, `--rounds`
 * times (default 7, at least 7 counted for the verdicts):
 * - the floor: `JSON.parse` + envelope decode of every line (what any open must pay);
 * - the fold: `reduceStored` over the decoded events (what an open without a checkpoint adds).
 *   Both as a load runs them (src/store/ledger-load.ts): the lines in batches of 256 KiB, each batch decoded,
 *   then folded at once, so the fold reads events decoded a moment before. The fold over events decoded once
 *   at the start and aged through the rounds' collections — what this bench timed until 12-04, which no
 *   open does (its objects are out of cache: 33.2 against 25.0 ms on 12-04) — is printed beside it for comparison;
 * - with `--against <dir>`: the same fold by the reducer of another checkout (e.g. `/work/main`), to
 *   A/B an optimisation; its output must equal this one's (a plain-JSON comparison) or the bench fails.
 * Then streams 20,000 chunks (messages of 60) into a live turn on the 100k state and reports the
 * per-chunk reduce latency (p50/p99, and the p50 of the first chunk of each message, which creates it),
 * alternated with `--against`'s reducer on its own state. Each figure: median and spread (min–max) over
 * the rounds.
 *
 * `--decoder-floor`: instead, the least a byte-level decoder of chunk lines written in JavaScript would cost
 * against `JSON.parse` of the same lines — a loop that visits each character (or each byte of the file) once and
 * tracks strings, escapes and nesting, building no value at all (a decoder that checks the line must do at least
 * that). Alternated, `--rounds` rounds. Why the load parses every line with `JSON.parse` (docs/storage.md).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { AnyEvent } from "../src/event/envelope.ts";
import { initialState, plainState, reduceStored, storedProjectionFold, type ProjectionState } from "../src/projection/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createUlidSource, type BatonSessionId } from "../src/shared/ids.ts";
import { openLedger } from "../src/store/ledger.ts";
import { decodeLine } from "../src/store/ledger-read.ts";
import { EVENTS_PER_TURN, turnDrafts } from "./_fixture.ts";

const SESSION = "bs_01KBENCH0000000000000000000" as BatonSessionId;
/** The earlier implementation's figure for 100k events (issue #18), the budget. */
const REDUCE_BUDGET_MS = 92;
const CHUNK_P99_BUDGET_US = 4;
/** Chunks per streamed message in the latency run (the first of each creates the message). */
const CHUNKS_PER_MESSAGE = 60;

type Fold = {
  readonly initial: (id: string) => unknown;
  readonly fold: (state: unknown, event: AnyEvent) => unknown;
  /** How a load runs the fold over many events (`StateFold.batch`), when the checkout has one. */
  readonly batch: <T>(run: () => T) => T;
  readonly plain: (state: unknown) => unknown;
};

const direct = <T>(run: () => T): T => run();

const here: Fold = {
  initial: (id) => initialState(id),
  fold: (state, event) => reduceStored(state as ProjectionState, event),
  batch: storedProjectionFold.batch,
  plain: (state) => plainState(state as ProjectionState),
};

async function foldOf(checkout: string): Promise<Fold> {
  const mod = (await import(path.resolve(checkout, "src/projection/index.ts"))) as {
    initialState: (id: string) => unknown;
    reduceStored?: (state: unknown, event: AnyEvent) => unknown;
    reduce: (state: unknown, event: AnyEvent) => unknown;
    plainState: (state: unknown) => unknown;
    storedProjectionFold?: { batch?: <T>(run: () => T) => T };
  };
  return { initial: mod.initialState, fold: mod.reduceStored ?? mod.reduce, batch: mod.storedProjectionFold?.batch ?? direct, plain: mod.plainState };
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const spread = (values: readonly number[]): string => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;

function line(label: string, value: string, budget?: string, ok?: boolean): void {
  const verdict = budget === undefined ? "(info)" : `budget ${budget}  ${ok ? "OK" : "OVER"}`;
  console.log(`${label.padEnd(44)} ${value.padStart(22)}  ${verdict}`);
}

function decodeAll(lines: readonly string[]): AnyEvent[] {
  return lines.map((text, i) => {
    const decoded = decodeLine(text);
    if (!decoded.ok) throw new Error(`line ${i + 1}: ${decoded.reason}`);
    return decoded.event;
  });
}

/** The load's read size (src/store/ledger-load.ts `LOAD_CHUNK`): lines are decoded and folded this many bytes at a time. */
const LOAD_BYTES = 256 * 1024;

/** `lines` cut into runs of about `LOAD_BYTES` (a line is never split). */
function loadBatches(lines: readonly string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const text of lines) {
    batch.push(text);
    bytes += text.length + 1;
    if (bytes >= LOAD_BYTES) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** As an open without a checkpoint runs: each batch decoded, then folded; the two times apart, and the state. */
function loadLike(fold: Fold, batches: readonly (readonly string[])[]): { parseMs: number; foldMs: number; value: unknown } {
  let parse = 0;
  let reduce = 0;
  const value = fold.batch(() => {
    let state = fold.initial(SESSION);
    for (const batch of batches) {
      const started = Bun.nanoseconds();
      const events = decodeAll(batch);
      const decoded = Bun.nanoseconds();
      for (const event of events) state = fold.fold(state, event);
      reduce += Bun.nanoseconds() - decoded;
      parse += decoded - started;
    }
    return state;
  });
  return { parseMs: parse / 1e6, foldMs: reduce / 1e6, value };
}

/** The stored fold over every event of `events`, as a batch (the events decoded beforehand). */
function foldAll(fold: Fold, events: readonly AnyEvent[]): unknown {
  return fold.batch(() => {
    let state = fold.initial(SESSION);
    for (const event of events) state = fold.fold(state, event);
    return state;
  });
}

function timed<T>(run: () => T): { ms: number; value: T } {
  const started = Bun.nanoseconds();
  const value = run();
  return { ms: (Bun.nanoseconds() - started) / 1e6, value };
}

/** Per-chunk reduce latency on `state`: 20,000 chunks into one live turn, in messages of 60 chunks. */
function chunkLatency(fold: Fold, state: unknown, template: AnyEvent, lastSeq: number): { sorted: Float64Array; first: Float64Array } {
  let live = fold.fold(state, { ...template, kind: "state_update", seq: lastSeq + 1, turnId: "t_live", payload: { state: "running" } } as AnyEvent);
  const samples = new Float64Array(20_000);
  const first = new Float64Array(Math.ceil(samples.length / CHUNKS_PER_MESSAGE));
  // The events are made before the timed loop, so that their garbage is not charged to the reducer. Live events
  // reach the reducer parsed from a harness's JSON, so they go through JSON here too: ids built by template
  // literals would be ropes, flattened by the first comparison inside the timed call.
  let seq = lastSeq + 1;
  const made = Array.from(samples, (_, i) => ({ ...template, seq: ++seq, turnId: "t_live", payload: { messageId: `live_${Math.floor(i / CHUNKS_PER_MESSAGE)}`, content: { type: "text", text: "some streamed words " } } }));
  const events = JSON.parse(JSON.stringify(made)) as AnyEvent[];
  for (let i = 0; i < samples.length; i++) {
    const event = events[i] as AnyEvent;
    const started = Bun.nanoseconds();
    live = fold.fold(live, event);
    samples[i] = (Bun.nanoseconds() - started) / 1e3;
    if (i % CHUNKS_PER_MESSAGE === 0) first[i / CHUNKS_PER_MESSAGE] = samples[i] as number;
  }
  return { sorted: samples.sort(), first: first.sort() };
}

const pct = (sorted: Float64Array, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** One pass over a line's characters tracking strings, escapes and nesting (no values built). */
function scanChars(text: string): number {
  let inString = false;
  let depth = 0;
  let strings = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) {
        inString = false;
        strings++;
      }
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return strings + depth;
}

/** `scanChars` over the bytes [from, to) of the file's buffer. */
function scanBytes(bytes: Uint8Array, from: number, to: number): number {
  let inString = false;
  let depth = 0;
  let strings = 0;
  for (let i = from; i < to; i++) {
    const c = bytes[i] as number;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) {
        inString = false;
        strings++;
      }
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return strings + depth;
}

function decoderFloor(lines: readonly string[], rounds: number): void {
  const bytes = new Uint8Array(Buffer.from(lines.map((text) => `${text}\n`).join(""), "utf8"));
  const chunks: string[] = [];
  const spans: Array<readonly [number, number]> = [];
  let offset = 0;
  for (const text of lines) {
    const length = Buffer.byteLength(text);
    if (text.includes('"kind":"agent_message_chunk"') || text.includes('"kind":"agent_thought_chunk"')) {
      chunks.push(text);
      spans.push([offset, offset + length]);
    }
    offset += length + 1;
  }
  const parseMs: number[] = [];
  const charsMs: number[] = [];
  const bytesMs: number[] = [];
  let sink = 0;
  const runs: ReadonlyArray<readonly [number[], () => void]> = [
    [parseMs, () => { for (const text of chunks) sink += (JSON.parse(text) as { seq: number }).seq; }],
    [charsMs, () => { for (const text of chunks) sink += scanChars(text); }],
    [bytesMs, () => { for (const [from, to] of spans) sink += scanBytes(bytes, from, to); }],
  ];
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < runs.length; k++) {
      const [out, run] = runs[(k + round) % runs.length] as readonly [number[], () => void];
      Bun.gc(true);
      out.push(timed(run).ms);
    }
  }
  const ratio = (values: readonly number[]): string => {
    const ratios = values.map((ms, i) => ms / (parseMs[i] ?? ms));
    return `${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
  };
  line("chunk lines", `${chunks.length}`);
  line("JSON.parse of every chunk line", `${median(parseMs).toFixed(1)} ms (${spread(parseMs)})`);
  line("one JS pass over each line's chars", `${median(charsMs).toFixed(1)} ms (${spread(charsMs)})`);
  line("  ÷ JSON.parse, per round", ratio(charsMs));
  line("one JS pass over each line's bytes", `${median(bytesMs).toFixed(1)} ms (${spread(bytesMs)})`);
  line("  ÷ JSON.parse, per round", ratio(bytesMs));
  if (sink === 0.5) console.log(sink); // keeps the loops' results alive
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args[i + 1];
  };
  const totalEvents = Number(arg("--events") ?? 100_000);
  const rounds = Math.max(1, Number(arg("--rounds") ?? 7));
  const against = arg("--against");
  const other = against === undefined ? undefined : await foldOf(against);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-reducer-"));
  let lines: string[];
  try {
    const file = path.join(dir, "session.jsonl");
    const ledger = openLedger({ path: file, batonSessionId: SESSION, clock: systemClock, ids: createUlidSource() });
    for (let turn = 0; turn < Math.max(1, Math.round(totalEvents / EVENTS_PER_TURN)); turn++) for (const draft of turnDrafts(turn)) ledger.append(draft);
    await ledger.close();
    lines = fs.readFileSync(file, "utf8").split("\n").filter((text) => text !== "");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const bytes = lines.reduce((sum, text) => sum + text.length + 1, 0);
  line("events", `${lines.length}`);
  line("ledger size", `${(bytes / 1e6).toFixed(1)} MB`);
  line("rounds (alternated, median and min–max)", `${rounds}`);
  if (args.includes("--decoder-floor")) {
    decoderFloor(lines, rounds);
    return;
  }

  const events = decodeAll(lines);
  const batches = loadBatches(lines);
  const parseMs: number[] = [];
  const reduceMs: number[] = [];
  const agedMs: number[] = [];
  const otherMs: number[] = [];
  let state: unknown;
  for (let round = 0; round < rounds; round++) {
    // A/B in alternating order (ABBA…): whichever folds second in a round is not favoured by warm caches.
    const runOurs = (): void => {
      Bun.gc(true);
      const ours = loadLike(here, batches);
      parseMs.push(ours.parseMs);
      reduceMs.push(ours.foldMs);
      state = ours.value;
    };
    const runTheirs = (fold: Fold): void => {
      Bun.gc(true);
      const theirs = loadLike(fold, batches);
      otherMs.push(theirs.foldMs);
      if (otherMs.length === 1 && JSON.stringify(fold.plain(theirs.value)) !== JSON.stringify(here.plain(foldAll(here, events)))) {
        throw new Error(`the reducer of ${against} folds these events into another state: not an A/B of the same output`);
      }
    };
    if (other !== undefined && round % 2 === 1) runTheirs(other);
    runOurs();
    if (other !== undefined && round % 2 === 0) runTheirs(other);
    Bun.gc(true);
    agedMs.push(timed(() => foldAll(here, events)).ms);
  }
  const parse = median(parseMs);
  const reduce = median(reduceMs);
  line("floor: JSON.parse + decode of every line", `${parse.toFixed(1)} ms (${spread(parseMs)})`);
  line(`reduce ${lines.length} events (as a load: 256 KiB batches)`, `${reduce.toFixed(1)} ms (${spread(reduceMs)})`, `${REDUCE_BUDGET_MS} ms`, reduce <= REDUCE_BUDGET_MS);
  line("  per event", `${((reduce * 1000) / lines.length).toFixed(2)} µs`);
  line("  over events decoded at the start (aged)", `${median(agedMs).toFixed(1)} ms (${spread(agedMs)})`);
  const ratios = parseMs.map((ms, i) => (ms + (reduceMs[i] ?? 0)) / ms);
  const openRatio = median(ratios);
  line("parse + reduce ÷ parse (open, no checkpoint)", `${openRatio.toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`, "1.2×", openRatio <= 1.2);
  if (other !== undefined) {
    const perRound = reduceMs.map((ms, i) => ms / (otherMs[i] ?? ms));
    line(`  reduce by ${against}`, `${median(otherMs).toFixed(1)} ms (${spread(otherMs)})`);
    line("  this ÷ that, per round", `${median(perRound).toFixed(2)}× (${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)})`);
  }

  const template = events.find((event) => event.kind === "agent_message_chunk");
  if (template === undefined) throw new Error("no chunk in the fixture");
  const lastSeq = events.at(-1)?.seq ?? 0;
  const p50s: number[] = [];
  const p99s: number[] = [];
  const firstP50s: number[] = [];
  const otherP50s: number[] = [];
  const otherP99s: number[] = [];
  const otherFirstP50s: number[] = [];
  // The other checkout's state is folded by its own reducer (its shape may differ).
  const otherState = other === undefined ? undefined : foldAll(other, events);
  for (let round = 0; round < rounds; round++) {
    const runOurs = (): void => {
      Bun.gc(true);
      const { sorted, first } = chunkLatency(here, state, template, lastSeq);
      p50s.push(pct(sorted, 0.5));
      p99s.push(pct(sorted, 0.99));
      firstP50s.push(pct(first, 0.5));
    };
    const runTheirs = (fold: Fold): void => {
      Bun.gc(true);
      const { sorted, first } = chunkLatency(fold, otherState, template, lastSeq);
      otherP50s.push(pct(sorted, 0.5));
      otherFirstP50s.push(pct(first, 0.5));
      otherP99s.push(pct(sorted, 0.99));
    };
    if (other !== undefined && round % 2 === 1) runTheirs(other);
    runOurs();
    if (other !== undefined && round % 2 === 0) runTheirs(other);
  }
  line("reduce one chunk on the 100k state, p50", `${median(p50s).toFixed(2)} µs (${spread(p50s)})`);
  line("  the first chunk of a message, p50", `${median(firstP50s).toFixed(2)} µs (${spread(firstP50s)})`);
  line("reduce one chunk on the 100k state, p99", `${median(p99s).toFixed(2)} µs (${spread(p99s)})`, `${CHUNK_P99_BUDGET_US} µs`, median(p99s) <= CHUNK_P99_BUDGET_US);
  if (other !== undefined) {
    line(`  by ${against}, p50`, `${median(otherP50s).toFixed(2)} µs (${spread(otherP50s)})`);
    line(`  by ${against}, first chunk p50`, `${median(otherFirstP50s).toFixed(2)} µs (${spread(otherFirstP50s)})`);
    line(`  by ${against}, p99`, `${median(otherP99s).toFixed(2)} µs (${spread(otherP99s)})`);
    const ratios = p99s.map((us, i) => us / (otherP99s[i] ?? us));
    line("  p99 this ÷ that, per round", `${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`);
  }
  const over = [reduce > REDUCE_BUDGET_MS, openRatio > 1.2, median(p99s) > CHUNK_P99_BUDGET_US].filter(Boolean).length;
  console.log(`summary: reducer ${over === 0 ? "OK" : `${over} of 3 figures OVER budget`}`);
}

await main();
