/**
 * Given/when/then for every event kind of the registry: the `CASES` table is typed over `EventKind`, so a
 * new kind does not compile until it has at least one reduce case here.
 */
import { describe, expect, test } from "bun:test";
import type { AnyEvent, EventOf } from "../../src/event/envelope.ts";
import type { EventKind } from "../../src/event/kinds.ts";
import {
  changedOutsideTurnsAfter,
  initialState,
  listToArray,
  selectRewindPoints,
  reduce,
  replay,
  selectApprovalRoute,
  selectPluginCommands,
  tableGet,
  type ProjectionState,
  allSummaries,
} from "../../src/projection/index.ts";
import { createEventFactory, textBlock, type EventFactory } from "../support/events.ts";
import { brand } from "../support/ids.ts";

interface Case<K extends EventKind> {
  readonly name: string;
  readonly given?: (f: EventFactory) => AnyEvent[];
  readonly when: (f: EventFactory) => EventOf<K>;
  readonly then: (after: ProjectionState, before: ProjectionState) => void;
}

type CaseTable = { readonly [K in EventKind]: readonly Case<K>[] };

const running = (f: EventFactory, turn = "t_1", target = "codex") =>
  f.make("state_update", { state: "running" }, { turn, target, source: "baton" });
const timelineOf = (s: ProjectionState) => listToArray(s.timeline);
const queued = (f: EventFactory, messageId: string, turnId: string, text: string) =>
  f.make("_baton_input_queued", { messageId, turnId, targetId: "codex", content: [textBlock(text)], displayText: text }, { source: "user", target: "codex" });

const CASES: CaseTable = {
  state_update: [
    {
      name: "running opens a driven turn with startedAt and target from the first running",
      when: (f) => running(f, "t_1", "codex"),
      then: (s) => {
        expect(s.activeTurns[brand.turn("t_1")]).toMatchObject({ role: "driven", state: "running", harnessTargetId: brand.target("codex") });
        expect(s.activeTurns[brand.turn("t_1")]?.startedAt).toBe("2025-01-01T12:00:00.000Z");
        expect(s.runState).toBe("running");
      },
    },
    {
      name: "idle with turnId removes that turn and records its stopReason",
      given: (f) => [running(f)],
      when: (f) => f.make("state_update", { state: "idle", stopReason: "end_turn" }, { turn: "t_1", target: "codex" }),
      then: (s) => {
        expect(s.activeTurns).toEqual({});
        expect(tableGet(s.stopReasons, "t_1")).toBe("end_turn");
        expect(s.runState).toBe("idle");
      },
    },
  ],
  user_message: [
    {
      name: "upserts a user message, stored as given, on the timeline",
      when: (f) =>
        f.make("user_message", { messageId: "m_1", content: [textBlock("hi")], delivery: "prompt" }, { turn: "t_1", source: "user" }),
      then: (s) => {
        expect(tableGet(s.messages, "m_1")).toMatchObject({ role: "user", status: "completed", delivery: "prompt", turnId: "t_1" });
        expect(tableGet(s.messages, "m_1")?.content).toEqual([textBlock("hi")]);
        expect(timelineOf(s)).toEqual([{ type: "message", id: "m_1" }]);
      },
    },
    {
      name: "the admission of a queued input carries no content: the input's one stored copy becomes the message and leaves the queue",
      given: (f) => [queued(f, "m_q", "t_2", "later please")],
      when: (f) => f.make("user_message", { messageId: "m_q", delivery: "follow_up" }, { turn: "t_2", source: "user" }),
      then: (s) => {
        expect(s.queuedInputs).toEqual([]);
        expect(tableGet(s.messages, "m_q")).toMatchObject({ role: "user", delivery: "follow_up", turnId: "t_2", content: [textBlock("later please")] });
      },
    },
  ],
  _baton_input_queued: [
    {
      name: "a waiting input joins the queue in order, with its content",
      given: (f) => [queued(f, "m_1", "t_1", "first")],
      when: (f) => queued(f, "m_2", "t_2", "second"),
      then: (s) => {
        expect(s.queuedInputs.map((input) => [input.messageId, input.turnId, input.targetId, input.displayText])).toEqual([
          ["m_1", "t_1", "codex", "first"],
          ["m_2", "t_2", "codex", "second"],
        ]);
        expect(s.queuedInputs[1]?.content).toEqual([textBlock("second")]);
        expect(timelineOf(s)).toEqual([]);
      },
    },
    {
      name: "a re-delivered queueing (same messageId) is inert",
      given: (f) => [queued(f, "m_1", "t_1", "first")],
      when: (f) => queued(f, "m_1", "t_1", "first"),
      then: (s, before) => expect(s).toBe(before),
    },
  ],
  _baton_input_update: [
    {
      name: "recalled or dropped: the input leaves the queue and never reaches the transcript",
      given: (f) => [queued(f, "m_1", "t_1", "first"), queued(f, "m_2", "t_2", "second")],
      when: (f) => f.make("_baton_input_update", { messageId: "m_2", state: "recalled" }, { source: "user" }),
      then: (s) => {
        expect(s.queuedInputs.map((input) => input.messageId)).toEqual([brand.message("m_1")]);
        expect(tableGet(s.messages, "m_2")).toBeUndefined();
      },
    },
    {
      name: "an unknown input is inert",
      when: (f) => f.make("_baton_input_update", { messageId: "m_none", state: "dropped" }, { source: "user" }),
      then: (s, before) => expect(s).toBe(before),
    },
  ],
  user_message_chunk: [
    {
      name: "appends to a user message being echoed",
      given: (f) => [f.make("user_message_chunk", { messageId: "m_1", content: textBlock("he") }, { target: "claude" })],
      when: (f) => f.make("user_message_chunk", { messageId: "m_1", content: textBlock("llo") }, { target: "claude" }),
      then: (s) => expect(tableGet(s.messages, "m_1")?.content).toEqual([textBlock("hello")]),
    },
  ],
  agent_message_chunk: [
    {
      name: "appends, merging adjacent text, and marks the message in progress",
      given: (f) => [f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("Hel") }, { turn: "t_1", target: "codex" })],
      when: (f) => f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("lo") }, { turn: "t_1", target: "codex" }),
      then: (s) => {
        expect(tableGet(s.messages, "m_a")).toMatchObject({ role: "agent", status: "in_progress" });
        expect(tableGet(s.messages, "m_a")?.content).toEqual([textBlock("Hello")]);
      },
    },
  ],
  agent_thought_chunk: [
    {
      name: "creates a thought in progress",
      when: (f) => f.make("agent_thought_chunk", { messageId: "m_t", content: textBlock("hmm") }, { turn: "t_1", target: "codex" }),
      then: (s) => expect(tableGet(s.messages, "m_t")).toMatchObject({ role: "thought", status: "in_progress" }),
    },
  ],
  agent_message: [
    {
      name: "a full message replaces the accumulated chunks and marks it completed (EV-05)",
      given: (f) => [
        f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("Hel") }, { target: "codex" }),
        f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("lo wrld") }, { target: "codex" }),
      ],
      when: (f) => f.make("agent_message", { messageId: "m_a", content: [textBlock("Hello world")] }, { target: "codex" }),
      then: (s) => {
        expect(tableGet(s.messages, "m_a")?.content).toEqual([textBlock("Hello world")]);
        expect(tableGet(s.messages, "m_a")?.status).toBe("completed");
      },
    },
    {
      name: "without content keeps the accumulated content and completes it",
      given: (f) => [f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("kept") }, { target: "codex" })],
      when: (f) => f.make("agent_message", { messageId: "m_a" }, { target: "codex" }),
      then: (s) => expect(tableGet(s.messages, "m_a")).toMatchObject({ content: [textBlock("kept")], status: "completed" }),
    },
  ],
  agent_thought: [
    {
      name: "replaces a thought and marks it completed",
      given: (f) => [f.make("agent_thought_chunk", { messageId: "m_t", content: textBlock("x") }, { target: "codex" })],
      when: (f) => f.make("agent_thought", { messageId: "m_t", content: [textBlock("**Plan** think")] }, { target: "codex" }),
      then: (s) => expect(tableGet(s.messages, "m_t")).toMatchObject({ role: "thought", status: "completed", content: [textBlock("**Plan** think")] }),
    },
  ],
  tool_call_update: [
    {
      name: "omitted = unchanged, null = cleared, value = replaced, null status ignored",
      given: (f) => [
        f.make(
          "tool_call_update",
          { toolCallId: "call_1", title: "ls", kind: "execute", status: "in_progress", locations: [{ path: "/a" }] },
          { turn: "t_1", target: "codex" },
        ),
      ],
      when: (f) => f.make("tool_call_update", { toolCallId: "call_1", title: null, status: null, rawOutput: { code: 0 } }, { target: "codex" }),
      then: (s) =>
        expect(tableGet(s.toolCalls, "call_1")).toMatchObject({
          title: null,
          kind: "execute",
          status: "in_progress",
          locations: [{ path: "/a" }],
          rawOutput: { code: 0 },
        }),
    },
  ],
  tool_call_content_chunk: [
    {
      name: "appends streamed output to the tool's content",
      given: (f) => [f.make("tool_call_update", { toolCallId: "call_1", status: "in_progress", content: [textBlock("a\n")] }, { target: "codex" })],
      when: (f) => f.make("tool_call_content_chunk", { toolCallId: "call_1", content: textBlock("b\n") }, { target: "codex" }),
      then: (s) => expect(tableGet(s.toolCalls, "call_1")?.content).toEqual([textBlock("a\nb\n")]),
    },
  ],
  plan_update: [
    {
      name: "replaces entries and becomes the target's last plan",
      given: (f) => [f.make("plan_update", { planId: "pl_1", entries: [{ content: "a", status: "pending" }] }, { target: "codex" })],
      when: (f) => f.make("plan_update", { planId: "pl_1", entries: [{ content: "a", status: "completed" }] }, { target: "codex" }),
      then: (s) => {
        expect(tableGet(s.plans, "pl_1")?.entries).toEqual([{ content: "a", status: "completed" }]);
        expect(s.perTarget[brand.target("codex")]?.lastPlanId).toBe("pl_1");
        expect(timelineOf(s)).toEqual([{ type: "plan", id: "pl_1" }]);
      },
    },
  ],
  proposed_plan: [
    {
      name: "first write wins",
      given: (f) => [f.make("proposed_plan", { planId: "pl_p", content: "first" }, { target: "claude" })],
      when: (f) => f.make("proposed_plan", { planId: "pl_p", content: "second" }, { target: "claude" }),
      then: (after, before) => {
        expect(after).toBe(before);
        expect(tableGet(after.proposedPlans, "pl_p")?.content).toBe("first");
      },
    },
  ],
  proposed_plan_implementation_started: [
    {
      name: "links once",
      given: (f) => [
        f.make("proposed_plan", { planId: "pl_p", content: "do it" }, { target: "claude" }),
        f.make("proposed_plan_implementation_started", { planId: "pl_p", implementationTurnId: "t_2" }),
      ],
      when: (f) => f.make("proposed_plan_implementation_started", { planId: "pl_p", implementationTurnId: "t_3" }),
      then: (after, before) => {
        expect(after).toBe(before);
        expect(tableGet(after.proposedPlans, "pl_p")?.implementationTurnId).toBe(brand.turn("t_2"));
      },
    },
  ],
  task_update: [
    {
      name: "defined fields upsert, absent fields keep their value",
      given: (f) => [f.make("task_update", { taskId: "task_1", status: "in_progress", title: "Explore", lastToolName: "Read" })],
      when: (f) => f.make("task_update", { taskId: "task_1", status: "completed", summary: "done" }),
      then: (s) =>
        expect(tableGet(s.tasks, "task_1")).toMatchObject({ status: "completed", title: "Explore", lastToolName: "Read", summary: "done" }),
    },
  ],
  "interaction.opened": [
    {
      name: "pending, flips its turn and the session to requires_action",
      given: (f) => [running(f)],
      when: (f) =>
        f.make(
          "interaction.opened",
          {
            interactionId: "ix_1",
            requester: { type: "harness", harnessTargetId: "codex" },
            draft: { type: "permission", title: "Run ls", options: [] },
          },
          { turn: "t_1", target: "codex" },
        ),
      then: (s) => {
        expect(tableGet(s.interactions, "ix_1")?.status).toBe("pending");
        expect(s.pendingInteractionIds).toEqual([brand.interaction("ix_1")]);
        expect(s.activeTurns[brand.turn("t_1")]?.state).toBe("requires_action");
        expect(s.runState).toBe("requires_action");
      },
    },
  ],
  "interaction.resolved": [
    {
      name: "resolving the last pending interaction returns the turn to running",
      given: (f) => [
        running(f),
        f.make(
          "interaction.opened",
          { interactionId: "ix_1", requester: { type: "baton" }, draft: { type: "permission", title: "x", options: [] } },
          { turn: "t_1" },
        ),
      ],
      when: (f) => f.make("interaction.resolved", { interactionId: "ix_1", resolution: { outcome: "selected", optionId: "allow" } }, { source: "user" }),
      then: (s) => {
        expect(tableGet(s.interactions, "ix_1")).toMatchObject({ status: "resolved", resolution: { outcome: "selected", optionId: "allow" } });
        expect(s.pendingInteractionIds).toEqual([]);
        expect(s.activeTurns[brand.turn("t_1")]?.state).toBe("running");
        expect(s.runState).toBe("running");
      },
    },
  ],
  approval_review_update: [
    {
      name: "keyed by reviewId, a timeline item, never requires action",
      given: (f) => [running(f)],
      when: (f) =>
        f.make("approval_review_update", { reviewId: "arv_1", decision: "approved", riskLevel: "low", toolCallId: "call_1" }, { turn: "t_1", target: "codex" }),
      then: (s) => {
        expect(tableGet(s.approvalReviews, "arv_1")).toMatchObject({ decision: "approved", riskLevel: "low", toolCallId: "call_1" });
        expect(timelineOf(s)).toEqual([{ type: "approval_review", id: "arv_1" }]);
        expect(s.runState).toBe("running");
      },
    },
  ],
  usage_update: [
    {
      name: "accumulates deltas (two of 10 make 20)",
      given: (f) => [f.make("usage_update", { inputTokens: 10, outputTokens: 1 }, { target: "codex" })],
      when: (f) => f.make("usage_update", { inputTokens: 10, outputTokens: 2 }, { target: "codex" }),
      then: (s) => expect(s.usage).toMatchObject({ inputTokens: 20, outputTokens: 3 }),
    },
  ],
  context_usage_update: [
    {
      name: "replaces the target's snapshot (only the latest remains)",
      given: (f) => [f.make("context_usage_update", { model: "gpt", contextUsed: 10, contextSize: 100 }, { target: "codex" })],
      when: (f) => f.make("context_usage_update", { contextUsed: 20 }, { target: "codex" }),
      then: (s) => expect(s.perTarget[brand.target("codex")]?.contextUsage).toEqual({ contextUsed: 20 }),
    },
  ],
  available_commands_update: [
    {
      name: "replaces the target's command list",
      given: (f) => [f.make("available_commands_update", { commands: [{ name: "a" }, { name: "b" }] }, { target: "claude" })],
      when: (f) => f.make("available_commands_update", { commands: [{ name: "c" }] }, { target: "claude" }),
      then: (s) => expect(s.perTarget[brand.target("claude")]?.commands).toEqual([{ name: "c" }]),
    },
  ],
  config_option_update: [
    {
      name: "replaces the target's config snapshot",
      when: (f) =>
        f.make("config_option_update", { options: [{ id: "model", name: "Model", type: "select", value: "gpt-5" }] }, { target: "codex" }),
      then: (s) => expect(s.perTarget[brand.target("codex")]?.configOptions).toEqual([{ id: "model", name: "Model", type: "select", value: "gpt-5" }]),
    },
  ],
  approval_route_update: [
    {
      name: "records the route the target's harness reported",
      when: (f) => f.make("approval_route_update", { route: "delegated" }, { target: "codex" }),
      then: (s) => expect(selectApprovalRoute(s, brand.target("codex"))).toBe("delegated"),
    },
    {
      name: "a later report replaces it, per target; an unreported route reads as null",
      given: (f) => [f.make("approval_route_update", { route: "delegated" }, { target: "codex" }), f.make("approval_route_update", { route: "delegated" }, { target: "other" })],
      when: (f) => f.make("approval_route_update", { route: null }, { target: "codex" }),
      then: (s) => {
        expect(selectApprovalRoute(s, brand.target("codex"))).toBeNull();
        expect(selectApprovalRoute(s, brand.target("other"))).toBe("delegated");
        expect(selectApprovalRoute(s, brand.target("never-reported"))).toBeNull();
      },
    },
  ],
  _baton_error_update: [
    {
      name: "appends an error item err_<seq>, on the timeline, and sets lastError",
      when: (f) => f.make("_baton_error_update", { message: "boom", code: "harness_dead", retryable: false }, { turn: "t_1" }),
      then: (s) => {
        expect(tableGet(s.errors, "err_1")).toMatchObject({ message: "boom", code: "harness_dead", retryable: false, willRetry: null });
        expect(s.lastError?.id).toBe("err_1");
        expect(timelineOf(s)).toEqual([{ type: "error", id: "err_1" }]);
      },
    },
  ],
  _baton_notice: [
    {
      name: "appends a notice n_<seq> on the timeline",
      given: (f) => [running(f)],
      when: (f) => f.make("_baton_notice", { level: "warning", title: "Approval bypassed by harness-side policy" }, { turn: "t_1" }),
      then: (s) => {
        expect(tableGet(s.notices, "n_2")).toMatchObject({ level: "warning", title: "Approval bypassed by harness-side policy", detail: null });
        expect(timelineOf(s)).toEqual([{ type: "notice", id: "n_2" }]);
      },
    },
  ],
  _baton_run_status: [
    {
      name: "sets the turn's phase",
      given: (f) => [running(f)],
      when: (f) => f.make("_baton_run_status", { phase: "starting", title: "Starting codex…" }, { turn: "t_1" }),
      then: (s) => expect(s.activeTurns[brand.turn("t_1")]).toMatchObject({ phase: "starting", phaseTitle: "Starting codex…" }),
    },
    {
      name: "null clears the phase",
      given: (f) => [running(f), f.make("_baton_run_status", { phase: "starting", title: "Starting codex…" }, { turn: "t_1" })],
      when: (f) => f.make("_baton_run_status", { phase: null }, { turn: "t_1" }),
      then: (s) => expect(s.activeTurns[brand.turn("t_1")]).toMatchObject({ phase: null, phaseTitle: null }),
    },
    {
      name: "dropped when the turn is not active",
      when: (f) => f.make("_baton_run_status", { phase: "starting" }, { turn: "t_9" }),
      then: (after, before) => expect(after).toBe(before),
    },
  ],
  _baton_stall_notice: [
    {
      name: "becomes a warning notice on the timeline",
      given: (f) => [running(f)],
      when: (f) => f.make("_baton_stall_notice", { silentMs: 120_000, level: "L1" }, { turn: "t_1", target: "codex" }),
      then: (s) => {
        expect(tableGet(s.notices, "n_2")).toMatchObject({ level: "warning", title: "No output for 120s", stall: { silentMs: 120_000, level: "L1", verdict: null } });
        expect(timelineOf(s)).toEqual([{ type: "notice", id: "n_2" }]);
      },
    },
    {
      name: "a later notice of the same turn supersedes it (L2 refines L1: the agent says it is still working)",
      given: (f) => [running(f), f.make("_baton_stall_notice", { silentMs: 90_000, level: "L1" }, { turn: "t_1", target: "codex" })],
      when: (f) => f.make("_baton_stall_notice", { silentMs: 90_000, level: "L2", verdict: "active" }, { turn: "t_1", target: "codex" }),
      then: (s) => {
        expect(tableGet(s.notices, "n_2")?.stall?.state).toBe("superseded");
        expect(tableGet(s.notices, "n_3")).toMatchObject({ level: "info", title: "No output for 90s, but the agent reports it is still working", stall: { state: "open", verdict: "active" } });
        expect(tableGet(s.stallNotices, "t_1")).toBe("n_3");
      },
    },
  ],
  _baton_stall_cleared: [
    {
      name: "withdraws the turn's open stall notice",
      given: (f) => [running(f), f.make("_baton_stall_notice", { silentMs: 90_000, level: "L1" }, { turn: "t_1", target: "codex" })],
      when: (f) => f.make("_baton_stall_cleared", { silentMs: 95_000 }, { turn: "t_1" }),
      then: (s) => expect(tableGet(s.notices, "n_2")?.stall?.state).toBe("cleared"),
    },
    {
      name: "is inert for a turn without a stall notice",
      given: (f) => [running(f)],
      when: (f) => f.make("_baton_stall_cleared", { silentMs: 1 }, { turn: "t_1" }),
      then: (after, before) => expect(after).toBe(before),
    },
  ],
  _baton_context_snapshot: [
    {
      name: "records the snapshot (not its text) and does not advance anything",
      when: (f) =>
        f.make(
          "_baton_context_snapshot",
          { snapshotId: "ctx_1", source: { kind: "session_history", owner: "bs_1", key: "history" }, afterSeq: 0, throughSeq: 7, text: "<baton-sync>…</baton-sync>" },
          { target: "claude" },
        ),
      then: (s) => {
        expect(tableGet(s.contextSnapshots, "ctx_1")).toMatchObject({ targetId: "claude", throughSeq: 7, receipt: null });
        expect(s.contextEpochs).toEqual({});
        expect(timelineOf(s)).toEqual([]);
      },
    },
  ],
  _baton_context_delivery_receipt: [
    {
      name: "advances the target's epoch to the snapshot's throughSeq",
      given: (f) => [
        f.make(
          "_baton_context_snapshot",
          { snapshotId: "ctx_1", source: { kind: "session_history", owner: "bs_1", key: "history" }, afterSeq: 0, throughSeq: 7, text: "x" },
          { target: "claude" },
        ),
      ],
      when: (f) =>
        f.make("_baton_context_delivery_receipt", { snapshotId: "ctx_1", contextEpochId: "ctxe_1", transport: "prompt_prepend", accepted: true }, { target: "claude" }),
      then: (s) => {
        expect(s.contextEpochs[brand.epoch("ctxe_1")]).toMatchObject({ throughSeq: 7, targetId: brand.target("claude"), lastSnapshotId: brand.snapshot("ctx_1") });
        expect(s.perTarget[brand.target("claude")]?.contextEpochId).toBe(brand.epoch("ctxe_1"));
        expect(tableGet(s.contextSnapshots, "ctx_1")?.receipt).toMatchObject({ contextEpochId: "ctxe_1", transport: "prompt_prepend" });
      },
    },
  ],
  _baton_delivery_attempt_update: [
    {
      name: "prepared records the attempt with its input and launch snapshot",
      when: (f) =>
        f.make(
          "_baton_delivery_attempt_update",
          {
            attemptId: "att_1",
            phase: "prepared",
            inputId: "m_1",
            launchSnapshot: { harnessTargetId: "codex", harness: "codex", harnessSessionKey: "k", cwd: "/w" },
          },
          { turn: "t_1", target: "codex" },
        ),
      then: (s) => expect(tableGet(s.attempts, "att_1")).toMatchObject({ phase: "prepared", inputId: "m_1", accepted: false, turnId: "t_1" }),
    },
  ],
  _baton_turn_summary: [
    {
      name: "appends one summary per turn and drops that turn's per-turn data",
      given: (f) => [
        f.make("user_message", { messageId: "m_1", content: [textBlock("hi")] }, { turn: "t_1", source: "user" }),
        running(f),
        f.make("state_update", { state: "idle", stopReason: "end_turn" }, { turn: "t_1", target: "codex" }),
      ],
      when: (f) => f.make("_baton_turn_summary", { turnId: "t_1", stopReason: "end_turn", userMessageId: "m_1", toolCalls: [] }, { target: "codex" }),
      then: (s, before) => {
        expect(tableGet(before.turnData, "t_1")).toBeDefined();
        expect(allSummaries(s)).toEqual([{ turnId: brand.turn("t_1"), stopReason: "end_turn", userMessageId: brand.message("m_1"), toolCalls: [], seq: 4, harnessTargetId: brand.target("codex") }]);
        expect(tableGet(s.turnData, "t_1")).toBeUndefined();
      },
    },
  ],
  _baton_plugin_binding_update: [
    {
      name: "an active binding is projected with the commands it registered",
      when: (f) =>
        f.make("_baton_plugin_binding_update", {
          pluginInstanceId: "pi_0123456789abcdef",
          pluginId: "acme/hello",
          packageVersion: "0.1.0",
          treeDigest: "sha512-abc",
          state: "active",
          registrations: [{ type: "command", commandId: "hello", name: "hello", description: "Say hello" }, { type: "controller" }],
        }),
      then: (s) => {
        expect(s.plugins[brand.plugin("pi_0123456789abcdef")]).toMatchObject({ pluginId: "acme/hello", state: "active", reason: null, commands: [{ commandId: "hello", name: "hello", description: "Say hello" }] });
        expect(selectPluginCommands(s)).toEqual([{ pluginInstanceId: "pi_0123456789abcdef", pluginId: "acme/hello", command: { commandId: "hello", name: "hello", description: "Say hello" } }]);
      },
    },
    {
      name: "a failure replaces it with its reason and withdraws its commands",
      given: (f) => [
        f.make("_baton_plugin_binding_update", {
          pluginInstanceId: "pi_0123456789abcdef",
          pluginId: "acme/hello",
          packageVersion: "0.1.0",
          treeDigest: "sha512-abc",
          state: "active",
          registrations: [{ type: "command", commandId: "hello", name: "hello" }],
        }),
      ],
      when: (f) =>
        f.make("_baton_plugin_binding_update", {
          pluginInstanceId: "pi_0123456789abcdef",
          pluginId: "acme/hello",
          packageVersion: "0.1.0",
          treeDigest: "sha512-abc",
          state: "failed",
          reason: { code: "exit", detail: "exit code 3" },
        }),
      then: (s) => {
        expect(s.plugins[brand.plugin("pi_0123456789abcdef")]).toMatchObject({ state: "failed", reason: { code: "exit", detail: "exit code 3" }, commands: [] });
        expect(selectPluginCommands(s)).toEqual([]);
      },
    },
    {
      name: "an unknown state from a newer Baton reads as failed, never active",
      when: (f) =>
        f.make("_baton_plugin_binding_update", {
          pluginInstanceId: "pi_0123456789abcdef",
          pluginId: "acme/hello",
          packageVersion: "0.1.0",
          treeDigest: "sha512-abc",
          state: "hibernating" as never,
        }),
      then: (s) => {
        expect(s.plugins[brand.plugin("pi_0123456789abcdef")]).toMatchObject({ state: "failed", reason: { code: "unknown" } });
      },
    },
  ],
  _baton_checkpoint: [
    {
      name: "a before-checkpoint is listed in seq order and becomes a rewind point with the turn's prompt",
      given: (f) => [f.make("user_message", { messageId: "m_1", content: [textBlock("fix it")] }, { turn: "t_1", source: "user" }), running(f)],
      when: (f) =>
        f.make("_baton_checkpoint", { turnId: "t_1", boundary: "before", commit: "c".repeat(40), dirtyPaths: ["notes.md"], throughSeq: 0 }, { turn: "t_1", target: "codex", source: "baton" }),
      then: (s) => {
        expect(listToArray(s.fileCheckpoints)).toEqual([
          { turnId: brand.turn("t_1"), boundary: "before", commit: "c".repeat(40), dirtyPaths: ["notes.md"], dirtyUnknown: false, throughSeq: 0, undo: null, harnessTargetId: brand.target("codex"), seq: 3, ts: "2025-01-01T12:00:02.000Z" },
        ]);
        expect(selectRewindPoints(s)).toMatchObject([{ id: "t_1", kind: "turn", commit: "c".repeat(40), fork: { batonSessionId: null, throughSeq: 0 }, userText: "fix it" }]);
      },
    },
    {
      name: "a second checkpoint of the same turn and boundary is inert (first wins)",
      given: (f) => [f.make("_baton_checkpoint", { turnId: "t_1", boundary: "after", commit: "c".repeat(40), dirtyPaths: [] })],
      when: (f) => f.make("_baton_checkpoint", { turnId: "t_1", boundary: "after", commit: "d".repeat(40), dirtyPaths: ["x"] }),
      then: (s, before) => expect(s).toBe(before),
    },
    {
      name: "a rewind checkpoint is the undo point; paths changed outside turns count from later before/rewind entries only",
      given: (f) => [
        f.make("_baton_checkpoint", { turnId: "t_1", boundary: "before", commit: "1".repeat(40), dirtyPaths: [], throughSeq: 0 }),
        f.make("_baton_checkpoint", { turnId: "t_1", boundary: "after", commit: "2".repeat(40), dirtyPaths: ["agent.txt"] }),
      ],
      when: (f) =>
        f.make("_baton_checkpoint", { turnId: "t_2", boundary: "rewind", commit: "3".repeat(40), dirtyPaths: ["user.txt"], undo: { batonSessionId: "bs_old", throughSeq: 9, commit: "4".repeat(40) } }),
      then: (s) => {
        expect(selectRewindPoints(s).map((p) => [p.id, p.commit, p.fork])).toEqual([
          ["undo", "4".repeat(40), { batonSessionId: "bs_old", throughSeq: 9 }],
          ["t_1", "1".repeat(40), { batonSessionId: null, throughSeq: 0 }],
        ]);
        expect(changedOutsideTurnsAfter(s, 0)).toEqual({ paths: ["user.txt"], unknown: false });
        expect(changedOutsideTurnsAfter(s, 2)).toEqual({ paths: [], unknown: false });
      },
    },
  ],
};

describe("reduce: one given/when/then table per event kind", () => {
  for (const [kind, cases] of Object.entries(CASES) as [EventKind, readonly Case<EventKind>[]][]) {
    describe(kind, () => {
      for (const c of cases) {
        test(c.name, () => {
          const f = createEventFactory();
          const before = replay(c.given?.(f) ?? [], initialState(f.sessionId));
          const event = c.when(f);
          expect(event.kind).toBe(kind);
          c.then(reduce(before, event), before);
        });
      }
    });
  }
});

describe("reduce: forward compatibility and re-delivery", () => {
  test("an unknown kind returns the same state object (EV-08)", () => {
    const f = createEventFactory();
    const state = replay([running(f)]);
    expect(reduce(state, f.any("future_kind_v9", { anything: 1 }, { turn: "t_1" }))).toBe(state);
  });

  test("an event at or below lastSeq was already folded in and changes nothing", () => {
    const f = createEventFactory();
    const chunk = f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("x") }, { target: "codex" });
    const state = reduce(initialState(), chunk);
    expect(reduce(state, chunk)).toBe(state);
    expect(tableGet(state.messages, "m_a")?.content).toEqual([textBlock("x")]);
  });

  test("lastSeq follows changes and the session id comes from the first event's scope", () => {
    const f = createEventFactory({ sessionId: "bs_X" });
    const s1 = reduce(initialState(), running(f));
    expect(s1.lastSeq).toBe(1);
    expect(s1.batonSessionId).toBe("bs_X");
    const s2 = reduce(s1, f.make("_baton_run_status", { phase: "x" }, { turn: "t_other" }));
    expect(s2).toBe(s1);
    expect(s2.lastSeq).toBe(1);
  });
});
