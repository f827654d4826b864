/**
 * The projection state: plain JSON data only (objects, arrays, strings, numbers, booleans, null), because
 * the store serializes it as a checkpoint. Collections that grow with the session are `Table`s (hashed
 * buckets) or `PagedList`s so that one update stays cheap and leaves unrelated sub-trees identical.
 * Absent values are `null`, never `undefined`.
 */
import type { ContentBlock, ContextAttachment, PromptBlock } from "../event/content.ts";
import type { InteractionDraft, InteractionResolution, Requester } from "../event/interaction-types.ts";
import type { AttemptOutcome, AttemptPhase, LaunchSnapshot, PayloadOf, PluginBindingState } from "../event/kinds.ts";
import type { FileCheckpointItem } from "./file-checkpoint-item.ts";
import type { TargetState } from "./target-state.ts";
import type { StopReason } from "../event/stop-reasons.ts";
import { emptyList, type PagedList } from "./paged-list.ts";
import { emptyTable, type Table } from "./table.ts";

/**
 * Bump whenever the state shape or the meaning of a field changes: checkpoints written under another
 * version are discarded and the ledger is replayed.
 */
export const PROJECTION_VERSION = "projection-9";

export type SessionRunState = "idle" | "running" | "requires_action";
import type { TurnRole } from "../event/kinds.ts";
import type { AttemptId, EpochId, EventId, InteractionId, MessageId, PluginInstanceId, ReviewId, SnapshotId, TargetId, TurnId } from "../shared/ids.ts";
export type { TurnRole };
export type TimelineItemType =
  | "message"
  | "tool_call"
  | "plan"
  | "proposed_plan"
  | "task"
  | "notice"
  | "approval_review"
  | "error"
  | "interaction";

export interface TimelineItem {
  readonly type: TimelineItemType;
  readonly id: string;
}

export type MessageRole = "user" | "agent" | "thought";
export type MessageStatus = "in_progress" | "completed";

export interface MessageItem {
  readonly messageId: MessageId;
  readonly role: MessageRole;
  readonly content: readonly ContentBlock[];
  readonly status: MessageStatus;
  readonly delivery: "prompt" | "steer" | "follow_up" | null;
  readonly turnId: TurnId | null;
  readonly harnessTargetId: TargetId | null;
  readonly firstSeq: number;
  readonly ts: string;
}

export type ToolLocation = NonNullable<PayloadOf<"tool_call_update">["locations"]>[number];

export interface ToolCallItem {
  readonly toolCallId: string;
  readonly title: string | null;
  /** An open string: known values are `TOOL_KINDS`; unknown ones are kept for display fallback. */
  readonly kind: string | null;
  /** An open string: known values are `TOOL_STATUSES`; starts as `pending`. */
  readonly status: string;
  readonly content: readonly ContentBlock[];
  readonly locations: readonly ToolLocation[];
  readonly rawInput: unknown;
  readonly rawOutput: unknown;
  readonly turnId: TurnId | null;
  readonly harnessTargetId: TargetId | null;
  readonly firstSeq: number;
}

export type PlanEntry = PayloadOf<"plan_update">["entries"][number];

export interface PlanItem {
  readonly planId: string;
  readonly entries: readonly PlanEntry[];
  readonly turnId: TurnId | null;
  readonly harnessTargetId: TargetId | null;
  readonly firstSeq: number;
}

export interface ProposedPlanItem {
  readonly planId: string;
  readonly content: string;
  readonly implementationTurnId: TurnId | null;
  readonly turnId: TurnId | null;
  readonly harnessTargetId: TargetId | null;
  readonly firstSeq: number;
}

export type TaskUsage = NonNullable<PayloadOf<"task_update">["usage"]>;

export interface TaskItem {
  readonly taskId: string;
  readonly status: PayloadOf<"task_update">["status"];
  readonly title: string | null;
  readonly taskType: string | null;
  readonly summary: string | null;
  readonly lastToolName: string | null;
  readonly usage: TaskUsage | null;
  readonly skipTranscript: boolean;
  readonly turnId: TurnId | null;
  readonly harnessTargetId: TargetId | null;
  readonly firstSeq: number;
}

export interface InteractionItem {
  readonly interactionId: InteractionId;
  readonly requester: Requester;
  readonly draft: InteractionDraft;
  readonly status: "pending" | "resolved";
  readonly resolution: InteractionResolution | null;
  readonly turnId: TurnId | null;
  readonly harnessTargetId: TargetId | null;
  readonly openedSeq: number;
  readonly openedAt: string;
  readonly resolvedSeq: number | null;
}

export interface ApprovalReviewItem {
  readonly reviewId: ReviewId;
  readonly decision: "approved" | "denied" | "aborted";
  readonly toolCallId: string | null;
  readonly riskLevel: string | null;
  readonly userAuthorization: string | null;
  readonly rationale: string | null;
  readonly actionType: string | null;
  readonly turnId: TurnId | null;
  readonly harnessTargetId: TargetId | null;
  readonly firstSeq: number;
}

export interface ErrorItem {
  /** `err_<seq>` */
  readonly id: string;
  readonly message: string;
  readonly code: string | null;
  readonly retryable: boolean | null;
  readonly willRetry: boolean | null;
  readonly turnId: TurnId | null;
  readonly harnessTargetId: TargetId | null;
  readonly seq: number;
  readonly ts: string;
}

export interface StallInfo {
  readonly silentMs: number;
  readonly level: "L1" | "L2";
  readonly verdict: string | null;
  /** `open` while it is the turn's latest word on the silence; a later notice supersedes it, output clears it. */
  readonly state: "open" | "superseded" | "cleared";
}

export interface NoticeItem {
  /** `n_<seq>` */
  readonly id: string;
  readonly level: "info" | "warning" | "error";
  readonly title: string;
  readonly detail: string | null;
  /** Set for `_baton_stall_notice`. */
  readonly stall: StallInfo | null;
  readonly turnId: TurnId | null;
  readonly harnessTargetId: TargetId | null;
  readonly seq: number;
  readonly ts: string;
}

export interface UsageTotals {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
  readonly isEstimated: boolean;
}

export interface ActiveTurn {
  readonly turnId: TurnId;
  readonly role: TurnRole;
  /** Derived: `requires_action` if the harness said so or an interaction of this turn is pending. */
  readonly state: "running" | "requires_action";
  /** What the last state_update for this turn said. */
  readonly nativeState: "running" | "requires_action";
  readonly startedAt: string;
  readonly startedSeq: number;
  readonly harnessTargetId: TargetId | null;
  readonly phase: string | null;
  readonly phaseTitle: string | null;
  /** The last error of this turn said `willRetry` and no output followed yet. */
  readonly retrying: boolean;
  /** What the turn is streaming: answer text, thoughts, or null (nothing yet, it completed, or a tool call took over). */
  readonly streaming: TurnStreaming;
}

export type TurnStreaming = "answer" | "thought" | null;

/** What a turn summary needs, kept in memory until that turn's summary is reduced. */
export interface TurnData {
  readonly turnId: TurnId;
  readonly role: TurnRole | null;
  readonly harnessTargetId: TargetId | null;
  readonly startedAt: string | null;
  readonly userMessageId: MessageId | null;
  /** User messages delivered into the running turn after its prompt (steers), in order. */
  readonly steerMessageIds: PagedList<MessageId>;
  readonly agentMessageIds: PagedList<MessageId>;
  readonly toolCallIds: PagedList<string>;
  readonly usage: UsageTotals;
}

export type { AvailableCommand, ConfigOption, ContextUsage, TargetState } from "./target-state.ts";

export interface ContextSnapshotItem {
  readonly snapshotId: SnapshotId;
  readonly source: PayloadOf<"_baton_context_snapshot">["source"];
  readonly targetId: TargetId | null;
  readonly afterSeq: number;
  readonly throughSeq: number;
  readonly textChars: number;
  readonly seq: number;
  readonly receipt: { readonly contextEpochId: EpochId; readonly transport: string; readonly seq: number } | null;
}

export interface ContextEpoch {
  readonly contextEpochId: EpochId;
  readonly targetId: TargetId | null;
  /** Highest snapshot throughSeq receipted in this epoch; never moves backwards. */
  readonly throughSeq: number;
  readonly lastSnapshotId: SnapshotId;
}

export interface AttemptItem {
  readonly attemptId: AttemptId;
  readonly phase: AttemptPhase;
  /** Became true at `accepted` and survives `uncertain`. */
  readonly accepted: boolean;
  readonly inputId: string | null;
  readonly launchSnapshot: LaunchSnapshot | null;
  readonly outcome: AttemptOutcome | null;
  readonly detail: string | null;
  readonly turnId: TurnId | null;
  readonly harnessTargetId: TargetId | null;
  /** The event that admitted the attempt's input (its `prepared` update's parentEventId, ATT-01). */
  readonly admissionEventId: EventId | null;
  readonly preparedSeq: number;
  readonly updatedSeq: number;
}

/** An attempt update the reducer ignored because the transition is not allowed (§3.5). */
export interface AttemptAnomaly {
  readonly seq: number;
  readonly attemptId: AttemptId;
  readonly from: AttemptPhase | null;
  readonly to: AttemptPhase;
}

/** A prompt waiting for the driven-turn slot (recorded by `_baton_input_queued`), until admitted, recalled or dropped. */
export interface QueuedInputItem {
  readonly messageId: MessageId;
  readonly turnId: TurnId;
  readonly targetId: TargetId;
  readonly content: readonly PromptBlock[];
  readonly displayText: string | null;
  readonly implementsPlan: string | null;
  readonly control: "compact" | null;
  /** Plugin Resources attached at submit (sent with it, also when it is restored paused). */
  readonly context: readonly ContextAttachment[];
  readonly queuedSeq: number;
  /** The `_baton_input_queued` event (what its admission points at); null for an event without one. */
  readonly eventId: EventId | null;
  readonly ts: string;
}

export type TurnSummaryEntry = PayloadOf<"_baton_turn_summary"> & {
  readonly seq: number;
  readonly harnessTargetId: TargetId | null;
};

export interface PluginCommandItem {
  readonly commandId: string;
  readonly name: string;
  readonly description: string;
}

/** The last known state of one plugin instance's binding in this session. */
export interface PluginBindingItem {
  readonly pluginInstanceId: PluginInstanceId;
  readonly pluginId: string;
  readonly packageVersion: string;
  readonly treeDigest: string;
  readonly state: PluginBindingState;
  /** Why it failed or closed; `code` is open for forward compatibility. */
  readonly reason: { readonly code: string; readonly detail: string | null } | null;
  /** What an active binding registered (empty otherwise). */
  readonly commands: readonly PluginCommandItem[];
  readonly seq: number;
  readonly ts: string;
}

export interface ProjectionState {
  readonly batonSessionId: string | null;
  /** Seq of the last event that changed the projection (no-op and unknown events leave it). */
  readonly lastSeq: number;
  readonly runState: SessionRunState;
  readonly activeTurns: Readonly<Record<TurnId, ActiveTurn>>;
  /** Per-turn summary data, kept until that turn's summary is reduced. */
  readonly turnData: Table<TurnData>;
  /** turnId → stopReason of its first terminal (null when the idle carried none). */
  readonly stopReasons: Table<StopReason | null>;
  readonly timeline: PagedList<TimelineItem>;
  readonly messages: Table<MessageItem>;
  readonly toolCalls: Table<ToolCallItem>;
  readonly plans: Table<PlanItem>;
  readonly proposedPlans: Table<ProposedPlanItem>;
  readonly tasks: Table<TaskItem>;
  readonly interactions: Table<InteractionItem>;
  /** Pending interaction ids in the order they opened. */
  readonly pendingInteractionIds: readonly InteractionId[];
  /**
   * The loops' interactions — proposals and what plugins asked — in the order they opened: what the loops look
   * through, without reading every approval of the session (`loopInteractions`).
   */
  readonly loopInteractionIds: PagedList<InteractionId>;
  /** The interaction opened last that a turn waited on (turn-bound, not a proposal), if any. */
  readonly lastTurnCardId: InteractionId | null;
  readonly approvalReviews: Table<ApprovalReviewItem>;
  readonly errors: Table<ErrorItem>;
  readonly notices: Table<NoticeItem>;
  /** turnId → id of that turn's latest stall notice. */
  readonly stallNotices: Table<string>;
  readonly lastError: ErrorItem | null;
  readonly usage: UsageTotals;
  readonly perTarget: Readonly<Record<TargetId, TargetState>>;
  readonly contextSnapshots: Table<ContextSnapshotItem>;
  readonly contextEpochs: Readonly<Record<EpochId, ContextEpoch>>;
  readonly attempts: Table<AttemptItem>;
  readonly attemptAnomalies: readonly AttemptAnomaly[];
  /** Inputs waiting for the driven-turn slot, in queue order (a session opened with some left restores them paused). */
  readonly queuedInputs: readonly QueuedInputItem[];
  /** In seq order; one per turn (first wins). Read through `turn-summaries.ts`. */
  readonly turnSummaries: PagedList<TurnSummaryEntry>;
  /** turnId → index in `turnSummaries`. */
  readonly summaryIndex: Table<number>;
  /** pluginInstanceId → its binding in this session. */
  readonly plugins: Readonly<Record<PluginInstanceId, PluginBindingItem>>;
  /** File checkpoints in seq order; the index maps `<boundary>:<turnId>` to a position (first of each wins). */
  readonly fileCheckpoints: PagedList<FileCheckpointItem>;
  readonly fileCheckpointIndex: Table<number>;
}

export const ZERO_USAGE: UsageTotals = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  isEstimated: false,
};

export function initialState(batonSessionId?: string): ProjectionState {
  return {
    batonSessionId: batonSessionId ?? null,
    lastSeq: 0,
    runState: "idle",
    activeTurns: {},
    turnData: emptyTable(),
    stopReasons: emptyTable(),
    timeline: emptyList(),
    messages: emptyTable(),
    toolCalls: emptyTable(),
    plans: emptyTable(),
    proposedPlans: emptyTable(),
    tasks: emptyTable(),
    interactions: emptyTable(),
    pendingInteractionIds: [],
    loopInteractionIds: emptyList(),
    lastTurnCardId: null,
    approvalReviews: emptyTable(),
    errors: emptyTable(),
    notices: emptyTable(),
    stallNotices: emptyTable(),
    lastError: null,
    usage: ZERO_USAGE,
    perTarget: {},
    contextSnapshots: emptyTable(),
    contextEpochs: {},
    attempts: emptyTable(),
    attemptAnomalies: [],
    queuedInputs: [],
    turnSummaries: emptyList(),
    summaryIndex: emptyTable(),
    plugins: {},
    fileCheckpoints: emptyList(),
    fileCheckpointIndex: emptyTable(),
  };
}
