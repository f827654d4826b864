/**
 * Selectors: one per view concern, pure, memoized on the identity of the sub-trees they read so an
 * unrelated event (a chunk) gives the same output object. The TUI selects; it never reduces.
 */
import type { ApprovalRoute } from "../event/kinds.ts";
import type { EpochId, TargetId, TurnId } from "../shared/ids.ts";
import { memoOn } from "./memo.ts";
import type {
  ActiveTurn,
  ContextUsage,
  InteractionItem,
  PlanItem,
  ProjectionState,
  SessionRunState,
  ToolCallItem,
  TurnRole,
  TurnStreaming,
} from "./state.ts";
import { ownGet } from "./record.ts";
import { listAt, listToArray } from "./paged-list.ts";
import { tableGet, type Table } from "./table.ts";

const LIVE_TOOL_STATUSES: ReadonlySet<string> = new Set(["pending", "in_progress"]);

const pendingFrom = memoOn(
  (input: { ids: readonly string[]; interactions: Table<InteractionItem> }) => [input.ids, input.interactions] as const,
  (ids, interactions): readonly InteractionItem[] => {
    const out: InteractionItem[] = [];
    for (const id of ids) {
      const item = tableGet(interactions, id);
      if (item !== undefined) out.push(item);
    }
    return out;
  },
);

/** Pending interactions in the order they opened. */
export function selectPendingInteractions(state: ProjectionState): readonly InteractionItem[] {
  return pendingFrom({ ids: state.pendingInteractionIds, interactions: state.interactions });
}

export interface ActivityTool {
  readonly toolCallId: string;
  readonly kind: string | null;
  readonly title: string | null;
  readonly status: string;
}

export interface ActivityTurn {
  readonly turnId: TurnId;
  readonly role: TurnRole;
  readonly state: ActiveTurn["state"];
  readonly harnessTargetId: TargetId | null;
  readonly startedAt: string;
  readonly phase: string | null;
  readonly phaseTitle: string | null;
  readonly retrying: boolean;
  /** What the turn is streaming (answer text or thoughts), null when neither. */
  readonly streaming: TurnStreaming;
  /** The latest still-running tool call of this turn (drives "running command…" style labels). */
  readonly activeTool: ActivityTool | null;
}

export interface Activity {
  readonly runState: SessionRunState;
  /** Active turns in the order they started. */
  readonly turns: readonly ActivityTurn[];
  readonly pendingInteractions: readonly InteractionItem[];
}

/** The turn's tool calls that never reached a terminal status (pending or in progress), oldest first. */
export function selectOpenToolCalls(state: ProjectionState, turnId: string): readonly ToolCallItem[] {
  const out: ToolCallItem[] = [];
  const ids = tableGet(state.turnData, turnId)?.toolCallIds;
  for (const id of ids === undefined ? [] : listToArray(ids)) {
    const tool = tableGet(state.toolCalls, id);
    if (tool !== undefined && LIVE_TOOL_STATUSES.has(tool.status)) out.push(tool);
  }
  return out;
}

function activeToolOf(
  turnData: ProjectionState["turnData"],
  toolCalls: Table<ToolCallItem>,
  turnId: string,
): ActivityTool | null {
  const ids = tableGet(turnData, turnId)?.toolCallIds;
  for (let i = (ids?.length ?? 0) - 1; i >= 0; i--) {
    const tool = tableGet(toolCalls, (ids && listAt(ids, i)) ?? "");
    if (tool !== undefined && LIVE_TOOL_STATUSES.has(tool.status)) {
      return { toolCallId: tool.toolCallId, kind: tool.kind, title: tool.title, status: tool.status };
    }
  }
  return null;
}

const activityOf = memoOn(
  (state: ProjectionState) =>
    [state.runState, state.activeTurns, state.turnData, state.toolCalls, state.pendingInteractionIds, state.interactions] as const,
  (runState, activeTurns, turnData, toolCalls, ids, interactions): Activity => {
    const turns = Object.values(activeTurns)
      .sort((a, b) => a.startedSeq - b.startedSeq)
      .map(
        (turn): ActivityTurn => ({
          turnId: turn.turnId,
          role: turn.role,
          state: turn.state,
          harnessTargetId: turn.harnessTargetId,
          startedAt: turn.startedAt,
          phase: turn.phase,
          phaseTitle: turn.phaseTitle,
          retrying: turn.retrying,
          streaming: turn.streaming,
          activeTool: activeToolOf(turnData, toolCalls, turn.turnId),
        }),
      );
    return { runState, turns, pendingInteractions: pendingFrom({ ids, interactions }) };
  },
);

let lastActivity: Activity | undefined;

/** Running turns with role/target/phase/startedAt, the session runState and pending interactions. */
export function selectActivity(state: ProjectionState): Activity {
  const next = activityOf(state);
  if (lastActivity !== undefined && activityEqual(lastActivity, next)) return lastActivity;
  lastActivity = next;
  return next;
}

function activityEqual(a: Activity, b: Activity): boolean {
  if (a.runState !== b.runState || a.pendingInteractions !== b.pendingInteractions || a.turns.length !== b.turns.length) {
    return false;
  }
  return a.turns.every((turn, i) => {
    const other = b.turns[i];
    if (other === undefined) return false;
    const toolSame =
      turn.activeTool === other.activeTool ||
      (turn.activeTool !== null &&
        other.activeTool !== null &&
        turn.activeTool.toolCallId === other.activeTool.toolCallId &&
        turn.activeTool.kind === other.activeTool.kind &&
        turn.activeTool.title === other.activeTool.title &&
        turn.activeTool.status === other.activeTool.status);
    return (
      toolSame &&
      turn.turnId === other.turnId &&
      turn.role === other.role &&
      turn.state === other.state &&
      turn.harnessTargetId === other.harnessTargetId &&
      turn.startedAt === other.startedAt &&
      turn.phase === other.phase &&
      turn.phaseTitle === other.phaseTitle &&
      turn.retrying === other.retrying &&
      turn.streaming === other.streaming
    );
  });
}

export interface Footer {
  readonly tokens: {
    readonly input: number;
    readonly output: number;
    /** input + output */
    readonly total: number;
    readonly cacheRead: number;
    readonly cacheWrite: number;
    readonly reasoning: number;
    readonly estimated: boolean;
  };
  /** Turns that have a summary. */
  readonly turns: number;
  /** The last context usage reported by each target that reported one. */
  readonly contextUsage: Readonly<Record<string, ContextUsage>>;
  /** Not known to the projection: the controller fills in its queue length. */
  readonly queue: number | null;
}

export const selectFooter: (state: ProjectionState) => Footer = memoOn(
  (state: ProjectionState) => [state.usage, state.turnSummaries.length, state.perTarget] as const,
  (usage, turns, perTarget): Footer => {
    const contextUsage: Record<string, ContextUsage> = {};
    for (const [targetId, target] of Object.entries(perTarget)) {
      if (target.contextUsage !== null) contextUsage[targetId] = target.contextUsage;
    }
    return {
      tokens: {
        input: usage.inputTokens,
        output: usage.outputTokens,
        total: usage.inputTokens + usage.outputTokens,
        cacheRead: usage.cacheReadTokens,
        cacheWrite: usage.cacheWriteTokens,
        reasoning: usage.reasoningTokens,
        estimated: usage.isEstimated,
      },
      turns,
      contextUsage,
      queue: null,
    };
  },
);

export interface TargetPlan {
  readonly plan: PlanItem;
  readonly done: number;
  readonly total: number;
  /** TUI-04: pinned while the target has an active turn and some entry is unfinished. */
  readonly pinned: boolean;
}

/** The latest plan of a target with its progress, or null. */
export function selectTargetPlan(state: ProjectionState, harnessTargetId: TargetId): TargetPlan | null {
  const planId = ownGet(state.perTarget, harnessTargetId)?.lastPlanId ?? null;
  const plan = planId === null ? undefined : tableGet(state.plans, planId);
  if (plan === undefined) return null;
  const done = plan.entries.filter((entry) => entry.status === "completed").length;
  const total = plan.entries.length;
  const running = Object.values(state.activeTurns).some((turn) => turn.harnessTargetId === harnessTargetId);
  return { plan, done, total, pinned: running && done < total };
}

export interface TargetContext {
  readonly contextEpochId: EpochId;
  /** Highest summary seq receipted into this epoch. */
  readonly throughSeq: number;
}

/** The context epoch last receipted for a target, with its watermark, or null before any receipt. */
export function selectTargetContext(state: ProjectionState, harnessTargetId: TargetId): TargetContext | null {
  const contextEpochId = ownGet(state.perTarget, harnessTargetId)?.contextEpochId ?? null;
  if (contextEpochId === null) return null;
  return { contextEpochId, throughSeq: ownGet(state.contextEpochs, contextEpochId)?.throughSeq ?? 0 };
}

/** IX-08: who answers a target's approvals as its harness last reported it; null when it has not reported one. */
export function selectApprovalRoute(state: ProjectionState, harnessTargetId: TargetId): ApprovalRoute | null {
  return ownGet(state.perTarget, harnessTargetId)?.approvalRoute ?? null;
}

/**
 * The target the session last drove: the target of the newest driven turn that has a summary, or null
 * (no driven turn yet). Reopening a session continues on it unless the user names another target.
 * Observed turns (started by a harness on its own) do not count: the user never chose them.
 */
export function selectLastDrivenTarget(state: ProjectionState): string | null {
  const summaries = state.turnSummaries;
  for (let i = summaries.length - 1; i >= 0; i--) {
    const entry = listAt(summaries, i);
    if (entry !== undefined && entry.role === "driven" && entry.harnessTargetId !== null) return entry.harnessTargetId;
  }
  return null;
}
