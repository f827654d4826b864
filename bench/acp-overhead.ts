/**
 * ACP overhead, per agent (claude-agent-acp 0.49 against the mock Anthropic API, codex-acp 2.6 against the mock
 * Responses API): the same scripted text turns driven
 * (a) directly through the official SDK (@agentclientprotocol/sdk: spawn, initialize, session/new, session/prompt);
 * (b) through the ACP adapter alone; (c) through all of Baton (controller, ledger with its fsync before dispatch,
 * projection, adapter). Turns alternate so all three see the same machine load. Also: open → first reply (spawn to
 * the first agent_message_chunk of the first turn). Budget (architecture §8): Baton adds ≤ 5 % or ≤ 10 ms per warm turn.
 *   bun bench/acp-overhead.ts [turns=12] [agent…]
 */
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { acpDefinition } from "../src/harness/acp/definition.ts";
import { makeClaudeAcpWorld, makeCodexAcpWorld, type AcpAgentName, type AcpWorld } from "../tests/support/acp-rig.ts";
import { ClaudeHost } from "../tests/support/claude-host.ts";
import { startMockAnthropic } from "../tests/support/mock-anthropic/client.ts";
import { startMockResponses } from "../tests/support/mock-responses/index.ts";
import { openRealSession } from "../tests/support/session-host.ts";

const TURNS = Number(process.argv[2] ?? 12);
const AGENTS = (process.argv.slice(3).length > 0 ? process.argv.slice(3) : ["claude-agent-acp", "codex-acp"]) as AcpAgentName[];
const WARMUP = 2;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
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
    },
    close: cleanup,
  };
}

const lines: string[] = [];
const anthropic = AGENTS.includes("claude-agent-acp") ? await startMockAnthropic() : undefined;
const responses = AGENTS.includes("codex-acp") ? await startMockResponses() : undefined;
try {
  for (const agent of AGENTS) {
    const world = (): AcpWorld => (agent === "claude-agent-acp" ? makeClaudeAcpWorld(anthropic!) : makeCodexAcpWorld(responses!));
    const worlds = { direct: world(), adapter: world(), baton: world() };
    const makers = { direct, adapter: adapterOnly, baton } as const;
    const drivers: Partial<Record<keyof typeof makers, Driver>> = {};
    const times = { direct: [] as number[], adapter: [] as number[], baton: [] as number[] };
    const cold = { direct: 0, adapter: 0, baton: 0 };
    const firstReply = { direct: 0, adapter: 0, baton: 0 };
    try {
      for (let i = 0; i < WARMUP + TURNS; i++) {
        for (const name of ["direct", "adapter", "baton"] as const) {
          const w = worlds[name];
          await w.scriptText(ANSWER);
          const start = performance.now();
          // the first turn includes starting the agent (the adapter and Baton open on their own first use)
          drivers[name] ??= await makers[name](w);
          await drivers[name].turn(`question ${i}`, i === 0 ? (at) => (firstReply[name] = at - start) : undefined);
          const ms = performance.now() - start;
          if (i === 0) cold[name] = ms;
          if (i >= WARMUP) times[name].push(ms);
        }
      }
    } finally {
      for (const driver of Object.values(drivers)) await driver?.close();
      for (const w of Object.values(worlds)) w.cleanup();
    }
    const d = median(times.direct);
    const a = median(times.adapter);
    const b = median(times.baton);
    const added = b - d;
    const ok = added / d <= 0.05 || added <= 10;
    lines.push(
      `${agent} — ${TURNS} text turns (+${WARMUP} warm-up) against the mock, alternating`,
      `  open → first reply: direct ${firstReply.direct.toFixed(0)} ms, adapter ${firstReply.adapter.toFixed(0)} ms, Baton ${firstReply.baton.toFixed(0)} ms (budget 1500 ms)`,
      `  cold turn 1 (with open): direct ${cold.direct.toFixed(0)} ms, adapter ${cold.adapter.toFixed(0)} ms, Baton ${cold.baton.toFixed(0)} ms`,
      `  warm turn median: direct ${d.toFixed(1)} ms, adapter ${a.toFixed(1)} ms (+${(a - d).toFixed(1)}), all of Baton ${b.toFixed(1)} ms`,
      `  added per warm turn: ${added.toFixed(1)} ms = ${((added / d) * 100).toFixed(1)} %  budget ≤ 5 % or ≤ 10 ms  ${ok ? "OK" : "OVER"}`,
    );
  }
  console.log(lines.join("\n"));
} finally {
  await anthropic?.stop();
  await responses?.stop();
}
