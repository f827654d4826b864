/**
 * Plugin loop benchmarks (issue #16), printed as `figure value budget ratio OK|OVER`:
 *   - reconcile throughput with 1,000 Task resources of the loops fixture (real runner): from the controller
 *     start to an idle queue; reconciles per second. Budget ≥ 200/s (ours: the issue sets none; 1,000 resources
 *     reconciled in ≤ 5 s after a session opens).
 *   - turn end → proposal: from a finished turn's `_baton_turn_summary` to the `proposed_input` it causes in the
 *     ledger (Turn resource, keyed queue, runner reconcile, dedupe, append), median of 20 turns of the fake
 *     harness. Budget ≤ 150 ms (the issue's budget for the card on screen, plus the plugin's own work; the
 *     screen's part is the TUI's frame, measured in bench/plugins.ts).
 * Exits 1 when a figure is over its budget.
 *
 *   node_modules/.bin/bun bench/plugin-loops.ts
 */
import { ManualClock } from "../src/shared/clock.ts";
import { selectPendingProposals } from "../src/projection/index.ts";
import { fakeDefinition } from "../tests/support/fake-adapter.ts";
import { createPluginRig, LOOPS_DIR } from "../tests/support/plugin-rig.ts";
import { makeTestHome, openTestSession } from "../tests/support/session-host.ts";

const BUDGET = { reconcilesPerSecond: 200, turnToProposalMs: 150 } as const;
const TASK = { apiVersion: "loops.baton.dev/v1", kind: "Task" };

let allOk = true;
function report(figure: string, value: number, unit: string, budget: number, higherIsBetter = false): void {
  const ratio = higherIsBetter ? budget / value : value / budget;
  const ok = ratio <= 1;
  allOk &&= ok;
  process.stdout.write(`${figure.padEnd(46)} ${`${value.toFixed(1)} ${unit}`.padStart(14)}   budget ${`${higherIsBetter ? "≥" : "≤"}${budget} ${unit}`.padEnd(12)} ${ratio.toFixed(2)}  ${ok ? "OK" : "OVER"}\n`);
}

async function throughput(count: number): Promise<number> {
  const rig = createPluginRig({ clock: new ManualClock(Date.parse("2026-03-01T10:00:00.000Z")) });
  try {
    const key = await rig.installAndEnable(LOOPS_DIR);
    const store = rig.manager.binding(key)?.resources;
    if (store === undefined) throw new Error("no store");
    await rig.manager.disable("baton-test/loops");
    for (let i = 0; i < count; i++) await store.create({ ...TASK, metadata: { name: `t${i}` }, spec: { mode: "ok" } });
    // Enabled again: the initial pass reconciles every Task.
    const start = performance.now();
    await rig.manager.enable("baton-test/loops");
    await rig.manager.idle();
    return (count / (performance.now() - start)) * 1000;
  } finally {
    await rig.close();
  }
}

async function turnToProposal(turns: number): Promise<number[]> {
  const home = makeTestHome();
  const fake = fakeDefinition({ turns: Array.from({ length: turns }, (_, i) => [{ type: "text" as const, text: `answer ${i}` }]) });
  const session = await openTestSession(home, { definitions: [fake] });
  const rig = createPluginRig({ session });
  const samples: number[] = [];
  try {
    await rig.installAndEnable(LOOPS_DIR, { turns: "propose" });
    let summaryAt = 0;
    let waiting: (() => void) | undefined;
    session.controller.subscribe((event) => {
      if (event.kind === "_baton_turn_summary") summaryAt = performance.now();
      if (event.kind === "interaction.opened" && summaryAt > 0) {
        samples.push(performance.now() - summaryAt);
        summaryAt = 0;
        waiting?.();
      }
    });
    for (let i = 0; i < turns; i++) {
      const proposed = new Promise<void>((resolve) => (waiting = resolve));
      await session.controller.submit("fake", [{ type: "text", text: `prompt ${i}` }], { displayText: `prompt ${i}` });
      await proposed;
      for (const p of selectPendingProposals(session.controller.state)) session.controller.proposals.dismiss(p.interactionId);
    }
  } finally {
    await rig.close();
    await session.close();
    home.cleanup();
  }
  return samples;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const rate = await throughput(1_000);
const latency = await turnToProposal(20);
process.stdout.write(`\n${"figure".padEnd(46)} ${"value".padStart(14)}   budget       ratio OK|OVER\n`);
report("reconciles/s, 1,000 Tasks (initial pass)", rate, "/s", BUDGET.reconcilesPerSecond, true);
report("turn end → proposal in the ledger (median 20)", median(latency), "ms", BUDGET.turnToProposalMs);
report("turn end → proposal in the ledger (max of 20)", Math.max(...latency), "ms", BUDGET.turnToProposalMs);
process.exit(allOk ? 0 : 1);
