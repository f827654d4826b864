/**
 * Baton's per-turn overhead on Claude Code (issue #18): the same scripted text turns against the mock Anthropic
 * API, driven (a) through the Agent SDK's streaming query() directly, with the options the adapter uses; (b)
 * through the Claude adapter alone; (c) through all of Baton (controller, ledger with its fsync before dispatch,
 * projection, adapter) on a session that already holds `--events` events. Baton's window ends when the
 * background work its turn started (turn-end hook, checkpoint) has finished. The order of the three flips every
 * turn, so each sees the same load; medians and spreads over the turns after a warm-up.
 * Budget (architecture §8): Baton adds ≤ 5 % or ≤ 10 ms per warm turn.
 *
 *   node_modules/.bin/bun bench/claude-overhead.ts [--turns 20] [--events 100000]
 */
import { query, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { parseArgs } from "node:util";
import { ClaudeAdapter } from "../src/harness/claude/adapter.ts";
import { claudeDefinition } from "../src/harness/claude/definition.ts";
import { bundledClaudePath } from "../src/harness/claude/executable.ts";
import { makeClaudeEnv } from "../tests/support/claude-env.ts";
import { ClaudeHost } from "../tests/support/claude-host.ts";
import { startMockAnthropic } from "../tests/support/mock-anthropic/client.ts";
import { reply } from "../tests/support/mock-anthropic/script.ts";
import { openRealSession } from "../tests/support/session-host.ts";
import { turnDrafts } from "./_fixture.ts";
import { BenchReport, samples, withSpread } from "./_report.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { turns: { type: "string" }, events: { type: "string" } } });
const TURNS = Number(values.turns ?? 20);
const EVENTS = Number(values.events ?? 100_000);
const WARMUP = 2;
const TURN_BUDGET = { ratio: 1.05, ms: 10 } as const;
const ANSWER = "The quick brown fox jumps over the lazy dog. ".repeat(6);

const report = new BenchReport("claude-overhead");
const mock = await startMockAnthropic();
const directEnv = makeClaudeEnv({ baseUrl: mock.url });
const adapterEnv = makeClaudeEnv({ baseUrl: mock.url });
const batonEnv = makeClaudeEnv({ baseUrl: mock.url });
try {
  // (a) the SDK directly
  const pending: ((message: SDKUserMessage) => void)[] = [];
  const queued: SDKUserMessage[] = [];
  async function* input(): AsyncGenerator<SDKUserMessage> {
    for (;;) yield queued.shift() ?? (await new Promise<SDKUserMessage>((resolve) => pending.push(resolve)));
  }
  const executable = bundledClaudePath();
  const q = query({
    prompt: input(),
    options: {
      cwd: directEnv.cwd,
      env: directEnv.env,
      ...(executable ? { pathToClaudeCodeExecutable: executable } : {}),
      includePartialMessages: true,
      systemPrompt: { type: "preset", preset: "claude_code" },
      settingSources: ["user", "project", "local"],
      canUseTool: async (_tool, toolInput) => ({ behavior: "allow", updatedInput: toolInput }),
    },
  });
  const iterator = q[Symbol.asyncIterator]();
  const direct = async (text: string): Promise<number> => {
    const start = performance.now();
    const message = { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null } as SDKUserMessage;
    const waiter = pending.shift();
    if (waiter) waiter(message);
    else queued.push(message);
    for (;;) {
      const { value, done } = await iterator.next();
      if (done) throw new Error("the SDK stream ended");
      if (value.type === "result") break;
    }
    return performance.now() - start;
  };

  // (b) the adapter alone
  const host = new ClaudeHost();
  const adapter = new ClaudeAdapter({ env: adapterEnv.env });
  const handle = await adapter.open(host.openOptions(adapterEnv.cwd, adapterEnv.env), host.sink, host.binding);
  const viaAdapter = async (text: string): Promise<number> => {
    const start = performance.now();
    const prompt = host.prompt(text);
    await adapter.sendTurn(handle, prompt);
    await host.waitForIdle(prompt.turnId, 30_000);
    return performance.now() - start;
  };

  // (c) all of Baton, on a long session (written, closed with its checkpoint, opened again)
  const first = await openRealSession({ definitions: [claudeDefinition], cwd: batonEnv.cwd, env: batonEnv.env, settings: { generateTitles: false } });
  let count = 0;
  for (let turn = 0; count < EVENTS; turn++) {
    for (const draft of turnDrafts(turn)) {
      first.session.controller.pipeline.append(draft as never);
      count++;
    }
  }
  const sessionId = first.session.ref.batonSessionId;
  await first.session.close();
  const { session, cleanup } = await openRealSession({ definitions: [claudeDefinition], cwd: batonEnv.cwd, env: batonEnv.env, settings: { generateTitles: false }, home: first.home, choice: { kind: "id", id: sessionId } });
  const viaBaton = async (text: string): Promise<number> => {
    const start = performance.now();
    await session.controller.submit("claude", [{ type: "text", text }]);
    // What the turn left running (turn-end hook, checkpoint, meta.json, log, trace) is inside this window.
    await session.backgroundSettled();
    return performance.now() - start;
  };

  const times = { direct: [] as number[], adapter: [] as number[], baton: [] as number[] };
  const cold = { direct: 0, adapter: 0, baton: 0 };
  const sides = [["direct", direct], ["adapter", viaAdapter], ["baton", viaBaton]] as const;
  for (let i = 0; i < WARMUP + TURNS; i++) {
    for (const [name, run] of i % 2 === 0 ? sides : [...sides].reverse()) {
      await mock.script(reply.text(ANSWER, { chunkSize: 24 }));
      const ms = await run(`question ${i}`);
      if (i === 0) cold[name] = ms;
      if (i >= WARMUP) times[name].push(ms);
    }
  }
  q.close();
  await adapter.close(handle);
  await cleanup();
  await first.cleanup().catch(() => undefined);

  const added = samples(times.baton.map((ms, i) => ms - (times.direct[i] as number)));
  const ratio = samples(times.baton.map((ms, i) => ms / (times.direct[i] as number)));
  const k = `${Math.round(EVENTS / 1000)}k`;
  report.info("cold start (turn 1): direct / adapter / Baton", `${cold.direct.toFixed(0)} / ${cold.adapter.toFixed(0)} / ${cold.baton.toFixed(0)} ms`);
  report.info(`SDK directly, per warm turn (${TURNS} turns)`, withSpread(samples(times.direct), "ms", 1));
  report.info("  Claude adapter alone", withSpread(samples(times.adapter), "ms", 1));
  report.info(`  all of Baton, ${k}-event session, incl. background`, withSpread(samples(times.baton), "ms", 1));
  report.info("  Baton ÷ direct, per turn", `${ratio.median.toFixed(3)}× (${ratio.min.toFixed(3)}–${ratio.max.toFixed(3)})`);
  const within = Math.min(added.median / TURN_BUDGET.ms, (ratio.median - 1) / (TURN_BUDGET.ratio - 1));
  report.figure("Baton adds per warm turn (≤ 10 ms or ≤ 5 %)", withSpread(added, "ms", 1), "10 ms | 5 %", within);
} finally {
  await mock.stop();
  directEnv.cleanup();
  adapterEnv.cleanup();
  batonEnv.cleanup();
}
process.exit(report.summary() ? 0 : 1);
