/** The harness contract suite against the real Codex adapter (real codex binary + mock Responses server). */
import { CodexAdapter } from "../../src/harness/codex/adapter.ts";
import { resolveInstalledCodex } from "../../src/harness/codex/executable.ts";
import { describeHarnessContract, type ContractKit } from "../contract/harness.contract.ts";
import { makeCodexHome } from "../support/codex-home.ts";
import { startMockResponses } from "../support/mock-responses/index.ts";

const CODEX_BIN = resolveInstalledCodex();

if (CODEX_BIN !== undefined) {
  describeHarnessContract(
    "codex",
    async () => {
      const mock = await startMockResponses();
      // Codex's own configuration asks for approval when the model requests escalation (notes §10).
      const home = makeCodexHome({ baseUrl: mock.baseUrl, approvalPolicy: "on-request", sandboxMode: "read-only" });
      const adapters: CodexAdapter[] = [];
      const make = () => {
        const adapter = new CodexAdapter();
        adapters.push(adapter);
        return adapter;
      };
      const kit: ContractKit = {
        adapter: make(),
        makeAnother: make,
        targetId: "codex",
        cwd: home.workdir,
        env: { ...home.env, BATON_CODEX_BIN: CODEX_BIN },
        async scriptText(text) {
          await mock.script([{ kind: "text", text }]);
        },
        async scriptPermission() {
          await mock.script([{ kind: "exec", cmd: "echo contract > contract.txt", escalate: true }, { kind: "text", text: "done" }]);
        },
        async scriptSlow() {
          await mock.script([{ kind: "text", text: "s".repeat(1000), chunkSize: 10, delayMs: 50 }]);
        },
        async kill(handle) {
          for (const adapter of adapters) {
            const pid = adapter.processId(handle);
            if (pid !== undefined) process.kill(pid, "SIGKILL");
          }
        },
        async cleanup() {
          await mock.stop();
          home.cleanup();
        },
      };
      return kit;
    },
    { timeoutMs: 20_000 },
  );
}
