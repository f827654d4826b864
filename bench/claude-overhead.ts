/**
 * Baton's per-turn overhead on Claude Code (issue #18): the same scripted text turns against the mock Anthropic
 * API, driven (a) through the Agent SDK's streaming query() directly, with the options the adapter uses; (b)
 * through the Claude adapter alone; (c) through all of Baton (controller, ledger with its fsync before dispatch,
 * projection, adapter) on a session that already holds `--events` events. Baton's window ends when the
 * background work its turn started (turn-end hook, checkpoint, meta.json, log) has finished. `--pairs` alternated
 * pairs of `--turns`-turn blocks per side after a warm-up pair (bench/_turn-pairs.ts); with `--against`, that
 * checkout's Baton on a copy of the same session is a side too (A/B in the same run).
 * Budget (architecture §8): Baton adds ≤ 5 % or ≤ 10 ms per warm turn.
 *
 *   node_modules/.bin/bun bench/claude-overhead.ts [--pairs 9] [--turns 5] [--events 100000] [--against /work/main]
 */
import { query, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { OpenedSession } from "../src/app/open-session.ts";
import { ClaudeAdapter } from "../src/harness/claude/adapter.ts";
import { claudeDefinition } from "../src/harness/claude/definition.ts";
import { bundledClaudePath } from "../src/harness/claude/executable.ts";
import { makeClaudeEnv } from "../tests/support/claude-env.ts";
import { ClaudeHost } from "../tests/support/claude-host.ts";
import { startMockAnthropic } from "../tests/support/mock-anthropic/client.ts";
import { reply } from "../tests/support/mock-anthropic/script.ts";
import { openRealSession } from "../tests/support/session-host.ts";
import { turnDrafts } from "./_fixture.ts";
import { BenchReport } from "./_report.ts";
import { againstRoot, reportTurnPairs, runTurnPairs, type TurnSide } from "./_turn-pairs.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { pairs: { type: "string" }, turns: { type: "string" }, events: { type: "string" }, against: { type: "string" } } });
const PAIRS = Number(values.pairs ?? 9);
const TURNS = Number(values.turns ?? 5);
const EVENTS = Number(values.events ?? 100_000);
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
  const batonSide = (name: string, session: OpenedSession): TurnSide => ({
    name,
    async turn(text) {
      const start = performance.now();
      await session.controller.submit("claude", [{ type: "text", text }]);
      // What the turn left running (turn-end hook, checkpoint, meta.json, log, trace) is inside this window.
      await session.backgroundSettled();
      return performance.now() - start;
    },
  });
  const cleanups: (() => Promise<void>)[] = [];
  const here = await openRealSession({ definitions: [claudeDefinition], cwd: batonEnv.cwd, env: batonEnv.env, settings: { generateTitles: false }, home: first.home, choice: { kind: "id", id: sessionId } });
  cleanups.push(here.cleanup);
  const sides: TurnSide[] = [
    { name: "SDK directly", turn: direct },
    { name: "Claude adapter alone", turn: viaAdapter },
    batonSide(`all of Baton, ${Math.round(EVENTS / 1000)}k events, background incl.`, here.session),
  ];
  const against = againstRoot(values.against);
  if (against !== undefined) {
    // The same long session, copied, opened by the other checkout's Baton: an A/B in the same run.
    const baseHome = mkdtempSync(path.join(os.tmpdir(), "baton-bench-claude-base-"));
    cleanups.push(async () => rmSync(baseHome, { recursive: true, force: true }));
    cpSync(first.home, baseHome, { recursive: true });
    const [host, definition] = await Promise.all([import(path.join(against, "tests/support/session-host.ts")), import(path.join(against, "src/harness/claude/definition.ts"))]);
    const base = await host.openRealSession({ definitions: [definition.claudeDefinition], cwd: batonEnv.cwd, env: batonEnv.env, settings: { generateTitles: false }, home: baseHome, choice: { kind: "id", id: sessionId } });
    cleanups.unshift(base.cleanup);
    sides.push(batonSide(`Baton of ${values.against}`, base.session));
  }
  const result = await runTurnPairs(sides, { pairs: PAIRS, turns: TURNS, warmup: 1, before: () => mock.script(reply.text(ANSWER, { chunkSize: 24 })) });
  q.close();
  await adapter.close(handle);
  for (const cleanup of cleanups) await cleanup();
  await first.cleanup().catch(() => undefined);
  reportTurnPairs(report, result, sides, { direct: 0, baton: 2, ...(against !== undefined ? { baseline: 3 } : {}) }, "Baton adds per warm turn (≤ 10 ms or ≤ 5 %)", `${PAIRS} pairs × ${TURNS} turns`);
} finally {
  await mock.stop();
  directEnv.cleanup();
  adapterEnv.cleanup();
  batonEnv.cleanup();
}
process.exit(report.summary() ? 0 : 1);
