/** Plans, targets, usage, context epochs, delivery attempts, errors and summaries. */
import { describe, expect, test } from "bun:test";
import type { AttemptPhase } from "../../src/event/kinds.ts";
import { checkAttemptTransition, reduce, replay, selectTargetContext, tableGet } from "../../src/projection/index.ts";
import { createEventFactory, textBlock, type EventFactory } from "../support/events.ts";
import { brand } from "../support/ids.ts";

const snapshot = (f: EventFactory, snapshotId: string, throughSeq: number, target = "claude") =>
  f.make(
    "_baton_context_snapshot",
    { snapshotId, source: { kind: "session_history", owner: "bs_1", key: "history" }, afterSeq: 0, throughSeq, text: "t" },
    { target },
  );
const receipt = (f: EventFactory, snapshotId: string, contextEpochId: string, target = "claude") =>
  f.make("_baton_context_delivery_receipt", { snapshotId, contextEpochId, transport: "submit_side_channel", accepted: true }, { target });
const attempt = (f: EventFactory, phase: AttemptPhase, extra: { outcome?: "completed" | "cancelled"; detail?: string } = {}) =>
  f.make("_baton_delivery_attempt_update", { attemptId: "att_1", phase, ...extra }, { turn: "t_1", target: "codex" });

describe("per-target isolation (EV-07)", () => {
  test("two targets of the same harness keep independent context usage, commands and plans", () => {
    const f = createEventFactory();
    const state = replay([
      f.make("context_usage_update", { contextUsed: 100, contextSize: 1000 }, { target: "codex", harness: "codex" }),
      f.make("context_usage_update", { contextUsed: 900, contextSize: 1000 }, { target: "codex-work", harness: "codex" }),
      f.make("available_commands_update", { commands: [{ name: "review" }] }, { target: "codex-work", harness: "codex" }),
      f.make("plan_update", { planId: "pl_a", entries: [] }, { target: "codex", harness: "codex" }),
      f.make("plan_update", { planId: "pl_b", entries: [] }, { target: "codex-work", harness: "codex" }),
    ]);
    expect(state.perTarget[brand.target("codex")]).toMatchObject({ contextUsage: { contextUsed: 100 }, commands: null, lastPlanId: "pl_a", harness: "codex" });
    expect(state.perTarget[brand.target("codex-work")]).toMatchObject({ contextUsage: { contextUsed: 900 }, commands: [{ name: "review" }], lastPlanId: "pl_b", harness: "codex" });
  });

  test("a target snapshot without a target id is dropped, never keyed by harness name", () => {
    const f = createEventFactory();
    const state = replay([f.make("context_usage_update", { contextUsed: 1 }, { harness: "codex" })]);
    expect(state.perTarget).toEqual({});
  });

  test("a snapshot equal to the current one returns the same state", () => {
    const f = createEventFactory();
    const update = f.make("config_option_update", { options: [{ id: "effort", name: "Effort", type: "select", value: "high" }] }, { target: "codex" });
    const state = replay([update]);
    expect(reduce(state, f.redeliver(update))).toBe(state);
  });
});

describe("usage (EV-06)", () => {
  test("accumulates per session and per turn; isEstimated sticks", () => {
    const f = createEventFactory();
    const state = replay([
      f.make("usage_update", { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2 }, { turn: "t_1" }),
      f.make("usage_update", { inputTokens: 10, isEstimated: true }, { turn: "t_1" }),
      f.make("usage_update", { outputTokens: 1 }, { turn: "t_2" }),
      f.make("usage_update", { inputTokens: 3, isEstimated: false }),
    ]);
    expect(state.usage).toEqual({ inputTokens: 23, outputTokens: 6, cacheReadTokens: 2, cacheWriteTokens: 0, reasoningTokens: 0, isEstimated: true });
    expect(tableGet(state.turnData, "t_1")?.usage).toMatchObject({ inputTokens: 20, outputTokens: 5, isEstimated: true });
    expect(tableGet(state.turnData, "t_2")?.usage).toMatchObject({ inputTokens: 0, outputTokens: 1 });
  });

  test("an empty delta changes nothing", () => {
    const f = createEventFactory();
    const state = replay([f.make("usage_update", { inputTokens: 1 }, { turn: "t_1" })]);
    expect(reduce(state, f.make("usage_update", { inputTokens: 0 }, { turn: "t_1" }))).toBe(state);
  });
});

describe("context epochs (CTX-03)", () => {
  test("no receipt, no advance", () => {
    const f = createEventFactory();
    const state = replay([snapshot(f, "ctx_1", 10)]);
    expect(state.contextEpochs).toEqual({});
    expect(state.perTarget[brand.target("claude")]).toBeUndefined();
  });

  test("throughSeq never moves backwards within an epoch", () => {
    const f = createEventFactory();
    const state = replay([snapshot(f, "ctx_1", 10), snapshot(f, "ctx_2", 20), receipt(f, "ctx_2", "ctxe_1"), receipt(f, "ctx_1", "ctxe_1")]);
    expect(state.contextEpochs[brand.epoch("ctxe_1")]).toMatchObject({ throughSeq: 20, lastSnapshotId: brand.snapshot("ctx_2") });
    expect(tableGet(state.contextSnapshots, "ctx_1")?.receipt).not.toBeNull();
  });

  test("a fresh native session starts a new epoch for the same target", () => {
    const f = createEventFactory();
    const state = replay([snapshot(f, "ctx_1", 10), receipt(f, "ctx_1", "ctxe_1"), snapshot(f, "ctx_2", 30), receipt(f, "ctx_2", "ctxe_2")]);
    expect(state.perTarget[brand.target("claude")]?.contextEpochId).toBe(brand.epoch("ctxe_2"));
    expect(state.contextEpochs[brand.epoch("ctxe_1")]?.throughSeq).toBe(10);
    expect(state.contextEpochs[brand.epoch("ctxe_2")]?.throughSeq).toBe(30);
    expect(selectTargetContext(state, brand.target("claude"))).toEqual({ contextEpochId: brand.epoch("ctxe_2"), throughSeq: 30 });
    expect(selectTargetContext(state, brand.target("codex"))).toBeNull();
  });

  test("a receipt for an unknown snapshot, or a second receipt, changes nothing", () => {
    const f = createEventFactory();
    const s1 = replay([snapshot(f, "ctx_1", 10), receipt(f, "ctx_1", "ctxe_1")]);
    expect(reduce(s1, receipt(f, "ctx_9", "ctxe_1"))).toBe(s1);
    expect(reduce(s1, receipt(f, "ctx_1", "ctxe_2"))).toBe(s1);
  });
});

describe("delivery attempts (§3.5)", () => {
  test("prepared → dispatching → accepted → uncertain → finalized keeps accepted and takes the outcome", () => {
    const f = createEventFactory();
    const state = replay([
      attempt(f, "prepared"),
      attempt(f, "dispatching"),
      attempt(f, "accepted"),
      attempt(f, "uncertain", { detail: "cancel grace expired" }),
      attempt(f, "finalized", { outcome: "cancelled" }),
    ]);
    expect(tableGet(state.attempts, "att_1")).toMatchObject({
      phase: "finalized",
      accepted: true,
      outcome: "cancelled",
      detail: "cancel grace expired",
      preparedSeq: 1,
      updatedSeq: 5,
    });
    expect(state.attemptAnomalies).toEqual([]);
  });

  test("a phase before prepared is ignored and listed as an anomaly, once", () => {
    const f = createEventFactory();
    const state = replay([attempt(f, "accepted"), attempt(f, "accepted")]);
    expect(tableGet(state.attempts, "att_1")).toBeUndefined();
    expect(state.attemptAnomalies).toEqual([{ seq: 1, attemptId: brand.attempt("att_1"), from: null, to: "accepted" }]);
  });

  test("a replayed phase (e.g. prepared) changes nothing; finalized is terminal", () => {
    const f = createEventFactory();
    const s1 = replay([attempt(f, "prepared"), attempt(f, "finalized", { outcome: "completed" })]);
    expect(reduce(s1, attempt(f, "finalized", { outcome: "cancelled" }))).toBe(s1);
    const s2 = reduce(s1, attempt(f, "accepted"));
    expect(tableGet(s2.attempts, "att_1")?.phase).toBe("finalized");
    expect(s2.attemptAnomalies).toEqual([{ seq: 4, attemptId: brand.attempt("att_1"), from: "finalized", to: "accepted" }]);
  });

  test("checkAttemptTransition follows the state machine", () => {
    const allowed: Record<AttemptPhase, AttemptPhase[]> = {
      prepared: ["dispatching", "finalized"],
      dispatching: ["accepted", "uncertain", "finalized"],
      accepted: ["uncertain", "finalized"],
      uncertain: ["accepted", "finalized"],
      finalized: [],
    };
    const phases = Object.keys(allowed) as AttemptPhase[];
    for (const from of phases) {
      for (const to of phases) {
        const verdict = checkAttemptTransition(from, to);
        expect({ from, to, ok: verdict.ok }).toEqual({ from, to, ok: allowed[from].includes(to) });
        if (from === to) expect(verdict).toMatchObject({ ok: false, duplicate: true });
      }
    }
    expect(checkAttemptTransition(null, "prepared").ok).toBe(true);
    expect(checkAttemptTransition(null, "accepted")).toMatchObject({ ok: false, duplicate: false, reason: "attempt phase 'accepted' before 'prepared'" });
  });
});

describe("errors, notices, plans, summaries", () => {
  test("errors and notices are keyed by seq; lastError is the latest error", () => {
    const f = createEventFactory();
    const state = replay([
      f.make("_baton_error_update", { message: "one" }),
      f.make("_baton_notice", { level: "info", title: "hello", detail: "there" }),
      f.make("_baton_error_update", { message: "two", code: "x" }),
    ]);
    expect(state.lastError).toMatchObject({ id: "err_3", message: "two", code: "x" });
    expect(state.errors.size).toBe(2);
    expect(tableGet(state.notices, "n_2")).toMatchObject({ title: "hello", detail: "there", stall: null });
  });

  test("plan_update without a target is kept but sets no last plan; an equal update changes nothing", () => {
    const f = createEventFactory();
    const update = f.make("plan_update", { planId: "pl_1", entries: [{ content: "a", status: "pending", priority: "high" }] });
    const state = replay([update]);
    expect(state.perTarget).toEqual({});
    expect(reduce(state, f.redeliver(update))).toBe(state);
  });

  test("a second summary for a turn is inert; late events after a summary collect no per-turn data", () => {
    const f = createEventFactory();
    const state = replay([
      f.make("agent_message", { messageId: "m_a", content: [textBlock("x")] }, { turn: "t_1" }),
      f.make("_baton_turn_summary", { turnId: "t_1", toolCalls: [] }),
      f.make("usage_update", { inputTokens: 5 }, { turn: "t_1" }),
    ]);
    expect(reduce(state, f.make("_baton_turn_summary", { turnId: "t_1", agentText: "other", toolCalls: [] }))).toBe(state);
    expect(state.turnSummaries.length).toBe(1);
    expect(tableGet(state.turnData, "t_1")).toBeUndefined();
    expect(state.usage.inputTokens).toBe(5);
  });

  test("tasks with skipTranscript are kept and stay on the timeline (the selector hides them)", () => {
    const f = createEventFactory();
    const state = replay([f.make("task_update", { taskId: "k", status: "in_progress", skipTranscript: true })]);
    expect(state.timeline.length).toBe(1);
    expect(tableGet(state.tasks, "k")?.skipTranscript).toBe(true);
  });
});
