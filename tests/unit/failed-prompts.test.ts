/**
 * #12.9 without a real agent: Codex's pending reverts (stored, retried, gone, given up) and a failed, unanswered
 * turn never relayed to another agent as history.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { FailedTurns } from "../../src/harness/codex/failed-turns.ts";
import type { SubmitOutcome } from "../../src/input/input.ts";
import type { TurnId } from "../../src/shared/ids.ts";
import { fakeDefinition, type FakeAction } from "../support/fake-adapter.ts";
import { makeTestHome, openTestSession, type TestHome } from "../support/session-host.ts";

function reverts(answers: (true | string)[]) {
  const calls: string[] = [];
  const published: (string | undefined)[] = [];
  const warnings: string[] = [];
  const notices: string[] = [];
  const turns = (stored?: string) =>
    new FailedTurns(
      {
        revert: async (id) => {
          calls.push(id);
          const answer = answers.shift() ?? true;
          if (answer !== true) throw new Error(answer);
        },
        publish: (revertBefore) => published.push(revertBefore),
        warn: (message) => warnings.push(message),
        notice: (turnId, detail) => notices.push(`${turnId}: ${detail}`),
      },
      stored,
    );
  return { calls, published, warnings, notices, turns };
}

describe("Codex: a failed turn is taken out of the thread before the next turn", () => {
  test("given a failed turn, when the revert works, then the resume state carries it only until it is done", async () => {
    const r = reverts([true]);
    const failed = r.turns();
    failed.drop("turn-1");
    expect(await failed.settle()).toBeUndefined();
    expect(r.calls).toEqual(["turn-1"]);
    expect(r.published).toEqual(["turn-1", undefined]);
  });

  test("given a revert that failed once, when the next turn starts, then it is tried again before the turn", async () => {
    const r = reverts(["connection reset", true]);
    const failed = r.turns();
    failed.drop("turn-1");
    expect(await failed.settle()).toBeUndefined();
    expect(r.calls).toEqual(["turn-1", "turn-1"]);
    expect(r.warnings).toHaveLength(1);
    expect(r.published.at(-1)).toBeUndefined();
  });

  test("given a revert that keeps failing, when the next turn starts, then that turn is told why (once: Codex will see the prompt)", async () => {
    const r = reverts(["busy", "still busy"]);
    const failed = r.turns();
    failed.drop("turn-1");
    await failed.leaveBehind("t_2" as TurnId);
    expect(r.notices).toEqual(["t_2: still busy"]);
    await failed.leaveBehind("t_3" as TurnId);
    expect(r.notices).toHaveLength(1);
    expect(r.calls).toEqual(["turn-1", "turn-1"]);
  });

  test("given a revert stored by a previous process, when it is already gone, then it counts as done", async () => {
    const r = reverts(["turn not found: turn-0"]);
    const failed = r.turns("turn-0");
    expect(await failed.settle()).toBeUndefined();
    expect(r.calls).toEqual(["turn-0"]);
    expect(r.warnings).toEqual([]);
    expect(r.published).toEqual([undefined]);
  });
});

describe("catch-up never relays a failed, unanswered prompt", () => {
  let home: TestHome | undefined;
  let session: OpenedSession | undefined;
  afterEach(async () => {
    await session?.close();
    home?.cleanup();
  });

  const text = (value: string) => [{ type: "text" as const, text: value }];

  /** Submits `prompts` to alpha (each with the outcome expected), then one to beta; returns what beta was synced. */
  async function handOver(alphaTurns: FakeAction[][], prompts: readonly (readonly [string, SubmitOutcome])[]): Promise<string> {
    const alpha = fakeDefinition({ turns: alphaTurns }, "alpha");
    const beta = fakeDefinition({ turns: [[{ type: "text", text: "beta here" }]] }, "beta");
    home = makeTestHome();
    session = await openTestSession(home, { definitions: [alpha, beta] });
    for (const [prompt, outcome] of prompts) expect(await session.controller.submit("alpha", text(prompt))).toBe(outcome);
    expect(await session.controller.submit("beta", text("go on"))).toBe("completed");
    return beta.adapters[0]?.record.synced.join("\n") ?? "";
  }

  test("given alpha answered one prompt and failed the next without output, when beta takes over, then beta gets the answered turn only", async () => {
    const synced = await handOver([[{ type: "text", text: "kiwi noted" }], [{ type: "end", stopReason: "failed" }]], [["remember: kiwi", "completed"], ["C500 POISON", "failed"]]);
    expect(synced).toContain("remember: kiwi");
    expect(synced).not.toContain("POISON");
  });

  test("given alpha failed a turn after it had said something, when beta takes over, then beta gets that turn too", async () => {
    const synced = await handOver([[{ type: "text", text: "half of the plan: rename the module" }, { type: "end", stopReason: "failed" }]], [["plan the refactor", "failed"]]);
    expect(synced).toContain("plan the refactor");
    expect(synced).toContain("half of the plan: rename the module");
  });
});
