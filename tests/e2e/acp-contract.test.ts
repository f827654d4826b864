/**
 * The harness contract suite against two real ACP agents, offline: claude-agent-acp 0.49 (mock Anthropic API) and
 * codex-acp 2.6 (mock Responses API), both driven by the one ACP adapter with no per-agent code.
 */
import { afterAll, beforeAll } from "bun:test";
import type { AcpAdapter } from "../../src/harness/acp/adapter.ts";
import { describeHarnessContract, type ContractKit } from "../contract/harness.contract.ts";
import { makeClaudeAcpWorld, makeCodexAcpWorld, type AcpWorld } from "../support/acp-rig.ts";
import { startMockAnthropic, type MockAnthropic } from "../support/mock-anthropic/client.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";

let anthropic: MockAnthropic;
let responses: MockResponses;
beforeAll(async () => {
  [anthropic, responses] = await Promise.all([startMockAnthropic(), startMockResponses()]);
});
afterAll(async () => {
  await Promise.all([anthropic.stop(), responses.stop()]);
});

function kitOf(world: AcpWorld): ContractKit {
  const adapters: AcpAdapter[] = [];
  const make = () => {
    const adapter = world.adapter();
    adapters.push(adapter);
    return adapter;
  };
  return {
    adapter: make(),
    makeAnother: make,
    targetId: world.targetId,
    cwd: world.cwd,
    env: world.env,
    scriptText: (text) => world.scriptText(text),
    scriptPermission: () => world.scriptPermission(),
    scriptSlow: () => world.scriptSlow(),
    async kill(handle) {
      for (const adapter of adapters) {
        const pid = adapter.processId(handle);
        if (pid !== undefined) process.kill(pid, "SIGKILL");
      }
    },
    async cleanup() {
      world.cleanup();
    },
  };
}

describeHarnessContract(
  "acp:claude-agent-acp",
  async () => {
    await anthropic.reset();
    return kitOf(makeClaudeAcpWorld(anthropic));
  },
  { timeoutMs: 40_000 },
);

describeHarnessContract(
  "acp:codex-acp",
  async () => {
    await responses.reset();
    return kitOf(makeCodexAcpWorld(responses));
  },
  { timeoutMs: 40_000 },
);
