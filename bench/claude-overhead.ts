/**
 * Claude Code overhead: the same scripted text turns against the mock Anthropic API, driven
 * (a) through the Agent SDK's streaming query() directly, with the options the adapter uses;
 * (b) through the Claude adapter alone; (c) through all of Baton (controller, ledger with its fsync
 * before dispatch, projection, adapter). Turns alternate so all three see the same machine load.
 * Budget (architecture §8): Baton adds ≤ 5 % or ≤ 10 ms per warm turn.
 *   bun bench/claude-overhead.ts [turns=20]
 */
import { query, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { ClaudeAdapter } from "../src/harness/claude/adapter.ts";
import { claudeDefinition } from "../src/harness/claude/definition.ts";
import { bundledClaudePath } from "../src/harness/claude/executable.ts";
import { startMockAnthropic } from "../tests/support/mock-anthropic/client.ts";
import { reply } from "../tests/support/mock-anthropic/script.ts";
import { makeClaudeEnv } from "../tests/support/claude-env.ts";
import { ClaudeHost } from "../tests/support/claude-host.ts";
import { openRealSession } from "../tests/support/session-host.ts";

const TURNS = Number(process.argv[2] ?? 20);
const WARMUP = 2;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const ANSWER = "The quick brown fox jumps over the lazy dog. ".repeat(6);

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
    const input = host.prompt(text);
    await adapter.sendTurn(handle, input);
    await host.waitForIdle(input.turnId, 30_000);
    return performance.now() - start;
  };

  // (c) all of Baton
  const { session, cleanup } = await openRealSession({ definitions: [claudeDefinition], cwd: batonEnv.cwd, env: batonEnv.env, settings: { generateTitles: false } });
  const viaBaton = async (text: string): Promise<number> => {
    const start = performance.now();
    await session.controller.submit("claude", [{ type: "text", text }]);
    return performance.now() - start;
  };

  const times = { direct: [] as number[], adapter: [] as number[], baton: [] as number[] };
  const cold = { direct: 0, adapter: 0, baton: 0 };
  for (let i = 0; i < WARMUP + TURNS; i++) {
    for (const [name, run] of [["direct", direct], ["adapter", viaAdapter], ["baton", viaBaton]] as const) {
      await mock.script(reply.text(ANSWER, { chunkSize: 24 }));
      const ms = await run(`question ${i}`);
      if (i === 0) cold[name] = ms;
      if (i >= WARMUP) times[name].push(ms);
    }
  }
  q.close();
  await adapter.close(handle);
  await cleanup();

  const d = median(times.direct);
  const a = median(times.adapter);
  const b = median(times.baton);
  const added = b - d;
  const ok = added / d <= 0.05 || added <= 10;
  console.log(`Claude Code overhead — ${TURNS} text turns (+${WARMUP} warm-up) against the mock, alternating`);
  console.log(`cold start (turn 1): direct ${cold.direct.toFixed(0)} ms, adapter ${cold.adapter.toFixed(0)} ms, Baton ${cold.baton.toFixed(0)} ms`);
  console.log(`warm turn median: direct ${d.toFixed(1)} ms, adapter ${a.toFixed(1)} ms (+${(a - d).toFixed(1)}), all of Baton ${b.toFixed(1)} ms`);
  console.log(`added per warm turn: ${added.toFixed(1)} ms = ${((added / d) * 100).toFixed(1)} %  budget ≤ 5 % or ≤ 10 ms  ${ok ? "OK" : "OVER"}`);
} finally {
  await mock.stop();
  directEnv.cleanup();
  adapterEnv.cleanup();
  batonEnv.cleanup();
}
