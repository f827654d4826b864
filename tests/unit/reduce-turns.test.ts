/** Turns (TURN-01/02), run phases, interactions and the session runState (IX-03/04). */
import type { StopReason } from "../../src/event/stop-reasons.ts";
import { describe, expect, test } from "bun:test";
import type { InteractionDraft } from "../../src/event/interaction-types.ts";
import { listToArray, reduce, replay, tableGet } from "../../src/projection/index.ts";
import { createEventFactory, textBlock, type EventFactory } from "../support/events.ts";
import { brand } from "../support/ids.ts";

const permission: InteractionDraft = { type: "permission", title: "Run ls", options: [] };
const run = (f: EventFactory, turn: string, source: "baton" | "harness" = "baton", target = "codex") =>
  f.make("state_update", { state: "running" }, { turn, target, source });
const idle = (f: EventFactory, turn: string | undefined, stopReason: StopReason = "end_turn") =>
  f.make("state_update", { state: "idle", stopReason }, turn === undefined ? { target: "codex" } : { turn, target: "codex" });
const open = (f: EventFactory, id: string, turn?: string) =>
  f.make(
    "interaction.opened",
    { interactionId: id, requester: { type: "harness", harnessTargetId: "codex" }, draft: permission },
    turn === undefined ? { target: "codex" } : { turn, target: "codex" },
  );
const resolve = (f: EventFactory, id: string, optionId = "allow") =>
  f.make("interaction.resolved", { interactionId: id, resolution: { outcome: "selected", optionId } }, { source: "user" });

describe("turns", () => {
  test("a harness-sourced first running is an observed turn (TURN-01)", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_bg", "harness", "claude")]);
    expect(state.activeTurns[brand.turn("t_bg")]).toMatchObject({ role: "observed", harnessTargetId: brand.target("claude") });
  });

  test("role and startedAt come from the first running only", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_1", "baton"), run(f, "t_1", "harness")]);
    expect(state.activeTurns[brand.turn("t_1")]).toMatchObject({ role: "driven", startedAt: "2025-01-01T12:00:00.000Z", startedSeq: 1 });
  });

  test("a duplicate idle is inert and the first stopReason stays (TURN-02)", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_1"), idle(f, "t_1", "cancelled")]);
    expect(reduce(state, idle(f, "t_1", "end_turn"))).toBe(state);
    expect(tableGet(state.stopReasons, "t_1")).toBe("cancelled");
  });

  test("a late running for a closed turn does not reopen it", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_1"), idle(f, "t_1")]);
    expect(reduce(state, run(f, "t_1", "harness"))).toBe(state);
    expect(state.runState).toBe("idle");
  });

  test("an idle without turnId clears every active turn (legacy)", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_1"), run(f, "t_2", "harness"), idle(f, undefined, "error")]);
    expect(state.activeTurns).toEqual({});
    expect(state.runState).toBe("idle");
    expect(tableGet(state.stopReasons, "t_1")).toBe("error");
    expect(tableGet(state.stopReasons, "t_2")).toBe("error");
  });

  test("a running without turnId drives nothing", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_1")]);
    expect(reduce(state, f.make("state_update", { state: "running" }, { target: "codex" }))).toBe(state);
  });

  test("driven and observed turns run side by side; closing one keeps the session running", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_1"), run(f, "t_bg", "harness", "claude"), idle(f, "t_bg")]);
    expect(Object.keys(state.activeTurns)).toEqual(["t_1"]);
    expect(state.runState).toBe("running");
  });

  test("native requires_action and back", () => {
    const f = createEventFactory();
    const s1 = replay([run(f, "t_1"), f.make("state_update", { state: "requires_action" }, { turn: "t_1", target: "codex" })]);
    expect(s1.activeTurns[brand.turn("t_1")]?.state).toBe("requires_action");
    expect(s1.runState).toBe("requires_action");
    const s2 = reduce(s1, run(f, "t_1", "harness"));
    expect(s2.activeTurns[brand.turn("t_1")]?.state).toBe("running");
    expect(s2.runState).toBe("running");
  });

  test("_baton_run_status without a turnId is dropped", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_1")]);
    expect(reduce(state, f.make("_baton_run_status", { phase: "starting" }))).toBe(state);
  });

  test("an error that will retry marks its turn retrying until output arrives", () => {
    const f = createEventFactory();
    const s1 = replay([run(f, "t_1"), f.make("_baton_error_update", { message: "rate limited", willRetry: true }, { turn: "t_1", target: "codex" })]);
    expect(s1.activeTurns[brand.turn("t_1")]?.retrying).toBe(true);
    const s2 = reduce(s1, f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("ok") }, { turn: "t_1", target: "codex" }));
    expect(s2.activeTurns[brand.turn("t_1")]?.retrying).toBe(false);
  });
});

describe("interactions and runState (IX-04)", () => {
  test("a replayed running cannot mask a pending card", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_1"), open(f, "ix_1", "t_1"), run(f, "t_1", "harness")]);
    expect(state.activeTurns[brand.turn("t_1")]?.state).toBe("requires_action");
    expect(state.runState).toBe("requires_action");
  });

  test("resolving one of two pending cards keeps requires_action; the last returns to running", () => {
    const f = createEventFactory();
    const s1 = replay([run(f, "t_1"), open(f, "ix_1", "t_1"), open(f, "ix_2", "t_1"), resolve(f, "ix_1")]);
    expect(s1.runState).toBe("requires_action");
    expect(s1.pendingInteractionIds).toEqual([brand.interaction("ix_2")]);
    const s2 = reduce(s1, resolve(f, "ix_2"));
    expect(s2.runState).toBe("running");
    expect(s2.activeTurns[brand.turn("t_1")]?.state).toBe("running");
  });

  test("first write wins for opened; first resolution wins", () => {
    const f = createEventFactory();
    const s1 = replay([run(f, "t_1"), open(f, "ix_1", "t_1")]);
    expect(reduce(s1, open(f, "ix_1", "t_9"))).toBe(s1);
    const s2 = reduce(s1, resolve(f, "ix_1", "allow"));
    const cancel = f.make("interaction.resolved", { interactionId: "ix_1", resolution: { outcome: "cancelled", reason: "turn" } });
    expect(reduce(s2, cancel)).toBe(s2);
    expect(tableGet(s2.interactions, "ix_1")?.resolution).toEqual({ outcome: "selected", optionId: "allow" });
  });

  test("a resolution for an unknown interaction changes nothing", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_1")]);
    expect(reduce(state, resolve(f, "ix_nope"))).toBe(state);
  });

  test("a pending card without a turn (Baton's or a plugin's question, a proposal) blocks nothing (plugins.md §4)", () => {
    const f = createEventFactory();
    const state = replay([open(f, "ix_1")]);
    expect(state.activeTurns).toEqual({});
    expect(state.pendingInteractionIds).toEqual([brand.interaction("ix_1")]);
    expect(state.runState).toBe("idle");
    expect(replay([run(f, "t_1"), open(f, "ix_2")]).runState).toBe("running");
  });

  test("a card opened before its turn's running makes that turn start in requires_action", () => {
    const f = createEventFactory();
    const state = replay([open(f, "ix_1", "t_1"), run(f, "t_1")]);
    expect(state.activeTurns[brand.turn("t_1")]?.state).toBe("requires_action");
  });

  test("cancel cascade: idle then cancelled/turn leaves no requires_action", () => {
    const f = createEventFactory();
    const s1 = replay([run(f, "t_1"), open(f, "ix_1", "t_1"), idle(f, "t_1", "cancelled")]);
    expect(s1.runState).toBe("requires_action");
    const s2 = reduce(s1, f.make("interaction.resolved", { interactionId: "ix_1", resolution: { outcome: "cancelled", reason: "turn" } }));
    expect(s2.runState).toBe("idle");
    expect(s2.pendingInteractionIds).toEqual([]);
  });

  test("interactions are timeline items", () => {
    const f = createEventFactory();
    const state = replay([run(f, "t_1"), open(f, "ix_1", "t_1")]);
    expect(listToArray(state.timeline)).toEqual([{ type: "interaction", id: "ix_1" }]);
  });
});
