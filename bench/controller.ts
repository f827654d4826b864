/**
 * Controller overhead: a fake harness streams 10,000 chunk events per turn. Prints the added latency
 * per event (append + reduce + publish: the time one sink.emit takes through the controller) and per
 * turn versus driving the same fake directly with a no-op sink.
 * Budgets (architecture §8): p99 ≤ 2 ms per event; ≤ 5 % per turn.
 *   bun bench/controller.ts [turns=5] [chunks=10000]
 */
import { z } from "zod";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSession } from "../src/app/open-session.ts";
import { DEFAULT_CONTROLLER_SETTINGS } from "../src/controller/ports.ts";
import type { Capabilities } from "../src/harness/capabilities.ts";
import type { BindingSink, EventSink, HarnessAdapter, HarnessHandle, HarnessOpenOptions, PromptInput, SendTurnResult } from "../src/harness/contract.ts";
import type { HarnessDefinition } from "../src/harness/definition.ts";
import { HarnessRegistry } from "../src/harness/registry.ts";
import { createSessionStore } from "../src/store/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createUlidSource, type HandleId } from "../src/shared/ids.ts";

const TURNS = Number(process.argv[2] ?? 5);
const CHUNKS = Number(process.argv[3] ?? 10_000);
/** Chunks per millisecond the fake model produces: 10/ms = 10,000 tokens/s, far faster than a real model. */
const PACE = Number(process.env["BENCH_PACE"] ?? 10);
const emitTimes: number[] = [];

class StreamingAdapter implements HarnessAdapter {
  readonly capabilities: Capabilities = {};
  private sink: EventSink | undefined;
  private options: HarnessOpenOptions | undefined;
  onTerminal: (() => void) | undefined;

  async open(options: HarnessOpenOptions, sink: EventSink, binding: BindingSink): Promise<HarnessHandle> {
    this.sink = sink;
    this.options = options;
    binding.publishIdentity({ harnessSessionId: "bench", resumeState: { version: 1, data: {} }, fresh: true });
    return { id: options.ids.mint("handle") as HandleId };
  }

  async sendTurn(_handle: HarnessHandle, input: PromptInput): Promise<SendTurnResult> {
    void this.stream(input);
    return { accepted: true, effective: "new_turn" };
  }

  private async stream(input: PromptInput): Promise<void> {
    const sink = this.sink!;
    const messageId = this.options!.ids.mint("message");
    const text = "token ".repeat(3);
    // A model streams on its own clock: chunk i is due at start + i / PACE ms, whatever the client does.
    const start = performance.now();
    for (let i = 0; i < CHUNKS; i++) {
      const emitStart = performance.now();
      sink.emit({ kind: "agent_message_chunk", payload: { messageId, content: { type: "text", text } }, turnId: input.turnId });
      emitTimes.push(performance.now() - emitStart);
      if (i % PACE === PACE - 1) {
        const wait = start + (i + 1) / PACE - performance.now();
        await new Promise((resolve) => (wait >= 1 ? setTimeout(resolve, Math.floor(wait)) : setImmediate(resolve)));
      }
    }
    sink.emit({ kind: "agent_message", payload: { messageId, content: [{ type: "text", text: text.repeat(CHUNKS) }] }, turnId: input.turnId });
    sink.emit({ kind: "state_update", payload: { state: "idle", stopReason: "end_turn" }, turnId: input.turnId });
    this.onTerminal?.();
  }

  async cancel(): Promise<void> {}
  async close(): Promise<void> {}
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function direct(): Promise<number[]> {
  const times: number[] = [];
  const ids = createUlidSource();
  for (let t = 0; t < TURNS; t++) {
    const adapter = new StreamingAdapter();
    const handle = await adapter.open(
      { targetId: "bench", cwd: process.cwd(), env: {}, interactions: { request: async () => ({ outcome: "cancelled", reason: "user" }) }, ids, clock: systemClock, log: { log() {}, child() { return this; } } },
      { emit() {} },
      { publishIdentity() {} },
    );
    const done = new Promise<void>((resolve) => (adapter.onTerminal = resolve));
    const start = performance.now();
    await adapter.sendTurn(handle, { turnId: ids.mint("turn"), messageId: ids.mint("message"), blocks: [{ type: "text", text: "go" }] });
    await done;
    times.push(performance.now() - start);
  }
  return times;
}

async function throughController(): Promise<number[]> {
  const base = mkdtempSync(path.join(os.tmpdir(), "baton-bench-controller-"));
  const definition: HarnessDefinition = {
    id: "bench", aliases: [], label: "Bench", sessionKey: "bench", shortName: "bench", color: "#fff", settingsSchema: z.strictObject({}), capabilities: {},
    create: () => new StreamingAdapter(),
    probeExecutable: async () => ({ ok: true, argv: ["bench"], source: "built-in" }),
  };
  const ids = createUlidSource();
  const session = await openSession({
    store: createSessionStore({ home: path.join(base, "home"), clock: systemClock, ids }),
    registry: new HarnessRegistry([definition]),
    cwd: base, choice: { kind: "new" }, clock: systemClock, ids, env: {},
    settings: DEFAULT_CONTROLLER_SETTINGS, logLevel: "warn",
  });
  const times: number[] = [];
  try {
    for (let t = 0; t < TURNS; t++) {
      const start = performance.now();
      await session.controller.submit("bench", [{ type: "text", text: `turn ${t}` }]);
      times.push(performance.now() - start);
    }
  } finally {
    await session.close();
    rmSync(base, { recursive: true, force: true });
  }
  return times;
}

const directTimes = await direct();
const directEmit = [...emitTimes];
emitTimes.length = 0;
const controllerTimes = await throughController();
const median = (values: number[]) => percentile(values, 50);
const perEvent = { p50: percentile(emitTimes, 50), p99: percentile(emitTimes, 99), max: Math.max(...emitTimes) };
const perEventDirect = { p50: percentile(directEmit, 50), p99: percentile(directEmit, 99) };
const turnDirect = median(directTimes);
const turnController = median(controllerTimes);
const added = turnController - turnDirect;
const ratio = added / turnDirect;

const fmt = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
console.log(`controller overhead — ${TURNS} turns × ${CHUNKS} chunk events, fake model streaming ${PACE} chunks/ms`);
console.log(`per event through controller (append+reduce+publish): p50 ${fmt(perEvent.p50)}  p99 ${fmt(perEvent.p99)}  max ${fmt(perEvent.max)}  budget p99 2000 µs  ${perEvent.p99 <= 2 ? "OK" : "OVER"}`);
console.log(`per event, direct no-op sink:                         p50 ${fmt(perEventDirect.p50)}  p99 ${fmt(perEventDirect.p99)}`);
console.log(`per turn: direct ${turnDirect.toFixed(1)} ms, through Baton ${turnController.toFixed(1)} ms, added ${added.toFixed(1)} ms = ${(ratio * 100).toFixed(1)} %  budget 5 %  ${ratio <= 0.05 ? "OK" : "OVER"}`);
const cpu = emitTimes.reduce((a, b) => a + b, 0) / TURNS;
console.log(`CPU inside the controller per turn: ${cpu.toFixed(1)} ms (${fmt(cpu / CHUNKS)} per event) (it overlaps the model streaming; it would only add up if the model were faster than Baton)`);
