/**
 * Server notifications → event drafts (COD-07). One table: wire method → handler. Methods not in
 * the table are logged on the 1st and every 100th occurrence; notifications for another thread
 * are ignored.
 */
import type { DraftPayloadOf } from "../../event/kinds.ts";
import type { LimitCode } from "../../event/limit-codes.ts";
import { normalizeStopReason } from "../normalize.ts";
import { DROPPED_TURN_NOTICE } from "./failed-turns.ts";
import { part } from "../drafts.ts";
import { isVisible, itemCompletedParts, itemStartedParts, toolIdentity } from "./items.ts";
import type { CodexSessionPort } from "./session-port.ts";
import type { NotificationMethod, NotificationParams } from "./wire.ts";
import type { TokenUsageBreakdown } from "./protocol/v2/TokenUsageBreakdown";
import type { TurnPlanStepStatus } from "./protocol/v2/TurnPlanStepStatus";

type Handlers = { readonly [M in NotificationMethod]?: (params: NotificationParams<M>) => void };

export interface NotificationTable {
  dispatch(method: string, params: unknown): void;
}

/** Notifications that carry nothing Baton shows. */
const IGNORED: ReadonlySet<string> = new Set([
  "thread/started",
  "thread/status/changed",
  "thread/readState/changed",
  "thread/settings/updated",
  "account/rateLimits/updated",
  "remoteControl/status/changed",
  "item/reasoning/summaryPartAdded",
  "turn/diff/updated",
  "skills/changed",
  "mcpServer/startupStatus/updated",
  "hook/started",
  "thread/compacted",
  "item/fileChange/patchUpdated",
  "item/fileChange/outputDelta",
]);

const PLAN_STATUS: Readonly<Record<TurnPlanStepStatus, string>> = { pending: "pending", inProgress: "in_progress", completed: "completed" };

const REVIEW_DECISIONS = { approved: "approved", denied: "denied" } as const;

function usageDelta(total: TokenUsageBreakdown, previous: TokenUsageBreakdown | undefined): DraftPayloadOf<"usage_update"> {
  const d = (key: keyof TokenUsageBreakdown) => Math.max(0, total[key] - (previous?.[key] ?? 0));
  return {
    inputTokens: d("inputTokens"),
    outputTokens: d("outputTokens"),
    cacheReadTokens: d("cachedInputTokens"),
    cacheWriteTokens: d("cacheWriteInputTokens"),
    reasoningTokens: d("reasoningOutputTokens"),
  };
}

export function createNotificationTable(session: CodexSessionPort): NotificationTable {
  const unknownCounts = new Map<string, number>();
  const log = session.log;

  const handlers: Handlers = {
    "turn/started": (p) => {
      const turn = session.turnFor(p.turn.id, true);
      if (turn === undefined) return;
      turn.started = true;
      if (turn.pendingCancel) void session.interrupt(turn);
    },
    "turn/completed": (p) => {
      const turn = session.turnFor(p.turn.id);
      if (turn === undefined) return;
      const stopReason = normalizeStopReason(p.turn.status, { completed: "end_turn", interrupted: "cancelled" });
      if (stopReason === "failed" && !turn.errorShown) {
        session.emitError(turn, p.turn.error?.message ?? turn.fatalError ?? `Codex turn ended with status ${String(p.turn.status)}`, errorCodeOf(p.turn.error?.codexErrorInfo), false, p);
      }
      if (stopReason === "failed" && turn.role === "driven" && session.failedTurns !== undefined) {
        session.emit(turn, part("_baton_notice", { level: "info", title: DROPPED_TURN_NOTICE }));
        session.failedTurns.drop(p.turn.id);
      }
      session.finish(turn, stopReason, p);
    },
    "item/started": (p) => {
      const turn = session.turnFor(p.turnId);
      if (turn === undefined) return;
      const item = p.item;
      if (item.type === "agentMessage") turn.openMessages.set(item.id, item.text);
      if (toolIdentity(item) !== undefined) turn.openTools.add(item.id);
      if (item.type === "fileChange") session.rememberFileChanges(item.id, item.changes);
      for (const draft of itemStartedParts(item)) session.emit(turn, draft, p);
    },
    "item/completed": (p) => {
      const turn = session.turnFor(p.turnId);
      if (turn === undefined) return;
      const item = p.item;
      turn.openMessages.delete(item.id);
      turn.openTools.delete(item.id);
      for (const key of [...turn.openThoughts.keys()]) if (key === item.id || key.startsWith(`${item.id}:`)) turn.openThoughts.delete(key);
      session.forgetFileChanges(item.id);
      if (isVisible(item)) turn.visible = true;
      for (const draft of itemCompletedParts(item)) session.emit(turn, draft, p);
      const tool = toolIdentity(item);
      const status = "status" in item ? (item as { status?: unknown }).status : undefined;
      if (tool !== undefined && status === "declined" && !turn.asked.has(item.id) && !turn.reviewed.has(item.id)) {
        session.emit(turn, part("_baton_notice", { level: "warning", title: "Approval bypassed by harness-side policy", detail: tool.title }));
      }
    },
    "item/agentMessage/delta": (p) => {
      const turn = session.turnFor(p.turnId);
      if (turn === undefined) return;
      turn.openMessages.set(p.itemId, (turn.openMessages.get(p.itemId) ?? "") + p.delta);
      if (p.delta.trim() !== "") turn.visible = true;
      session.emit(turn, part("agent_message_chunk", { messageId: p.itemId, content: { type: "text", text: p.delta } }), p);
    },
    "item/reasoning/summaryTextDelta": (p) => {
      const turn = session.turnFor(p.turnId);
      if (turn === undefined) return;
      const messageId = `${p.itemId}:summary:${p.summaryIndex}`;
      turn.openThoughts.set(messageId, (turn.openThoughts.get(messageId) ?? "") + p.delta);
      turn.visible = true;
      session.emit(turn, part("agent_thought_chunk", { messageId, content: { type: "text", text: p.delta } }), p);
    },
    "item/reasoning/textDelta": (p) => {
      const turn = session.turnFor(p.turnId);
      if (turn === undefined) return;
      turn.openThoughts.set(p.itemId, (turn.openThoughts.get(p.itemId) ?? "") + p.delta);
      turn.visible = true;
      session.emit(turn, part("agent_thought_chunk", { messageId: p.itemId, content: { type: "text", text: p.delta } }), p);
    },
    "item/commandExecution/outputDelta": (p) => {
      const turn = session.turnFor(p.turnId);
      if (turn === undefined) return;
      session.emit(turn, part("tool_call_content_chunk", { toolCallId: p.itemId, content: { type: "text", text: p.delta } }), p);
    },
    "turn/plan/updated": (p) => {
      const turn = session.turnFor(p.turnId);
      if (turn === undefined) return;
      turn.visible = true;
      const entries = p.plan.map((step) => ({ content: step.step, priority: "medium", status: PLAN_STATUS[step.status] ?? "pending" }));
      session.emit(turn, part("plan_update", { planId: `pl_${p.turnId}`, entries }), p);
    },
    "thread/tokenUsage/updated": (p) => {
      const previous = session.swapUsageTotal(p.tokenUsage.total);
      const turn = session.turnFor(p.turnId);
      if (turn === undefined) return;
      session.emit(turn, part("usage_update", usageDelta(p.tokenUsage.total, previous)), p);
      const context: DraftPayloadOf<"context_usage_update"> = { contextUsed: p.tokenUsage.last.totalTokens };
      if (session.model !== undefined) context.model = session.model;
      if (p.tokenUsage.modelContextWindow !== null) context.contextSize = p.tokenUsage.modelContextWindow;
      session.emit(turn, part("context_usage_update", context), p);
    },
    error: (p) => {
      const turn = session.turnFor(p.turnId) ?? (session.active?.finished === false ? session.active : undefined);
      const details = p.error.additionalDetails;
      const message = details !== null && details !== "" ? `${p.error.message}\n${details}` : p.error.message;
      session.emitError(turn, message, errorCodeOf(p.error.codexErrorInfo), p.willRetry, p);
      if (!p.willRetry && turn !== undefined) session.noteFatal(turn, message);
    },
    "item/autoApprovalReview/started": (p) => {
      const turn = session.turnFor(p.turnId);
      if (turn === undefined) return;
      session.emit(turn, part("_baton_run_status", { phase: "Reviewing approval…" }), p);
    },
    "item/autoApprovalReview/completed": (p) => {
      const turn = session.turnFor(p.turnId);
      if (turn === undefined) return;
      if (p.targetItemId !== null) turn.reviewed.add(p.targetItemId);
      const review = p.review;
      const payload: DraftPayloadOf<"approval_review_update"> = {
        reviewId: session.ids.mint("review"),
        decision: REVIEW_DECISIONS[review.status as keyof typeof REVIEW_DECISIONS] ?? "aborted",
        actionType: p.action.type,
      };
      if (p.targetItemId !== null) payload.toolCallId = p.targetItemId;
      if (review.riskLevel !== null) payload.riskLevel = review.riskLevel;
      if (review.userAuthorization !== null) payload.userAuthorization = review.userAuthorization;
      if (review.rationale !== null) payload.rationale = review.rationale;
      session.emit(turn, part("approval_review_update", payload), p);
      session.emit(turn, part("_baton_run_status", { phase: null }));
    },
    "hook/completed": (p) => {
      const run = p.run;
      if (run.status !== "blocked" && run.status !== "stopped") return;
      if (run.eventName !== "userPromptSubmit" && run.eventName !== "sessionStart") return;
      const turn = session.turnFor(p.turnId) ?? session.active;
      session.emit(turn, part("_baton_notice", { level: "warning", title: `A Codex ${run.eventName} hook ${run.status} the prompt`, ...(run.statusMessage !== null ? { detail: run.statusMessage } : {}) }), p);
      if (turn !== undefined) turn.visible = true;
    },
    "serverRequest/resolved": (p) => {
      session.serverRequestResolved(String(p.requestId));
    },
    warning: (p) => log.log("info", `codex warning: ${p.message}`),
    configWarning: (p) => log.log("info", `codex config warning: ${p.summary}`),
    deprecationNotice: (p) => log.log("debug", `codex deprecation notice: ${JSON.stringify(p)}`),
  };

  return {
    dispatch(method, params) {
      const threadId = (params as { threadId?: unknown } | null)?.threadId;
      if (typeof threadId === "string" && session.threadId !== "" && threadId !== session.threadId) return;
      const handler = (handlers as Record<string, ((p: unknown) => void) | undefined>)[method];
      if (handler !== undefined) {
        handler(params);
        return;
      }
      if (IGNORED.has(method)) return;
      const count = (unknownCounts.get(method) ?? 0) + 1;
      unknownCounts.set(method, count);
      if (count === 1 || count % 100 === 0) log.log("warn", `codex notification not mapped: ${method} (seen ${count}×)`);
    },
  };
}

/** `codexErrorInfo` is a string or a one-key object; its name is the error code. */
export function codeOf(info: unknown): string | undefined {
  if (typeof info === "string") return info;
  if (typeof info === "object" && info !== null) return Object.keys(info)[0];
  return undefined;
}

/**
 * The closed limit codes at the boundary: `usageLimitExceeded` → quota_exhausted; `rateLimitExceeded`, and
 * retries given up on a 429 → rate_limited (Codex's word kept as nativeCode). Anything else keeps its own code.
 */
export function errorCodeOf(info: unknown): { readonly code?: string; readonly nativeCode?: string } {
  const native = codeOf(info);
  if (native === undefined) return {};
  if (native === "usageLimitExceeded") return { code: "quota_exhausted" satisfies LimitCode, nativeCode: native };
  if (native === "rateLimitExceeded") return { code: "rate_limited" satisfies LimitCode, nativeCode: native };
  const status = typeof info === "object" && info !== null ? (Object.values(info)[0] as { httpStatusCode?: unknown } | undefined)?.httpStatusCode : undefined;
  if (native === "responseTooManyFailedAttempts" && status === 429) return { code: "rate_limited" satisfies LimitCode, nativeCode: native };
  return { code: native };
}
