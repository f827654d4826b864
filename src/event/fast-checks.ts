/**
 * Hand-written payload checks for the kinds that make up nearly all of a ledger (streamed chunks, then
 * tool calls, complete messages, summaries, usage, run states) and for the few more every turn appends (its
 * phases, delivery attempts, notices, approval route, context usage, and the context snapshot and receipt of a
 * turn that carries history: a one-turn `baton exec` then never loads zod, ≈ 40 ms of its start, and the first
 * turn of an opened session does not load it on the main thread mid-turn, a 30–60 ms stall, #18): the same rules as their schemas in
 * `kinds.ts`, without the schema machinery's cost on the path every append and every open takes.
 * A check answers true only for a payload its schema accepts (anything else goes to the schema, which
 * also words the error); a property test keeps each one equal to its schema on JSON values.
 */
import { RUN_STATES } from "./kinds.ts";
import { APPROVAL_ROUTES, ATTEMPT_OUTCOMES, ATTEMPT_PHASES, CONTEXT_SOURCE_KINDS, CONTEXT_TRANSPORTS, TURN_ROLES } from "./vocabulary.ts";
import { STOP_REASONS } from "./stop-reasons.ts";

type Check = (payload: unknown) => boolean;
type Fields = Record<string, unknown>;

const RUN_STATE_SET: ReadonlySet<unknown> = new Set(RUN_STATES);
const ROLES: ReadonlySet<unknown> = new Set(TURN_ROLES);
const STOP_REASON_SET: ReadonlySet<unknown> = new Set(STOP_REASONS);
const ATTEMPT_PHASE_SET: ReadonlySet<unknown> = new Set(ATTEMPT_PHASES);
const ATTEMPT_OUTCOME_SET: ReadonlySet<unknown> = new Set(ATTEMPT_OUTCOMES);
const APPROVAL_ROUTE_SET: ReadonlySet<unknown> = new Set(APPROVAL_ROUTES);
const NOTICE_LEVELS: ReadonlySet<unknown> = new Set(["info", "warning", "error"]);
const CONTEXT_SOURCE_KIND_SET: ReadonlySet<unknown> = new Set(CONTEXT_SOURCE_KINDS);
const CONTEXT_TRANSPORT_SET: ReadonlySet<unknown> = new Set(CONTEXT_TRANSPORTS);

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isId = (value: unknown): boolean => typeof value === "string" && value.length > 0;
const optionalString = (value: unknown): boolean => value === undefined || typeof value === "string";
const nullableString = (value: unknown): boolean => value === undefined || value === null || typeof value === "string";
const optionalNumber = (value: unknown): boolean => value === undefined || (typeof value === "number" && Number.isFinite(value));
const isBlock = (value: unknown): boolean => isRecord(value) && typeof value["type"] === "string";
const optionalStopReason = (value: unknown): boolean => value === undefined || STOP_REASON_SET.has(value);

function everyItem(value: unknown, item: (entry: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!item(value[i])) return false;
  return true;
}

const isBlocks = (value: unknown): boolean => everyItem(value, isBlock);
const optionalStrings = (value: unknown): boolean => value === undefined || everyItem(value, (item) => typeof item === "string");

function isChunk(idField: string): Check {
  return (payload) => isRecord(payload) && isId(payload[idField]) && isBlock(payload["content"]);
}

/**
 * A streamed message chunk's payload (`agent_message_chunk`, `agent_thought_chunk`, `user_message_chunk`): a
 * plain function, so the read path's hot check (`isReadableEvent`) calls it directly, without a lookup.
 */
export function isMessageChunkPayload(payload: unknown): boolean {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return false;
  const messageId = (payload as Fields)["messageId"];
  if (typeof messageId !== "string" || messageId.length === 0) return false;
  const content = (payload as Fields)["content"];
  return typeof content === "object" && content !== null && !Array.isArray(content) && typeof (content as Fields)["type"] === "string";
}

function isFullMessage(payload: unknown): boolean {
  return isRecord(payload) && isId(payload["messageId"]) && (payload["content"] === undefined || isBlocks(payload["content"]));
}

const DELIVERIES: ReadonlySet<unknown> = new Set(["prompt", "steer", "follow_up"]);
/** A prompt's text block; other prompt block kinds are left to the schema (a check may only say yes when it is sure). */
const isTextBlock = (value: unknown): boolean => isRecord(value) && value["type"] === "text" && typeof value["text"] === "string";

function isUserMessage(payload: unknown): boolean {
  return (
    isRecord(payload) &&
    isId(payload["messageId"]) &&
    (payload["content"] === undefined || everyItem(payload["content"], isTextBlock)) &&
    (payload["delivery"] === undefined || DELIVERIES.has(payload["delivery"]))
  );
}

const isPlanEntry = (value: unknown): boolean =>
  isRecord(value) && typeof value["content"] === "string" && optionalString(value["priority"]) && typeof value["status"] === "string";

function isPlanUpdate(payload: unknown): boolean {
  return isRecord(payload) && isId(payload["planId"]) && everyItem(payload["entries"], isPlanEntry);
}

const isLocation = (value: unknown): boolean => isRecord(value) && typeof value["path"] === "string" && optionalNumber(value["line"]);

function isToolCallUpdate(payload: unknown): boolean {
  if (!isRecord(payload) || !isId(payload["toolCallId"])) return false;
  if (!nullableString(payload["title"]) || !nullableString(payload["kind"]) || !nullableString(payload["status"])) return false;
  const content = payload["content"];
  if (content !== undefined && content !== null && !isBlocks(content)) return false;
  const locations = payload["locations"];
  return locations === undefined || locations === null || everyItem(locations, isLocation);
}

function isUsage(value: unknown): boolean {
  return (
    isRecord(value) &&
    optionalNumber(value["inputTokens"]) &&
    optionalNumber(value["outputTokens"]) &&
    optionalNumber(value["cacheReadTokens"]) &&
    optionalNumber(value["cacheWriteTokens"]) &&
    optionalNumber(value["reasoningTokens"]) &&
    (value["isEstimated"] === undefined || typeof value["isEstimated"] === "boolean")
  );
}

const isSummaryTool = (value: unknown): boolean =>
  isRecord(value) && typeof value["toolCallId"] === "string" && typeof value["title"] === "string" && typeof value["kind"] === "string" && typeof value["status"] === "string";

function isTurnSummary(payload: unknown): boolean {
  return (
    isRecord(payload) &&
    isId(payload["turnId"]) &&
    (payload["role"] === undefined || ROLES.has(payload["role"])) &&
    optionalStopReason(payload["stopReason"]) &&
    optionalString(payload["nativeStopReason"]) &&
    optionalString(payload["userMessageId"]) &&
    optionalStrings(payload["steerMessageIds"]) &&
    optionalStrings(payload["agentMessageIds"]) &&
    optionalString(payload["userText"]) &&
    optionalStrings(payload["steers"]) &&
    optionalString(payload["agentText"]) &&
    everyItem(payload["toolCalls"], isSummaryTool) &&
    (payload["usage"] === undefined || isUsage(payload["usage"])) &&
    optionalString(payload["startedAt"]) &&
    optionalString(payload["endedAt"])
  );
}

function isStateUpdate(payload: unknown): boolean {
  return isRecord(payload) && RUN_STATE_SET.has(payload["state"]) && optionalStopReason(payload["stopReason"]) && optionalString(payload["nativeStopReason"]);
}

const isLaunchSnapshot = (value: unknown): boolean =>
  isRecord(value) &&
  typeof value["harnessTargetId"] === "string" &&
  typeof value["harness"] === "string" &&
  typeof value["harnessSessionKey"] === "string" &&
  typeof value["cwd"] === "string" &&
  optionalString(value["model"]) &&
  optionalString(value["effort"]) &&
  optionalString(value["mode"]);

function isDeliveryAttempt(payload: unknown): boolean {
  return (
    isRecord(payload) &&
    isId(payload["attemptId"]) &&
    ATTEMPT_PHASE_SET.has(payload["phase"]) &&
    optionalString(payload["inputId"]) &&
    (payload["launchSnapshot"] === undefined || isLaunchSnapshot(payload["launchSnapshot"])) &&
    (payload["outcome"] === undefined || ATTEMPT_OUTCOME_SET.has(payload["outcome"])) &&
    optionalString(payload["detail"])
  );
}

const isRunStatus = (payload: unknown): boolean =>
  isRecord(payload) && (payload["phase"] === null || typeof payload["phase"] === "string") && optionalString(payload["title"]);

const isNotice = (payload: unknown): boolean =>
  isRecord(payload) && NOTICE_LEVELS.has(payload["level"]) && typeof payload["title"] === "string" && optionalString(payload["detail"]);

const isApprovalRoute = (payload: unknown): boolean => isRecord(payload) && (payload["route"] === null || APPROVAL_ROUTE_SET.has(payload["route"]));

const isCost = (value: unknown): boolean => isRecord(value) && typeof value["amount"] === "number" && Number.isFinite(value["amount"]) && typeof value["currency"] === "string";

const isContextUsage = (payload: unknown): boolean =>
  isRecord(payload) &&
  optionalString(payload["model"]) &&
  optionalNumber(payload["contextUsed"]) &&
  optionalNumber(payload["contextSize"]) &&
  (payload["cost"] === undefined || isCost(payload["cost"]));

const isNumber = (value: unknown): boolean => typeof value === "number" && Number.isFinite(value);

const isContextSource = (value: unknown): boolean =>
  isRecord(value) && CONTEXT_SOURCE_KIND_SET.has(value["kind"]) && typeof value["owner"] === "string" && typeof value["key"] === "string";

const isContextSnapshot = (payload: unknown): boolean =>
  isRecord(payload) &&
  isId(payload["snapshotId"]) &&
  isContextSource(payload["source"]) &&
  optionalString(payload["targetId"]) &&
  isNumber(payload["afterSeq"]) &&
  isNumber(payload["throughSeq"]) &&
  typeof payload["text"] === "string";

const isContextReceipt = (payload: unknown): boolean =>
  isRecord(payload) && isId(payload["snapshotId"]) && isId(payload["contextEpochId"]) && CONTEXT_TRANSPORT_SET.has(payload["transport"]) && payload["accepted"] === true;

export const FAST_CHECKS: Readonly<Record<string, Check>> = {
  agent_message_chunk: isMessageChunkPayload,
  agent_thought_chunk: isMessageChunkPayload,
  user_message_chunk: isMessageChunkPayload,
  tool_call_content_chunk: isChunk("toolCallId"),
  user_message: isUserMessage,
  agent_message: isFullMessage,
  agent_thought: isFullMessage,
  tool_call_update: isToolCallUpdate,
  usage_update: isUsage,
  plan_update: isPlanUpdate,
  state_update: isStateUpdate,
  _baton_turn_summary: isTurnSummary,
  _baton_delivery_attempt_update: isDeliveryAttempt,
  _baton_run_status: isRunStatus,
  _baton_notice: isNotice,
  approval_route_update: isApprovalRoute,
  context_usage_update: isContextUsage,
  _baton_context_snapshot: isContextSnapshot,
  _baton_context_delivery_receipt: isContextReceipt,
};
