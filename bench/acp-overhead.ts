/**
 * ACP overhead, per agent (claude-agent-acp 0.49 against the mock Anthropic API, codex-acp 2.6 against the mock
 * Responses API): the same scripted text turns driven
 * (a) directly through the official SDK (@agentclientprotocol/sdk: spawn, initialize, session/new, session/prompt);
 * (b) through the ACP adapter alone; (c) through all of Baton (controller, ledger with its fsync before dispatch,
 * projection, adapter). Turns alternate so all three see the same machine load. Also: open → first reply (spawn to
 * the first agent_message_chunk of the first turn). Budget (architecture §8): Baton adds ≤ 5 % or ≤ 10 ms per warm turn,
 * the background work its turn started included: `--pairs` alternated pairs of `--turns`-turn blocks per side after a
 * warm-up pair (bench/_turn-pairs.ts, as codex-overhead.ts and claude-overhead.ts), median and spread.
 *   bun bench/acp-overhead.ts [--pairs 9] [--turns 5] [agent…]
 */
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { acpDefinition } from "../src/harness/acp/definition.ts";
import { makeClaudeAcpWorld, makeCodexAcpWorld, type AcpAgentName, type AcpWorld } from "../tests/support/acp-rig.ts";
import { ClaudeHost } from "../tests/support/claude-host.ts";
import { startMockAnthropic } from "../tests/support/mock-anthropic/client.ts";
import { startMockResponses } from "../tests/support/mock-responses/index.ts";
import { openRealSession } from "../tests/support/session-host.ts";
import { BenchReport } from "./_report.ts";
import { reportTurnPairs, runTurnPairs, type TurnSide } from "./_turn-pairs.ts";

const { values, positionals } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { pairs: { type: "string" }, turns: { type: "string" } } });
const PAIRS = Number(values.pairs ?? 9);
const TURNS = Number(values.turns ?? 5);
const AGENTS = (positionals.length > 0 ? positionals : ["claude-agent-acp", "codex-acp"]) as AcpAgentName[];
const OPEN_BUDGET_MS = 1500;
const ANSWER = "The quick brown fox jumps over the lazy dog. ".repeat(6);

interface Driver {
  /** One turn; resolves when it ended. `firstChunk` is told the time of the turn's first reply chunk. */
  turn(text: string, firstChunk?: (at: number) => void): Promise<void>;
  close(): Promise<void>;
}

/** (a) The SDK as any ACP client would use it: its own parsing, a permission handler that allows. */
async function direct(world: AcpWorld): Promise<Driver> {
  const [file, ...args] = world.command;
  const child = spawn(file as string, args, { cwd: world.cwd, env: world.env, stdio: ["pipe", "pipe", "ignore"] });
  child.stdin.on("error", () => undefined);
  let onChunk: ((at: number) => void) | undefined;
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as unknown as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>);
  const connection = acp
    .client({ name: "bench" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk" && onChunk !== undefined) {
        onChunk(performance.now());
        onChunk = undefined;
      }
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => ({ outcome: { outcome: "selected" as const, optionId: params.options[0]?.optionId ?? "" } }))
    .connect(stream);
  await connection.agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
  const { sessionId } = await connection.agent.request("session/new", { cwd: world.cwd, mcpServers: [] });
  if (world.mode !== "default") await connection.agent.request("session/set_mode", { sessionId, modeId: world.mode });
  return {
    async turn(text, firstChunk) {
      onChunk = firstChunk;
      await connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    },
    async close() {
      connection.close();
      child.kill("SIGTERM");
    },
  };
}

/** (b) The ACP adapter alone, with the test host as its sink. */
async function adapterOnly(world: AcpWorld): Promise<Driver> {
  const host = new ClaudeHost();
  const adapter = world.adapter();
  const handle = await adapter.open({ ...host.openOptions(world.cwd, world.env), targetId: world.targetId }, host.sink, host.binding);
  return {
    async turn(text, firstChunk) {
      const input = host.prompt(text);
      await adapter.sendTurn(handle, input);
      if (firstChunk !== undefined) void host.waitFor((e) => e.turnId === input.turnId && e.kind === "agent_message_chunk", 60_000).then(() => firstChunk(performance.now()));
      await host.waitForIdle(input.turnId, 60_000);
    },
    close: () => adapter.close(handle),
  };
}

/** (c) All of Baton, the target configured as config.yaml would give it. */
async function baton(world: AcpWorld): Promise<Driver> {
  const { session, cleanup } = await openRealSession({
    definitions: [acpDefinition],
    config: { harnesses: {}, targets: { [world.targetId]: { harness: "acp", ...world.settings } } },
    cwd: world.cwd,
    env: world.env,
    settings: { generateTitles: false },
  });
  let onChunk: ((at: number) => void) | undefined;
  session.controller.subscribe((event) => {
    if (event.kind === "agent_message_chunk" && onChunk !== undefined) {
      onChunk(performance.now());
      onChunk = undefined;
    }
  });
  return {
    async turn(text, firstChunk) {
      onChunk = firstChunk;
      const outcome = await session.controller.submit(world.targetId, [{ type: "text", text }]);
      if (outcome !== "completed") throw new Error(`a Baton turn ended ${outcome}`);
      // What the turn left running (turn-end hook, checkpoint, meta.json, log, trace) is inside its window.
      await session.backgroundSettled();
    },
    close: cleanup,
  };
}

const report = new BenchReport("acp-overhead");
const anthropic = AGENTS.includes("claude-agent-acp") ? await startMockAnthropic() : undefined;
const responses = AGENTS.includes("codex-acp") ? await startMockResponses() : undefined;
try {
  for (const agent of AGENTS) {
    const world = (): AcpWorld => (agent === "claude-agent-acp" ? makeClaudeAcpWorld(anthropic!) : makeCodexAcpWorld(responses!));
    const worlds = { direct: world(), adapter: world(), baton: world() };
    const makers = { direct, adapter: adapterOnly, baton } as const;
    const names = ["direct", "adapter", "baton"] as const;
    const drivers: Partial<Record<(typeof names)[number], Driver>> = {};
    try {
      // The first turn of each side starts its agent (the adapter and Baton open on their own first use).
      const firstReply = { direct: 0, adapter: 0, baton: 0 };
      const cold = { direct: 0, adapter: 0, baton: 0 };
      for (const name of names) {
        await worlds[name].scriptText(ANSWER);
        const start = performance.now();
        const driver = await makers[name](worlds[name]);
        drivers[name] = driver;
        await driver.turn("question 0", (at) => (firstReply[name] = at - start));
        cold[name] = performance.now() - start;
      }
      report.figure(`${agent}: open → first reply, all of Baton`, `${firstReply.baton.toFixed(0)} ms`, `${OPEN_BUDGET_MS} ms`, firstReply.baton / OPEN_BUDGET_MS);
      report.info("  direct / adapter alone", `${firstReply.direct.toFixed(0)} / ${firstReply.adapter.toFixed(0)} ms`);
      report.info("  cold turn 1 (with open): direct / adapter / Baton", `${cold.direct.toFixed(0)} / ${cold.adapter.toFixed(0)} / ${cold.baton.toFixed(0)} ms`);
      const side = (name: (typeof names)[number], label: string): TurnSide => ({
        name: label,
        async turn(text) {
          const start = performance.now();
          await drivers[name]!.turn(text);
          return performance.now() - start;
        },
      });
      const sides = [side("direct", `${agent} through the SDK directly`), side("adapter", "ACP adapter alone"), side("baton", "all of Baton, background incl.")];
      const result = await runTurnPairs(sides, { pairs: PAIRS, turns: TURNS, warmup: 1, before: () => worlds.direct.scriptText(ANSWER) });
      reportTurnPairs(report, result, sides, { direct: 0, baton: 2 }, `${agent}: Baton adds per warm turn (≤ 10 ms or ≤ 5 %)`, `${PAIRS} pairs × ${TURNS} turns`);
    } finally {
      for (const driver of Object.values(drivers)) await driver?.close();
      for (const w of Object.values(worlds)) w.cleanup();
    }
  }
} finally {
  await anthropic?.stop();
  await responses?.stop();
}
process.exit(report.summary() ? 0 : 1);
