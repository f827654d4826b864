/**
 * Model tests for queue and turn races (fast-check): random interleavings of submit (two targets,
 * steerable or not), interrupt, recall, duplicate and late terminals must keep the invariants:
 * every admitted turn closes exactly once with one summary; driven turns never overlap and run in
 * admission order; a recalled input is never admitted; an interrupted turn's steers are never re-sent;
 * every submit settles.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { fakeDefinition, type FakeAction } from "../support/fake-adapter.ts";
import { ledgerOf, makeTestHome, openTestSession } from "../support/session-host.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { lastSummary } from "../../src/projection/index.ts";

type Op =
  | { readonly op: "submit"; readonly target: "alpha" | "beta"; readonly ms: number; readonly cancellable: boolean; readonly asks?: boolean }
  | { readonly op: "interrupt" }
  | { readonly op: "crash" }
  | { readonly op: "compact"; readonly target: "alpha" | "beta" }
  | { readonly op: "answer"; readonly allow: boolean }
  | { readonly op: "escape" }
  | { readonly op: "recall" }
  | { readonly op: "lateIdle" }
  | { readonly op: "wait"; readonly ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("submit" as const), target: fc.constantFrom("alpha" as const, "beta" as const), ms: fc.integer({ min: 0, max: 15 }), cancellable: fc.boolean(), asks: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ op: "interrupt" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "crash" as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("compact" as const), target: fc.constantFrom("alpha" as const, "beta" as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("answer" as const), allow: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ op: "escape" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "recall" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "lateIdle" as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 10 }) }) },
);

function scriptFor(ms: number, cancellable: boolean, asks = false): FakeAction[] {
  const ask: FakeAction[] = asks ? [{ type: "permission", title: "run it" }] : [];
  return cancellable ? [...ask, { type: "text", text: "working" }, { type: "waitForCancel" }] : [...ask, { type: "wait", ms }, { type: "text", text: "done" }];
}

async function runScenario(ops: readonly Op[]): Promise<void> {
  const home = makeTestHome();
  const queues: Record<string, FakeAction[][]> = { alpha: [], beta: [] };
  const alpha = fakeDefinition(() => ({ steer: "steer", turns: queues["alpha"]! }), "alpha");
  const beta = fakeDefinition(() => ({ steer: "reject", turns: queues["beta"]! }), "beta");
  const session = await openTestSession(home, { definitions: [alpha, beta], settings: { cancelGraceMs: 50 } });
  const outcomes: Promise<string>[] = [];
  const recalled: string[] = [];
  try {
    for (const step of ops) {
      switch (step.op) {
        case "submit": {
          queues[step.target]!.push(scriptFor(step.ms, step.cancellable, step.asks));
          const text = `prompt ${outcomes.length}`;
          outcomes.push(session.controller.submit(step.target, [{ type: "text", text }]).catch((error: Error) => `rejected: ${error.message}`));
          break;
        }
        case "interrupt":
          session.controller.interrupt();
          break;
        case "crash":
          for (const adapter of [...alpha.adapters, ...beta.adapters]) adapter.crash();
          break;
        case "compact":
          outcomes.push(session.controller.compact(step.target).catch((error: Error) => `rejected: ${error.message}`));
          break;
        case "answer":
        case "escape": {
          const pending = session.controller.pendingInteractions()[0];
          if (!pending) break;
          const resolution = step.op === "escape" ? ({ outcome: "cancelled", reason: "user" } as const) : ({ outcome: "selected", optionId: step.allow ? "allow" : "deny" } as const);
          await session.controller.resolveInteraction(pending.interactionId, resolution).catch(() => undefined);
          break;
        }
        case "recall": {
          const taken = session.controller.recall();
          if (taken) recalled.push(taken.text);
          break;
        }
        case "lateIdle": {
          // a duplicate terminal for the most recently finished turn must be inert
          const last = lastSummary(session.controller.state);
          if (last) {
            session.controller.pipeline.append({ kind: "state_update", payload: { state: "idle", stopReason: "end_turn" }, source: { type: "harness", harnessTargetId: last.harnessTargetId ?? "alpha" }, turnId: last.turnId as never, harnessTargetId: last.harnessTargetId ?? "alpha" });
          }
          break;
        }
        case "wait":
          await new Promise((resolve) => setTimeout(resolve, step.ms));
          break;
      }
    }
    // Drain: interrupt whatever waits for a cancel until everything settled.
    const settled = Promise.all(outcomes);
    let done = false;
    void settled.then(() => (done = true));
    // Submits may still be on their way in (a steer attempt is async): drain until all of them settled.
    for (let i = 0; i < 300 && (!done || session.controller.busy); i++) {
      for (const pending of session.controller.pendingInteractions()) {
        await session.controller.resolveInteraction(pending.interactionId, { outcome: "selected", optionId: "allow" }).catch(() => undefined);
      }
      session.controller.interrupt();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const results = await settled;
    checkInvariants(ledgerOf(session), recalled, results);
  } finally {
    await session.close();
    home.cleanup();
  }
}

function checkInvariants(events: readonly AnyEvent[], recalled: readonly string[], results: readonly string[]): void {
  const running = events.filter((e) => e.kind === "state_update" && (e.payload as { state: string }).state === "running");
  const admitted = running.map((e) => e.turnId!);
  for (const turnId of admitted) {
    const idles = events.filter((e) => e.kind === "state_update" && e.turnId === turnId && (e.payload as { state: string }).state === "idle");
    const firstIdle = idles[0];
    expect(firstIdle).toBeDefined();
    const summaries = events.filter((e) => e.kind === "_baton_turn_summary" && e.turnId === turnId);
    expect(summaries.length).toBe(1);
  }
  // driven turns never overlap: each running is preceded by the previous turn's first idle
  let open: string | undefined;
  for (const event of events) {
    if (event.kind !== "state_update" || event.source.type === "harness") {
      if (event.kind !== "state_update") continue;
    }
    const state = (event.payload as { state: string }).state;
    if (state === "running" && event.source.type === "baton") {
      expect(open).toBeUndefined();
      open = event.turnId;
    } else if (state === "idle" && event.turnId === open) {
      open = undefined;
    }
  }
  // a recalled input never reached the ledger
  const userTexts = events.filter((e) => e.kind === "user_message").map((e) => JSON.stringify(e.payload));
  for (const text of recalled) expect(userTexts.some((t) => t.includes(`"${text}"`))).toBe(false);
  // every submit settled with a known outcome
  for (const result of results) expect(["completed", "interrupted", "recalled", "failed"].includes(result) || result.startsWith("rejected:")).toBe(true);
  // steers of an interrupted turn were not re-sent as new turns
  const steers = events.filter((e) => e.kind === "user_message" && (e.payload as { delivery?: string }).delivery === "steer");
  for (const steer of steers) {
    const text = JSON.stringify((steer.payload as { content?: unknown }).content);
    const copies = events.filter((e) => e.kind === "user_message" && JSON.stringify((e.payload as { content?: unknown }).content) === text);
    expect(copies.length).toBe(1);
  }
}

describe("controller races (model-based)", () => {
  test("random interleavings keep the queue and turn invariants", async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), runScenario), { numRuns: 40, timeout: 20_000 });
  }, 120_000);
});
