/**
 * The closed event-kind registry (inventory §3.2). Each kind is defined once: payload schema + one-line doc.
 * The `EventKind` union and payload types are derived from this table; adding a kind is one row.
 */
import type { z } from "zod";
import { lazySchema, type ZodNamespace } from "../shared/lazy-schema.ts";
import { contentBlockSchema, contextAttachmentSchema, promptBlockSchema } from "./content.ts";
import { interactionDraftSchema, requesterSchema, resolutionSchema } from "./interaction-types.ts";
import { built } from "./lazy-schema.ts";
import { STOP_REASONS } from "./stop-reasons.ts";
import {
  attemptIdField,
  epochIdField,
  interactionIdField,
  messageIdField,
  messageRefField,
  pluginInstanceIdField,
  reviewIdField,
  sessionIdField,
  snapshotIdField,
  targetIdField,
  targetRefField,
  turnIdField,
} from "./id-fields.ts";
import {
  TOOL_KINDS,
  TOOL_STATUSES,
  RUN_STATES,
  ATTEMPT_PHASES,
  ATTEMPT_OUTCOMES,
  CONTEXT_TRANSPORTS,
  CONTEXT_SOURCE_KINDS,
  TASK_STATUSES,
  RECONCILE_STATES,
  APPROVAL_ROUTES,
  PLUGIN_BINDING_STATES,
  PLUGIN_REASON_CODES,
  INPUT_EXITS,
  CHECKPOINT_BOUNDARIES,
  TURN_ROLES,
  STREAM_CLASSES,
} from "./vocabulary.ts";

const messageId = messageIdField;
const contentArray = lazySchema((z) => z.array(contentBlockSchema));
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export * from "./vocabulary.ts";
const gitCommit = lazySchema((z) => z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a full git commit id"));

const usageFields = (z: ZodNamespace) => ({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
  isEstimated: z.boolean().optional(),
});

const sessionConfigOption = lazySchema((z) => z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.enum(["select", "boolean"]),
  category: z.string().optional(),
  value: z.union([z.string(), z.boolean(), z.null()]),
  options: z.array(z.looseObject({ value: z.string(), name: z.string(), description: z.string().optional() })).optional(),
}));

export const launchSnapshotSchema = lazySchema((z) => z.looseObject({
  harnessTargetId: targetRefField,
  harness: z.string(),
  harnessSessionKey: z.string(),
  cwd: z.string(),
  model: z.string().optional(),
  effort: z.string().optional(),
  mode: z.string().optional(),
}));

export const EVENT_KINDS = {
  state_update: {
    doc: "A turn's run state: running, requires_action, or idle (closes that turn with a closed stopReason; the harness's own word in nativeStopReason).",
    get payload() { return built(this, (z) => z.looseObject({ state: z.enum(RUN_STATES), stopReason: z.enum(STOP_REASONS).optional(), nativeStopReason: z.string().optional() })); },
  },
  user_message: {
    doc: "What the user (or a steer/follow-up) submitted; upsert by messageId.",
    get payload() { return built(this, (z) => z.looseObject({
      messageId,
      content: z.array(promptBlockSchema).optional(),
      delivery: z.enum(["prompt", "steer", "follow_up"]).optional(),
    })); },
  },
  user_message_chunk: {
    doc: "A piece of a user message echoed by a harness; appended.",
    stream: "content",
    get payload() { return built(this, (z) => z.looseObject({ messageId, content: contentBlockSchema })); },
  },
  agent_message_chunk: {
    doc: "A streamed piece of agent text; appended, message in progress.",
    stream: "content",
    get payload() { return built(this, (z) => z.looseObject({ messageId, content: contentBlockSchema })); },
  },
  agent_thought_chunk: {
    doc: "A streamed piece of agent reasoning; appended, thought in progress.",
    stream: "content",
    get payload() { return built(this, (z) => z.looseObject({ messageId, content: contentBlockSchema })); },
  },
  agent_message: {
    doc: "A complete agent message; replaces streamed content and marks it completed.",
    get payload() { return built(this, (z) => z.looseObject({ messageId, content: contentArray.optional() })); },
  },
  agent_thought: {
    doc: "A complete agent thought; replaces streamed content and marks it completed.",
    get payload() { return built(this, (z) => z.looseObject({ messageId, content: contentArray.optional() })); },
  },
  tool_call_update: {
    doc: "A tool call upsert: omitted = unchanged, null = cleared, value = replaced.",
    get payload() { return built(this, (z) => z.looseObject({
      toolCallId: z.string().min(1),
      title: nullable(z.string()),
      kind: nullable(z.string()),
      status: nullable(z.string()),
      content: nullable(contentArray),
      locations: nullable(z.array(z.looseObject({ path: z.string(), line: z.number().optional() }))),
      rawInput: z.unknown().optional(),
      rawOutput: z.unknown().optional(),
    })); },
  },
  tool_call_content_chunk: {
    doc: "Streamed tool output appended to a tool call's content.",
    stream: "content",
    get payload() { return built(this, (z) => z.looseObject({ toolCallId: z.string().min(1), content: contentBlockSchema })); },
  },
  plan_update: {
    doc: "A plan's entries, replaced whole; becomes the target's latest plan.",
    get payload() { return built(this, (z) => z.looseObject({
      planId: z.string().min(1),
      entries: z.array(
        z.looseObject({ content: z.string(), priority: z.string().optional(), status: z.string() }),
      ),
    })); },
  },
  proposed_plan: {
    doc: "A plan the agent proposes to implement (plan mode); first write wins.",
    get payload() { return built(this, (z) => z.looseObject({ planId: z.string().min(1), content: z.string() })); },
  },
  proposed_plan_implementation_started: {
    doc: "Links a proposed plan to the turn that implements it; once.",
    get payload() { return built(this, (z) => z.looseObject({ planId: z.string().min(1), implementationTurnId: turnIdField })); },
  },
  task_update: {
    doc: "A background task or sub-agent's progress; defined fields upsert.",
    get payload() { return built(this, (z) => z.looseObject({
      taskId: z.string().min(1),
      status: z.enum(TASK_STATUSES),
      title: z.string().optional(),
      taskType: z.string().optional(),
      summary: z.string().optional(),
      lastToolName: z.string().optional(),
      usage: z
        .looseObject({ totalTokens: z.number().optional(), toolUses: z.number().optional(), durationMs: z.number().optional() })
        .optional(),
      skipTranscript: z.boolean().optional(),
    })); },
  },
  "interaction.opened": {
    doc: "An approval, question or hook-trust card opened; its turn requires action until resolved.",
    get payload() { return built(this, (z) => z.looseObject({
      interactionId: interactionIdField,
      requester: requesterSchema,
      draft: interactionDraftSchema,
    })); },
  },
  "interaction.resolved": {
    doc: "The one resolution of an interaction (answer, or cancel with a reason); first wins.",
    get payload() { return built(this, (z) => z.looseObject({ interactionId: interactionIdField, resolution: resolutionSchema })); },
  },
  approval_review_update: {
    doc: "A harness-side reviewer decided an approval (no card was opened).",
    get payload() { return built(this, (z) => z.looseObject({
      reviewId: reviewIdField,
      toolCallId: z.string().optional(),
      decision: z.enum(["approved", "denied", "aborted"]),
      riskLevel: z.string().optional(),
      userAuthorization: z.string().optional(),
      rationale: z.string().optional(),
      actionType: z.string().optional(),
    })); },
  },
  approval_route_update: {
    doc: "Who answers the target's approvals, as its harness reported it when the session opened (null: not reported).",
    get payload() { return built(this, (z) => z.looseObject({ route: z.enum(APPROVAL_ROUTES).nullable() })); },
  },
  usage_update: {
    doc: "Token usage delta; accumulated.",
    stream: "tick",
    get payload() { return built(this, (z) => z.looseObject(usageFields(z))); },
  },
  context_usage_update: {
    doc: "The target's context-window usage snapshot; replaces the previous one.",
    get payload() { return built(this, (z) => z.looseObject({
      model: z.string().optional(),
      contextUsed: z.number().optional(),
      contextSize: z.number().optional(),
      cost: z.looseObject({ amount: z.number(), currency: z.string() }).optional(),
    })); },
  },
  available_commands_update: {
    doc: "The target's native slash commands; replaces the previous list.",
    get payload() { return built(this, (z) => z.looseObject({
      commands: z.array(
        z.looseObject({
          name: z.string(),
          description: z.string().optional(),
          input: z.looseObject({ hint: z.string() }).optional(),
        }),
      ),
    })); },
  },
  config_option_update: {
    doc: "The target's session config (model, effort, mode); replaces the previous snapshot.",
    get payload() { return built(this, (z) => z.looseObject({ options: z.array(sessionConfigOption) })); },
  },
  _baton_error_update: {
    doc: "An error shown on the timeline (harness or Baton); a limit failure's code is one of LIMIT_CODES, the harness's word in nativeCode.",
    get payload() { return built(this, (z) => z.looseObject({
      message: z.string(),
      code: z.string().optional(),
      nativeCode: z.string().optional(),
      retryable: z.boolean().optional(),
      willRetry: z.boolean().optional(),
    })); },
  },
  _baton_notice: {
    doc: "An informational, warning or error notice on the timeline.",
    get payload() { return built(this, (z) => z.looseObject({ level: z.enum(["info", "warning", "error"]), title: z.string(), detail: z.string().optional() })); },
  },
  _baton_run_status: {
    doc: "A turn's transient phase (e.g. 'Starting codex…'); null clears it.",
    get payload() { return built(this, (z) => z.looseObject({ phase: z.string().nullable(), title: z.string().optional() })); },
  },
  _baton_stall_notice: {
    doc: "A running turn has been silent for a while; what the harness said when asked (if it can be asked).",
    get payload() { return built(this, (z) => z.looseObject({
      silentMs: z.number(),
      level: z.enum(["L1", "L2"]),
      verdict: z.enum(RECONCILE_STATES).optional(),
      detail: z.string().optional(),
    })); },
  },
  _baton_stall_cleared: {
    doc: "Output resumed on a turn that had a stall notice: the notice is withdrawn.",
    get payload() { return built(this, (z) => z.looseObject({ silentMs: z.number() })); },
  },
  _baton_context_snapshot: {
    doc: "The history assembled for a target before a turn; delivered only once a receipt follows.",
    get payload() { return built(this, (z) => z.looseObject({
      snapshotId: snapshotIdField,
      // plugin_resource: owner = the plugin instance (pi_…), key = "<apiVersion>/<Kind>/<name>#<uid>".
      source: z.looseObject({ kind: z.enum(CONTEXT_SOURCE_KINDS), owner: z.string(), key: z.string() }),
      targetId: targetRefField.optional(),
      afterSeq: z.number(),
      throughSeq: z.number(),
      text: z.string(),
    })); },
  },
  _baton_context_delivery_receipt: {
    doc: "The adapter accepted a snapshot; the target session's context epoch advances.",
    get payload() { return built(this, (z) => z.looseObject({
      snapshotId: snapshotIdField,
      contextEpochId: epochIdField,
      transport: z.enum(CONTEXT_TRANSPORTS),
      accepted: z.literal(true),
    })); },
  },
  _baton_input_queued: {
    doc: "A prompt (or /compact) that waits for the driven-turn slot, recorded when it is queued: identity, target, content (the one copy; its user_message refers to it by messageId).",
    get payload() { return built(this, (z) => z.looseObject({
      messageId,
      turnId: turnIdField,
      targetId: targetIdField,
      content: z.array(promptBlockSchema),
      displayText: z.string().optional(),
      implementsPlan: z.string().optional(),
      control: z.enum(["compact"]).optional(),
      /** Plugin Resources it references (`@` providers, a proposal's contextRefs), as attached at submit: sent with it, also after a restart. */
      context: z.array(contextAttachmentSchema).optional(),
    })); },
  },
  _baton_input_update: {
    doc: "A queued input left the queue without a user message: recalled into the composer, dropped, or admitted as a control turn.",
    get payload() { return built(this, (z) => z.looseObject({ messageId, state: z.enum(INPUT_EXITS) })); },
  },
  _baton_delivery_attempt_update: {
    doc: "A Delivery Attempt's phase: prepared before dispatch, then dispatching/accepted/uncertain/finalized.",
    get payload() { return built(this, (z) => z.looseObject({
      attemptId: attemptIdField,
      phase: z.enum(ATTEMPT_PHASES),
      inputId: z.string().optional(),
      launchSnapshot: launchSnapshotSchema.optional(),
      outcome: z.enum(ATTEMPT_OUTCOMES).optional(),
      detail: z.string().optional(),
    })); },
  },
  _baton_plugin_binding_update: {
    doc: "A plugin binding became active (with what it registered), failed (with why), or closed.",
    get payload() { return built(this, (z) => z.looseObject({
      pluginInstanceId: pluginInstanceIdField,
      pluginId: z.string().min(1),
      packageVersion: z.string().min(1),
      treeDigest: z.string().min(1),
      state: z.enum(PLUGIN_BINDING_STATES),
      reason: z.looseObject({ code: z.enum(PLUGIN_REASON_CODES), detail: z.string().optional() }).optional(),
      registrations: z
        .array(
          z.looseObject({
            type: z.string().min(1),
            commandId: z.string().optional(),
            name: z.string().optional(),
            description: z.string().optional(),
          }),
        )
        .optional(),
    })); },
  },
  _baton_turn_summary: {
    doc: "One per turn: what the user asked and the agent said (by messageId: each text is stored once), what it did, how it ended.",
    get payload() { return built(this, (z) => z.looseObject({
      turnId: turnIdField,
      role: z.enum(TURN_ROLES).optional(),
      stopReason: z.enum(STOP_REASONS).optional(),
      nativeStopReason: z.string().optional(),
      /** The turn's prompt (its text is in that user message). */
      userMessageId: messageRefField.optional(),
      /** What the user steered into the turn after its prompt (user messages), in order. */
      steerMessageIds: z.array(messageRefField).optional(),
      /** The agent's messages with text, in order. */
      agentMessageIds: z.array(messageRefField).optional(),
      /** Wave-1 ledgers copied the texts here; still read when present. */
      userText: z.string().optional(),
      steers: z.array(z.string()).optional(),
      agentText: z.string().optional(),
      toolCalls: z.array(
        z.looseObject({ toolCallId: z.string(), title: z.string(), kind: z.string(), status: z.string() }),
      ),
      usage: z.looseObject(usageFields(z)).optional(),
      startedAt: z.string().optional(),
      endedAt: z.string().optional(),
    })); },
  },
  _baton_checkpoint: {
    doc: "A file checkpoint: the working tree as a git commit before/after a driven turn or where a rewind restored it; dirtyPaths changed since the previous one.",
    get payload() { return built(this, (z) => z.looseObject({
      turnId: turnIdField,
      commit: gitCommit,
      dirtyPaths: z.array(z.string()),
      boundary: z.enum(CHECKPOINT_BOUNDARIES),
      /** The comparison with the previous checkpoint failed: anything may have changed. */
      dirtyUnknown: z.boolean().optional(),
      /** before: the last seq before the turn began (the fork point of a rewind to it). */
      throughSeq: z.number().int().nonnegative().optional(),
      /** rewind: where the worktree and conversation were before this rewind (to undo it). */
      undo: z.looseObject({ batonSessionId: sessionIdField, throughSeq: z.number().int().nonnegative(), commit: gitCommit }).optional(),
    })); },
  },
} as const satisfies Record<string, { doc: string; payload: z.ZodType; stream?: StreamClass }>;

export type EventKind = keyof typeof EVENT_KINDS;
/** A stored event's payload: ids branded (the store validated it on append). */
export type PayloadOf<K extends EventKind> = z.infer<(typeof EVENT_KINDS)[K]["payload"]>;
/** What a producer hands to append: the same fields, ids as plain strings (append parses them). */
export type DraftPayloadOf<K extends EventKind> = z.input<(typeof EVENT_KINDS)[K]["payload"]>;
export type LaunchSnapshot = z.infer<typeof launchSnapshotSchema>;
export type ToolKind = (typeof TOOL_KINDS)[number];
export type ToolStatus = (typeof TOOL_STATUSES)[number];
export type RunState = (typeof RUN_STATES)[number];
export type AttemptPhase = (typeof ATTEMPT_PHASES)[number];
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];
export type ContextTransport = (typeof CONTEXT_TRANSPORTS)[number];
export type ReconcileState = (typeof RECONCILE_STATES)[number];
export type InputExit = (typeof INPUT_EXITS)[number];
export type CheckpointBoundary = (typeof CHECKPOINT_BOUNDARIES)[number];
export type ApprovalRoute = (typeof APPROVAL_ROUTES)[number];
export type TurnRole = (typeof TURN_ROLES)[number];
export type StreamClass = (typeof STREAM_CLASSES)[number];
export type TurnSummaryPayload = PayloadOf<"_baton_turn_summary">;
export type PluginBindingState = (typeof PLUGIN_BINDING_STATES)[number];
export type PluginReasonCode = (typeof PLUGIN_REASON_CODES)[number];
/** What the plugin manager records (a draft payload: the store brands its ids). */
export type PluginBindingPayload = DraftPayloadOf<"_baton_plugin_binding_update">;

export function isEventKind(kind: string): kind is EventKind {
  return Object.hasOwn(EVENT_KINDS, kind);
}

/** The kinds of one stream class, from the registry (an unknown kind streams not at all). */
export function kindsStreaming(...classes: readonly StreamClass[]): ReadonlySet<string> {
  const rows: ReadonlyArray<readonly [string, { readonly doc: string; readonly stream?: StreamClass }]> = Object.entries(EVENT_KINDS);
  return new Set(rows.filter(([, row]) => row.stream !== undefined && classes.includes(row.stream)).map(([kind]) => kind));
}
