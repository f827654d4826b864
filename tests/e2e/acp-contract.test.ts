/**
 * The harness contract suite against two real ACP agents, offline: claude-agent-acp 0.49 (mock Anthropic API) and
 * codex-acp 2.6 (mock Responses API), both driven by the one ACP adapter with no per-agent code.
 */
import type { AcpAdapter } from "../../src/harness/acp/adapter.ts";
import { describeHarnessContract, type ContractKit } from "../contract/harness.contract.ts";
import { makeClaudeAcpWorld, makeCodexAcpWorld, type AcpWorld } from "../support/acp-rig.ts";
import { mockModelServers } from "../support/mock-servers.ts";

const mocks = mockModelServers();

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
    await mocks.anthropic.reset();
    return kitOf(makeClaudeAcpWorld(mocks.anthropic));
  },
  { timeoutMs: 40_000 },
);

describeHarnessContract(
  "acp:codex-acp",
  async () => {
    await mocks.responses.reset();
    return kitOf(makeCodexAcpWorld(mocks.responses));
  },
  { timeoutMs: 40_000 },
);
