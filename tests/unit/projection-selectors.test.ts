/** Selectors: resolved transcript, activity, footer, pending interactions, target plan; memo identity. */
import { describe, expect, test } from "bun:test";
import {
  createTranscriptSelector,
  reduce,
  replay,
  selectActivity,
  selectFooter,
  selectLastDrivenTarget,
  selectPendingInteractions,
  selectTargetPlan,
  selectTranscriptWindow,
} from "../../src/projection/index.ts";
import { createEventFactory, textBlock, type EventFactory } from "../support/events.ts";
import { brand } from "../support/ids.ts";

function session(f: EventFactory) {
  return [
    f.make("user_message", { messageId: "m_u", content: [textBlock("go")] }, { turn: "t_1", source: "user" }),
    f.make("state_update", { state: "running" }, { turn: "t_1", target: "codex", source: "baton" }),
    f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("on it") }, { turn: "t_1", target: "codex" }),
    f.make("tool_call_update", { toolCallId: "call_1", title: "rg foo", kind: "search", status: "in_progress" }, { turn: "t_1", target: "codex" }),
    f.make("task_update", { taskId: "k_hidden", status: "in_progress", skipTranscript: true }, { turn: "t_1", target: "codex" }),
    f.make("_baton_notice", { level: "info", title: "note" }, { turn: "t_1" }),
    f.make(
      "interaction.opened",
      { interactionId: "ix_1", requester: { type: "harness", harnessTargetId: "codex" }, draft: { type: "permission", title: "ok?", options: [] } },
      { turn: "t_1", target: "codex" },
    ),
    f.make("state_update", { state: "running" }, { turn: "t_bg", target: "claude", source: "harness" }),
    f.make("_baton_run_status", { phase: "starting", title: "Starting claude…" }, { turn: "t_bg" }),
    f.make("usage_update", { inputTokens: 100, outputTokens: 20 }, { turn: "t_1", target: "codex" }),
    f.make("context_usage_update", { contextUsed: 5, contextSize: 50 }, { target: "codex" }),
    f.make("plan_update", { planId: "pl_1", entries: [{ content: "a", status: "completed" }, { content: "b", status: "in_progress" }] }, { turn: "t_1", target: "codex" }),
  ];
}

describe("selectTranscript", () => {
  test("resolves timeline items in first-seen order and hides skipTranscript tasks", () => {
    const f = createEventFactory();
    const select = createTranscriptSelector();
    const entries = select(replay(session(f)));
    expect(entries.map((e) => `${e.type}:${e.id}`)).toEqual([
      "message:m_u",
      "message:m_a",
      "tool_call:call_1",
      "notice:n_6",
      "interaction:ix_1",
      "plan:pl_1",
    ]);
    expect(entries[1]?.item).toMatchObject({ messageId: "m_a", content: [textBlock("on it")] });
  });

  test("unchanged items keep their entry objects; an unchanged state returns the same array", () => {
    const f = createEventFactory();
    const select = createTranscriptSelector();
    const s1 = replay(session(f));
    const first = select(s1);
    expect(select(s1)).toBe(first);
    const s2 = reduce(s1, f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("!") }, { turn: "t_1" }));
    const second = select(s2);
    expect(second).not.toBe(first);
    expect(second[0]).toBe(first[0]!);
    expect(second[1]).not.toBe(first[1]!);
    expect(second[2]).toBe(first[2]!);
    const s3 = reduce(s2, f.make("usage_update", { inputTokens: 1 }));
    expect(select(s3)).toBe(second);
  });

  test("a window resolves only the requested range", () => {
    const f = createEventFactory();
    const state = replay(session(f));
    expect(selectTranscriptWindow(state, 1, 3).map((e) => e.id)).toEqual(["m_a", "call_1"]);
    // index 3 is the skipTranscript task: hidden, so the window yields fewer entries than it spans
    expect(selectTranscriptWindow(state, 3, 99).map((e) => e.id)).toEqual(["n_6", "ix_1", "pl_1"]);
  });
});

describe("selectActivity", () => {
  test("lists active turns in start order with role, target, phase, active tool", () => {
    const f = createEventFactory();
    const activity = selectActivity(replay(session(f)));
    expect(activity.runState).toBe("requires_action");
    expect(activity.turns).toEqual([
      {
        turnId: brand.turn("t_1"),
        role: "driven",
        state: "requires_action",
        harnessTargetId: brand.target("codex"),
        startedAt: "2025-01-01T12:00:01.000Z",
        phase: null,
        phaseTitle: null,
        retrying: false,
        streaming: null,
        activeTool: { toolCallId: "call_1", kind: "search", title: "rg foo", status: "in_progress" },
      },
      {
        turnId: brand.turn("t_bg"),
        role: "observed",
        state: "running",
        harnessTargetId: brand.target("claude"),
        startedAt: "2025-01-01T12:00:07.000Z",
        phase: "starting",
        phaseTitle: "Starting claude…",
        retrying: false,
        streaming: null,
        activeTool: null,
      },
    ]);
    expect(activity.pendingInteractions.map((ix) => ix.interactionId)).toEqual([brand.interaction("ix_1")]);
  });

  test("the same object comes back when a chunk changes nothing the activity shows", () => {
    const f = createEventFactory();
    // The first chunk after the tool call starts an answer stream (the activity shows it); more chunks change nothing.
    const s1 = reduce(replay(session(f)), f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("…") }, { turn: "t_1" }));
    const a1 = selectActivity(s1);
    expect(a1.turns[0]?.streaming).toBe("answer");
    const s2 = reduce(s1, f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("…") }, { turn: "t_1" }));
    expect(selectActivity(s2)).toBe(a1);
    const s3 = reduce(s2, f.make("tool_call_update", { toolCallId: "call_1", status: "completed" }, { turn: "t_1" }));
    expect(selectActivity(s3).turns[0]?.activeTool).toBeNull();
  });
});

describe("selectFooter and selectPendingInteractions", () => {
  test("tokens, summarized turn count, per-target context usage, queue left to the controller", () => {
    const f = createEventFactory();
    const s1 = replay(session(f));
    const footer = selectFooter(s1);
    expect(footer).toEqual({
      tokens: { input: 100, output: 20, total: 120, cacheRead: 0, cacheWrite: 0, reasoning: 0, estimated: false },
      turns: 0,
      contextUsage: { codex: { contextUsed: 5, contextSize: 50 } },
      queue: null,
    });
    const s2 = reduce(s1, f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("…") }, { turn: "t_1" }));
    expect(selectFooter(s2)).toBe(footer);
    const s3 = reduce(s2, f.make("_baton_turn_summary", { turnId: "t_1", toolCalls: [] }));
    expect(selectFooter(s3).turns).toBe(1);
  });

  test("pending interactions in opened order; stable while unchanged", () => {
    const f = createEventFactory();
    const s1 = replay(session(f));
    const pending = selectPendingInteractions(s1);
    expect(pending.map((ix) => ix.interactionId)).toEqual([brand.interaction("ix_1")]);
    const s2 = reduce(s1, f.make("usage_update", { outputTokens: 1 }));
    expect(selectPendingInteractions(s2)).toBe(pending);
    const s3 = reduce(s2, f.make("interaction.resolved", { interactionId: "ix_1", resolution: { outcome: "cancelled", reason: "user" } }));
    expect(selectPendingInteractions(s3)).toEqual([]);
  });
});

describe("selectTargetPlan", () => {
  test("pinned while the target runs and an entry is unfinished", () => {
    const f = createEventFactory();
    const s1 = replay(session(f));
    expect(selectTargetPlan(s1, brand.target("codex"))).toMatchObject({ done: 1, total: 2, pinned: true });
    expect(selectTargetPlan(s1, brand.target("claude"))).toBeNull();
    const s2 = reduce(s1, f.make("state_update", { state: "idle", stopReason: "end_turn" }, { turn: "t_1", target: "codex" }));
    expect(selectTargetPlan(s2, brand.target("codex"))?.pinned).toBe(false);
  });
});

describe("selectLastDrivenTarget (#11.1)", () => {
  const turn = (f: EventFactory, turnId: string, target: string, source: "baton" | "harness") => [
    f.make("state_update", { state: "running" }, { turn: turnId, target, source }),
    f.make("state_update", { state: "idle", stopReason: "end_turn" }, { turn: turnId, target }),
    f.make("_baton_turn_summary", { turnId, role: source === "baton" ? "driven" : "observed", toolCalls: [] }, { turn: turnId, target, source: "baton" }),
  ];

  test("null before any driven turn; then the newest driven turn's target; observed turns do not count", () => {
    const f = createEventFactory();
    expect(selectLastDrivenTarget(replay([]))).toBeNull();
    expect(selectLastDrivenTarget(replay(turn(f, "t_bg", "codex", "harness")))).toBeNull();
    const g = createEventFactory();
    const events = [...turn(g, "t_1", "codex", "baton"), ...turn(g, "t_2", "claude", "baton"), ...turn(g, "t_3", "codex", "harness")];
    expect(selectLastDrivenTarget(replay(events))).toBe("claude");
    expect(selectLastDrivenTarget(replay([...events, ...turn(g, "t_4", "codex-work", "baton")]))).toBe("codex-work");
  });

  test("a summary that does not say its role (an older ledger) does not count", () => {
    const f = createEventFactory();
    const events = [...turn(f, "t_1", "claude", "baton"), f.make("_baton_turn_summary", { turnId: "t_2", toolCalls: [] }, { turn: "t_2", target: "codex", source: "baton" })];
    expect(selectLastDrivenTarget(replay(events))).toBe("claude");
  });

  test("a running turn without a summary yet does not move it", () => {
    const f = createEventFactory();
    const events = [...turn(f, "t_1", "claude", "baton"), f.make("state_update", { state: "running" }, { turn: "t_2", target: "codex", source: "baton" })];
    expect(selectLastDrivenTarget(replay(events))).toBe("claude");
  });
});
