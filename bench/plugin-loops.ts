/**
 * Plugin loop benchmarks (issue #16), printed as `figure value budget ratio OK|OVER`:
 *   - reconcile throughput with 1,000 Task resources of the loops fixture (real runner): from the controller
 *     start to an idle queue; reconciles per second. Budget ≥ 200/s (ours: the issue sets none; 1,000 resources
 *     reconciled in ≤ 5 s after a session opens).
 *   - turn end → proposal: from a finished turn's `_baton_turn_summary` to the `proposed_input` it causes in the
 *     ledger (Turn resource, keyed queue, runner reconcile, dedupe, append), median of 20 turns of the fake
 *     harness, no screen.
 *   - turn end → proposal card on screen: the same, with the Baton screen drawing (bench/_plugin-screen.ts), to
 *     the first frame that shows the card. Budget ≤ 150 ms (the issue's, plus the plugin's own work: here an
 *     appendFileSync), median and max of 15 rounds after a warm-up, with the spread.
 *   - Board publish with 100 presented Cards (board fixture): one Card's spec changes → the Board published
 *     (store change, runner `present`, selector over 100) and → drawn in the inline sidecar; the selector
 *     alone. Budgets (ours; the issue sets none): published ≤ 50 ms (ten host→runner round trips' budget),
 *     on screen ≤ 100 ms, the selector ≤ 1 ms.
 * Exits 1 when a figure is over its budget.
 *
 *   node_modules/.bin/bun bench/plugin-loops.ts
 */
import { ManualClock } from "../src/shared/clock.ts";
import { selectPendingProposals } from "../src/projection/index.ts";
import { fakeDefinition } from "../tests/support/fake-adapter.ts";
import { createPluginRig, LOOPS_DIR } from "../tests/support/plugin-rig.ts";
import { measureOnScreen } from "./_plugin-screen.ts";
import { makeTestHome, openTestSession } from "../tests/support/session-host.ts";

const BUDGET = { reconcilesPerSecond: 200, turnToProposalMs: 150, boardPublishedMs: 50, boardOnScreenMs: 100, boardSelectMs: 1 } as const;
const SCREEN_ROUNDS = 15;
const TASK = { apiVersion: "loops.baton.dev/v1", kind: "Task" };

let allOk = true;
function report(figure: string, value: number, unit: string, budget: number, higherIsBetter = false): void {
  const ratio = higherIsBetter ? budget / value : value / budget;
  const ok = ratio <= 1;
  allOk &&= ok;
  process.stdout.write(`${figure.padEnd(50)} ${`${value.toFixed(unit === "ms" && value < 1 ? 3 : 1)} ${unit}`.padStart(14)}   budget ${`${higherIsBetter ? "≥" : "≤"}${budget} ${unit}`.padEnd(12)} ${ratio.toFixed(2)}  ${ok ? "OK" : "OVER"}\n`);
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

const quantile = (xs: readonly number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
const median = (xs: readonly number[]) => quantile(xs, 0.5);
function spread(figure: string, xs: readonly number[]): void {
  const at = (q: number) => quantile(xs, q).toFixed(1);
  process.stdout.write(`${`  ${figure}`.padEnd(50)} min ${Math.min(...xs).toFixed(1)} · p25 ${at(0.25)} · median ${at(0.5)} · p75 ${at(0.75)} · max ${Math.max(...xs).toFixed(1)} ms (${xs.length} rounds)\n`);
}

const rate = await throughput(1_000);
const latency = await turnToProposal(20);
const screen = await measureOnScreen(SCREEN_ROUNDS);
process.stdout.write(`\n${"figure".padEnd(50)} ${"value".padStart(14)}   budget       ratio OK|OVER\n`);
report("reconciles/s, 1,000 Tasks (initial pass)", rate, "/s", BUDGET.reconcilesPerSecond, true);
report("turn end → proposal in the ledger (median 20)", median(latency), "ms", BUDGET.turnToProposalMs);
report("turn end → proposal in the ledger (max of 20)", Math.max(...latency), "ms", BUDGET.turnToProposalMs);
report(`turn end → card on screen (median of ${SCREEN_ROUNDS})`, median(screen.cardOnScreen), "ms", BUDGET.turnToProposalMs);
report(`turn end → card on screen (max of ${SCREEN_ROUNDS})`, Math.max(...screen.cardOnScreen), "ms", BUDGET.turnToProposalMs);
spread("card on screen", screen.cardOnScreen);
spread("of which: → in the ledger (screen drawing)", screen.cardInLedger);
report("Board, 100 presented: change → published (median)", median(screen.boardPublished), "ms", BUDGET.boardPublishedMs);
report("Board, 100 presented: change → published (max)", Math.max(...screen.boardPublished), "ms", BUDGET.boardPublishedMs);
spread("Board published", screen.boardPublished);
report("Board, 100 presented: change → on screen (median)", median(screen.boardOnScreen), "ms", BUDGET.boardOnScreenMs);
report("Board, 100 presented: change → on screen (max)", Math.max(...screen.boardOnScreen), "ms", BUDGET.boardOnScreenMs);
spread("Board on screen", screen.boardOnScreen);
report("Board selector over 100 presented (median 2,000)", median(screen.boardSelect), "ms", BUDGET.boardSelectMs);
report("Board selector over 100 presented (p99)", quantile(screen.boardSelect, 0.99), "ms", BUDGET.boardSelectMs);
process.exit(allOk ? 0 : 1);
