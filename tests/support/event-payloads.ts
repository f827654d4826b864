/**
 * A fast-check arbitrary of a payload for every event kind of the registry (typed over `EventKind`: a new kind
 * does not compile until it has one), small values over a few ids so random ledgers touch the same items
 * often. Used by the fold's properties and by the export's streamed-equals-whole test.
 */
import fc from "fast-check";
import type { DraftPayloadOf, EventKind } from "../../src/event/kinds.ts";

export const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
export const turnId = fc.constantFrom("t_1", "t_2", "t_3");
const messageId = fc.constantFrom("m_1", "m_2", "m_3");
const toolCallId = fc.constantFrom("c_1", "c_2");
const block = fc.oneof(
  fc.constantFrom("a", "b", "", "cd").map((text) => ({ type: "text", text })),
  fc.constant({ type: "image", mimeType: "image/png", data: "AA" }),
);
const blocks = fc.array(block, { maxLength: 2 });
const textBlocks = fc.array(fc.constantFrom("x", "y").map((text) => ({ type: "text" as const, text })), { maxLength: 2 });

/** Drop `undefined` values so payloads look like parsed JSON. */
export function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export const PAYLOADS: { [K in EventKind]: fc.Arbitrary<DraftPayloadOf<K>> } = {
  state_update: fc.record({ state: fc.constantFrom("running", "idle", "requires_action"), stopReason: opt(fc.constantFrom("end_turn", "cancelled")) }).map(defined),
  user_message: fc.record({ messageId, content: opt(textBlocks), delivery: opt(fc.constantFrom("prompt", "steer", "follow_up")) }).map(defined),
  user_message_chunk: fc.record({ messageId, content: block }),
  agent_message_chunk: fc.record({ messageId, content: block }),
  agent_thought_chunk: fc.record({ messageId, content: block }),
  agent_message: fc.record({ messageId, content: opt(blocks) }).map(defined),
  agent_thought: fc.record({ messageId, content: opt(blocks) }).map(defined),
  tool_call_update: fc
    .record({
      toolCallId,
      title: opt(fc.option(fc.constantFrom("ls", "cat"), { nil: null })),
      kind: opt(fc.option(fc.constantFrom("read", "execute", "weird"), { nil: null })),
      status: opt(fc.option(fc.constantFrom("pending", "in_progress", "completed", "failed", "declined"), { nil: null })),
      content: opt(fc.option(blocks, { nil: null })),
      locations: opt(fc.option(fc.array(fc.record({ path: fc.constantFrom("/a", "/b") }), { maxLength: 1 }), { nil: null })),
      rawInput: opt(fc.option(fc.constantFrom({ cmd: "ls" }, "x"), { nil: null })),
    })
    .map(defined),
  tool_call_content_chunk: fc.record({ toolCallId, content: block }),
  plan_update: fc.record({
    planId: fc.constantFrom("pl_1", "pl_2"),
    entries: fc.array(fc.record({ content: fc.constantFrom("a", "b"), status: fc.constantFrom("pending", "completed") }), { maxLength: 2 }),
  }),
  proposed_plan: fc.record({ planId: fc.constantFrom("pp_1", "pp_2"), content: fc.constantFrom("plan A", "plan B") }),
  proposed_plan_implementation_started: fc.record({ planId: fc.constantFrom("pp_1", "pp_2"), implementationTurnId: turnId }),
  task_update: fc
    .record({
      taskId: fc.constantFrom("k_1", "k_2"),
      status: fc.constantFrom("in_progress", "completed", "failed", "stopped"),
      title: opt(fc.constantFrom("T1", "T2")),
      summary: opt(fc.constantFrom("S")),
      skipTranscript: opt(fc.boolean()),
      usage: opt(fc.record({ totalTokens: fc.nat(9) })),
    })
    .map(defined),
  "interaction.opened": fc.record({
    interactionId: fc.constantFrom("ix_1", "ix_2"),
    requester: fc.constant({ type: "baton" as const }),
    draft: fc.constant({ type: "permission" as const, title: "ok?", options: [] }),
  }),
  "interaction.resolved": fc.record({
    interactionId: fc.constantFrom("ix_1", "ix_2", "ix_9"),
    resolution: fc.constantFrom(
      { outcome: "selected" as const, optionId: "allow" },
      { outcome: "cancelled" as const, reason: "turn" as const },
    ),
  }),
  approval_review_update: fc
    .record({ reviewId: fc.constantFrom("arv_1", "arv_2"), decision: fc.constantFrom("approved", "denied", "aborted"), riskLevel: opt(fc.constantFrom("low", "high")) })
    .map(defined),
  usage_update: fc.record({ inputTokens: opt(fc.nat(50)), outputTokens: opt(fc.nat(50)), isEstimated: opt(fc.boolean()) }).map(defined),
  context_usage_update: fc.record({ contextUsed: opt(fc.nat(9)), contextSize: opt(fc.constant(10)) }).map(defined),
  available_commands_update: fc.record({ commands: fc.array(fc.record({ name: fc.constantFrom("a", "b") }), { maxLength: 2 }) }),
  config_option_update: fc.record({
    options: fc.array(
      fc.record({ id: fc.constant("model"), name: fc.constant("Model"), type: fc.constant("select" as const), value: fc.constantFrom("m1", "m2") }),
      { maxLength: 1 },
    ),
  }),
  approval_route_update: fc.record({ route: fc.constantFrom("user" as const, "delegated" as const, null) }),
  _baton_error_update: fc.record({ message: fc.constantFrom("boom", "retry"), willRetry: opt(fc.boolean()) }).map(defined),
  _baton_notice: fc.record({ level: fc.constantFrom("info", "warning", "error"), title: fc.constantFrom("n1", "n2") }),
  _baton_run_status: fc.record({ phase: fc.constantFrom("starting", null), title: opt(fc.constantFrom("Starting…")) }).map(defined),
  _baton_stall_notice: fc.record({ silentMs: fc.nat(200_000), level: fc.constantFrom("L1", "L2") }),
  _baton_stall_cleared: fc.record({ silentMs: fc.nat(200_000) }),
  _baton_context_snapshot: fc.record({
    snapshotId: fc.constantFrom("ctx_1", "ctx_2"),
    source: fc.constant({ kind: "session_history" as const, owner: "bs_1", key: "history" }),
    afterSeq: fc.constant(0),
    throughSeq: fc.nat(30),
    text: fc.constant("sync"),
  }),
  _baton_context_delivery_receipt: fc.record({
    snapshotId: fc.constantFrom("ctx_1", "ctx_2", "ctx_9"),
    contextEpochId: fc.constantFrom("ctxe_1", "ctxe_2"),
    transport: fc.constantFrom("sync_context", "submit_side_channel", "prompt_prepend"),
    accepted: fc.constant(true as const),
  }),
  _baton_delivery_attempt_update: fc
    .record({
      attemptId: fc.constantFrom("att_1", "att_2"),
      phase: fc.constantFrom("prepared", "dispatching", "accepted", "uncertain", "finalized"),
      outcome: opt(fc.constantFrom("completed", "cancelled")),
      detail: opt(fc.constantFrom("d")),
    })
    .map(defined),
  _baton_turn_summary: fc
    .record({ turnId, toolCalls: fc.constant<DraftPayloadOf<"_baton_turn_summary">["toolCalls"]>([]), agentText: opt(fc.constantFrom("did it")) })
    .map(defined),
  _baton_plugin_binding_update: fc
    .record({
      pluginInstanceId: fc.constantFrom("pi_0123456789abcdef", "pi_fedcba9876543210"),
      pluginId: fc.constant("acme/hello"),
      packageVersion: fc.constantFrom("0.1.0", "0.2.0"),
      treeDigest: fc.constant("sha512-x"),
      state: fc.constantFrom("active", "failed", "closed"),
      reason: opt(fc.constantFrom({ code: "exit" as const, detail: "exit code 1" }, { code: "disabled" as const })),
      registrations: opt(fc.constant(null).map(() => [{ type: "command", commandId: "hello", name: "hello", description: "Say hello" }])),
    })
    .map(defined),
  _baton_input_queued: fc.record({ messageId, turnId, targetId: fc.constantFrom("codex", "claude"), content: textBlocks, displayText: opt(fc.constantFrom("x", "y")) }).map(defined),
  _baton_input_update: fc.record({ messageId, state: fc.constantFrom("recalled", "dropped", "admitted") }),
  _baton_checkpoint: fc
    .record({
      turnId,
      commit: fc.constantFrom("a".repeat(40), "b".repeat(40)),
      dirtyPaths: fc.array(fc.constantFrom("a.txt", "src/b.ts"), { maxLength: 2 }),
      boundary: fc.constantFrom("before", "after", "rewind"),
      throughSeq: opt(fc.nat(20)),
    })
    .map(defined),
};
