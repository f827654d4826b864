/**
 * Claude Code overhead: the same scripted turns against the mock Anthropic API, once through Baton (the
 * controller in-process: admission, ledger, projection, adapter) and once driving the Agent SDK's
 * streaming query() directly. Prints per-turn medians, cold start and the ratio.
 * Budget (architecture §8): Baton adds ≤ 5 % or ≤ 10 ms per warm turn.
 *   bun bench/claude-overhead.ts [turns=20]
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { query, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { openSession } from "../src/app/open-session.ts";
import { claudeDefinition } from "../src/harness/claude/definition.ts";
import { bundledClaudePath } from "../src/harness/claude/executable.ts";
import { DEFAULT_CONTROLLER_SETTINGS } from "../src/controller/ports.ts";
import { HarnessRegistry } from "../src/harness/registry.ts";
import { createSessionStore } from "../src/store/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createUlidSource } from "../src/shared/ids.ts";
import { startMockAnthropic } from "../tests/support/mock-anthropic/client.ts";
import { reply } from "../tests/support/mock-anthropic/script.ts";
import { makeClaudeEnv } from "../tests/support/claude-env.ts";

const TURNS = Number(process.argv[2] ?? 20);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const mock = await startMockAnthropic();
try {
  const direct = await runDirect();
  const baton = await runBaton();
  const warmDirect = median(direct.slice(1));
  const warmBaton = median(baton.slice(1));
  const added = warmBaton - warmDirect;
  const ratio = added / warmDirect;
  console.log(`Claude Code overhead — ${TURNS} text turns against the mock (cold start = turn 1)`);
  console.log(`cold start: direct ${direct[0]!.toFixed(0)} ms, through Baton ${baton[0]!.toFixed(0)} ms`);
  console.log(`warm turn median: direct ${warmDirect.toFixed(1)} ms, through Baton ${warmBaton.toFixed(1)} ms`);
  const ok = ratio <= 0.05 || added <= 10;
  console.log(`added per warm turn: ${added.toFixed(1)} ms = ${(ratio * 100).toFixed(1)} %  budget ≤ 5 % or ≤ 10 ms  ${ok ? "OK" : "OVER"}`);
} finally {
  await mock.stop();
}

async function runDirect(): Promise<number[]> {
  const env = makeClaudeEnv({ baseUrl: mock.url });
  await mock.reset();
  await mock.script(...Array.from({ length: TURNS }, (_, i) => reply.text(`answer ${i}`)));
  const pending: ((message: SDKUserMessage) => void)[] = [];
  const queue: SDKUserMessage[] = [];
  async function* input(): AsyncGenerator<SDKUserMessage> {
    for (;;) {
      const next = queue.shift() ?? (await new Promise<SDKUserMessage>((resolve) => pending.push(resolve)));
      yield next;
    }
  }
  const push = (text: string) => {
    const message: SDKUserMessage = { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null } as SDKUserMessage;
    const waiter = pending.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  };
  // The same options the adapter gives Claude Code (its own system prompt and settings, as when a user runs it).
  const q = query({
    prompt: input(),
    options: {
      cwd: env.cwd,
      env: env.env,
      ...(bundledClaudePath() ? { pathToClaudeCodeExecutable: bundledClaudePath()! } : {}),
      includePartialMessages: true,
      systemPrompt: { type: "preset", preset: "claude_code" },
      settingSources: ["user", "project", "local"],
      canUseTool: async (_tool, input) => ({ behavior: "allow", updatedInput: input }),
    },
  });
  const iterator = q[Symbol.asyncIterator]();
  const times: number[] = [];
  try {
    for (let turn = 0; turn < TURNS; turn++) {
      const start = performance.now();
      push(`question ${turn}`);
      for (;;) {
        const { value, done } = await iterator.next();
        if (done) throw new Error("the SDK stream ended");
        if (value.type === "result") break;
      }
      times.push(performance.now() - start);
    }
  } finally {
    q.close();
    env.cleanup();
  }
  return times;
}

async function runBaton(): Promise<number[]> {
  const env = makeClaudeEnv({ baseUrl: mock.url });
  await mock.reset();
  await mock.script(...Array.from({ length: TURNS }, (_, i) => reply.text(`answer ${i}`)));
  const base = mkdtempSync(path.join(os.tmpdir(), "baton-bench-claude-"));
  const ids = createUlidSource();
  const session = await openSession({
    store: createSessionStore({ home: path.join(base, "home"), clock: systemClock, ids }),
    registry: new HarnessRegistry([claudeDefinition]),
    cwd: env.cwd,
    choice: { kind: "new" },
    clock: systemClock,
    ids,
    env: env.env,
    settings: { ...DEFAULT_CONTROLLER_SETTINGS, textgenPrefer: "none" },
    logLevel: "warn",
  });
  const times: number[] = [];
  try {
    for (let turn = 0; turn < TURNS; turn++) {
      const start = performance.now();
      await session.controller.submit("claude", [{ type: "text", text: `question ${turn}` }]);
      times.push(performance.now() - start);
    }
  } finally {
    await session.close();
    rmSync(base, { recursive: true, force: true });
    env.cleanup();
  }
  return times;
}
