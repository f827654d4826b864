/**
 * The per-turn overhead figures of codex-overhead.ts and claude-overhead.ts (issue #18): sides (the harness
 * driven directly, the adapter alone, all of Baton, and optionally another checkout's Baton) take turns in
 * blocks of `turns` turns each; a pair is one block of every side, and the order of the sides flips every pair,
 * so each sees the same machine load. Every Baton turn ends only once the background work it started has
 * finished (`backgroundSettled()`), inside its own window. A side's figure for a pair is the mean of its block
 * (a checkpoint or fsync that lands on one turn in a block counts, spread over the block); the figures are the
 * median and spread, over the pairs, of Baton's mean minus the direct side's mean.
 */
import path from "node:path";
import { BenchReport, samples, withSpread, type Samples } from "./_report.ts";

export const TURN_BUDGET = { ratio: 1.05, ms: 10 } as const;

export interface TurnSide {
  readonly name: string;
  /** One turn: ms from the prompt to the end of its window. */
  turn(text: string): Promise<number>;
}

export interface TurnPairs {
  /** Per pair, the mean ms per turn of each side (same order as the sides). */
  readonly means: readonly (readonly number[])[];
}

/** `pairs` pairs after `warmup` unrecorded ones, `turns` turns per side per pair; `before` runs before every turn (the mock's script). */
export async function runTurnPairs(sides: readonly TurnSide[], options: { readonly pairs: number; readonly turns: number; readonly warmup: number; readonly before: () => Promise<void> }): Promise<TurnPairs> {
  const means: number[][] = sides.map(() => []);
  for (let pair = 0; pair < options.warmup + options.pairs; pair++) {
    const order = sides.map((_, i) => i);
    if (pair % 2 === 1) order.reverse();
    for (const i of order) {
      let sum = 0;
      for (let t = 0; t < options.turns; t++) {
        await options.before();
        sum += await sides[i]!.turn(`pair ${pair} turn ${t}`);
      }
      if (pair >= options.warmup) means[i]!.push(sum / options.turns);
    }
  }
  return { means };
}

function differences(a: readonly number[], b: readonly number[]): Samples {
  return samples(a.map((ms, k) => ms - (b[k] as number)));
}

function ratios(a: readonly number[], b: readonly number[]): Samples {
  return samples(a.map((ms, k) => ms / (b[k] as number)));
}

/**
 * Prints the sides' per-turn times, Baton ÷ direct, and the budget figure (Baton − direct); with a baseline
 * side (another checkout), Baton − baseline per pair as the A/B.
 */
export function reportTurnPairs(report: BenchReport, result: TurnPairs, sides: readonly TurnSide[], roles: { readonly direct: number; readonly baton: number; readonly baseline?: number }, label: string, shape: string): void {
  for (const [i, side] of sides.entries()) report.info(`${i === roles.direct ? "" : "  "}${side.name}, per turn`, withSpread(samples(result.means[i]!), "ms", 1));
  const baton = result.means[roles.baton]!;
  const direct = result.means[roles.direct]!;
  const ratio = ratios(baton, direct);
  report.info(`  Baton ÷ direct, per turn (${shape})`, `${ratio.median.toFixed(3)}× (${ratio.min.toFixed(3)}–${ratio.max.toFixed(3)})`);
  if (roles.baseline !== undefined) {
    const base = result.means[roles.baseline]!;
    report.info(`  baseline adds (${sides[roles.baseline]!.name})`, withSpread(differences(base, direct), "ms", 1));
    report.info("  this checkout − baseline, per turn (A/B)", withSpread(differences(baton, base), "ms", 1));
  }
  const added = differences(baton, direct);
  // Within budget when either bound holds: the ratio printed is the smaller of the two figure ÷ budget.
  const within = Math.min(added.median / TURN_BUDGET.ms, (ratio.median - 1) / (TURN_BUDGET.ratio - 1));
  report.figure(label, withSpread(added, "ms", 1), "10 ms | 5 %", within);
}

/** The source root of another checkout (`--against`), for importing its modules beside this one's. */
export function againstRoot(against: string | undefined): string | undefined {
  return against === undefined ? undefined : path.resolve(against);
}
