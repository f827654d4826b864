/** The harness contract suite against the real Claude Code (Agent SDK) and the mock Anthropic API. */
import { afterAll, beforeAll } from "bun:test";
import { ClaudeAdapter } from "../../src/harness/claude/adapter.ts";
import { describeHarnessContract, type ContractKit } from "../contract/harness.contract.ts";
import { makeClaudeEnv } from "../support/claude-env.ts";
import { claudeChildren } from "../support/claude-host.ts";
import { startMockAnthropic, type MockAnthropic } from "../support/mock-anthropic/client.ts";
import { reply } from "../support/mock-anthropic/script.ts";

let mock: MockAnthropic;
beforeAll(async () => {
  mock = await startMockAnthropic();
});
afterAll(async () => {
  await mock.stop();
});

describeHarnessContract(
  "claude",
  async () => {
    await mock.reset();
    const env = makeClaudeEnv({ baseUrl: mock.url });
    const make = () => new ClaudeAdapter({ env: env.env });
    const kit: ContractKit = {
      adapter: make(),
      makeAnother: make,
      targetId: "claude",
      cwd: env.cwd,
      env: env.env,
      async scriptText(text) {
        await mock.script(reply.text(text));
      },
      async scriptPermission() {
        await mock.script(reply.tool("Bash", { command: "echo contract > contract.txt" }), reply.text("done"));
      },
      async scriptSlow() {
        await mock.script(reply.text("slow ".repeat(60), { chunkSize: 5, chunkDelayMs: 100 }), reply.text("after the steer"));
      },
      async kill() {
        for (const pid of claudeChildren()) process.kill(pid, "SIGKILL");
      },
      async cleanup() {
        env.cleanup();
      },
    };
    return kit;
  },
  { timeoutMs: 30_000 },
);
