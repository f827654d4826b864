/** The harness contract suite against the scripted fake adapter. */
import { FakeAdapter, type FakeAction } from "../support/fake-adapter.ts";
import { describeHarnessContract, type ContractKit } from "./harness.contract.ts";

describeHarnessContract("fake", async () => {
  const queue: FakeAction[][] = [];
  const script = { get turns() { return queue; }, steer: "reject" as const };
  // The fake reads `turns[n]` per turn; a shared queue lets the kit script the next one.
  const adapters: FakeAdapter[] = [];
  const make = () => {
    const adapter = new FakeAdapter(script);
    adapters.push(adapter);
    return adapter;
  };
  const kit: ContractKit = {
    adapter: make(),
    makeAnother: make,
    targetId: "fake",
    cwd: process.cwd(),
    env: {},
    async scriptText(text) {
      fill(adapters, queue, [{ type: "text", text }]);
    },
    async scriptPermission() {
      fill(adapters, queue, [{ type: "permission", title: "touch /tmp/x" }, { type: "text", text: "done" }]);
    },
    async scriptSlow() {
      fill(adapters, queue, [{ type: "text", text: "slow " }, { type: "wait", ms: 5000 }, { type: "text", text: "end" }]);
    },
    async kill() {
      for (const adapter of adapters) adapter.crash();
    },
    async cleanup() {},
  };
  return kit;
});

/** Put the step at the index every adapter will read next (each adapter counts its own turns). */
function fill(adapters: FakeAdapter[], queue: FakeAction[][], steps: FakeAction[]): void {
  const next = Math.max(0, ...adapters.map((a) => a.turnsPlayed));
  queue[next] = steps;
}
