/**
 * Adoption's ledger side (NAT-06/07): native turns become ordinary Baton turns — the user's message,
 * `running` (baton), the agent's messages/thoughts/tools/plans (harness), the native terminal as the
 * harness's `idle`, and one `_baton_turn_summary` built from the projection like any live turn —
 * with fresh `t_`/`m_` ids, attributed to the adopted target and its native session.
 */
import type { AppendDraft, Ledger } from "../store/index.ts";
import type { NativeEvent, NativeTurn } from "../harness/inspector.ts";
import { buildTurnSummary, displayUserText, initialState, reduce, summaryTexts, type ProjectionState } from "../projection/index.ts";
import type { ContentBlock } from "../event/content.ts";
import type { TurnSummaryPayload } from "../event/kinds.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdSource, TargetId, TurnId } from "../shared/ids.ts";
import type { BatonTurnView } from "./reconcile.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

export interface AdoptedBinding {
  readonly harnessTargetId: TargetId;
  /** The wire key stamped as `envelope.harness` (definition.sessionKey). */
  readonly sessionKey: string;
  readonly harnessSessionId: string;
}

export interface AppendResult {
  readonly state: ProjectionState;
  readonly appended: number;
  /** Seq of the last summary written (0 when none). */
  readonly lastSummarySeq: number;
}

export function appendNativeTurns(
  ledger: Ledger,
  initial: ProjectionState,
  turns: readonly NativeTurn[],
  binding: AdoptedBinding,
  ids: IdSource,
  clock: Clock,
): AppendResult {
  let state = initial;
  let lastSummarySeq = 0;
  const write = (draft: AppendDraft): number => {
    const event = ledger.append(draft);
    state = reduce(state, event);
    return event.seq;
  };
  const harness = { type: "harness", harnessTargetId: binding.harnessTargetId } as const;
  for (const turn of turns) {
    const turnId = ids.mint("turn");
    const at = { turnId, harnessTargetId: binding.harnessTargetId, harnessSessionId: binding.harnessSessionId };
    write({ kind: "user_message", payload: { messageId: ids.mint("message"), content: [...turn.prompt], delivery: "prompt" }, source: { type: "user" }, ...at });
    write({ kind: "state_update", payload: { state: "running" }, source: BATON_SOURCE, ...at });
    for (const event of turn.events) write(nativeDraft(event, at, binding, ids));
    write({ kind: "state_update", payload: { state: "idle", stopReason: turn.stopReason }, source: harness, harness: binding.sessionKey, ...at });
    const endedAt = turn.endedAt ?? new Date(clock.now()).toISOString();
    const summary: TurnSummaryPayload = { ...buildTurnSummary(state, turnId, turn.stopReason, endedAt), ...(turn.startedAt === undefined ? {} : { startedAt: turn.startedAt }) };
    lastSummarySeq = write({ kind: "_baton_turn_summary", payload: summary, source: BATON_SOURCE, ...at });
  }
  return { state, appended: turns.length, lastSummarySeq };
}

function nativeDraft(event: NativeEvent, at: { turnId: TurnId; harnessTargetId: TargetId; harnessSessionId: string }, binding: AdoptedBinding, ids: IdSource): AppendDraft {
  if (event.kind === "user_message") {
    return { kind: "user_message", payload: { ...event.payload, messageId: ids.mint("message") }, source: { type: "user" }, ...at };
  }
  const source = event.source === "user" ? ({ type: "user" } as const) : ({ type: "harness", harnessTargetId: binding.harnessTargetId } as const);
  return { kind: event.kind, payload: event.payload, source, ...(source.type === "harness" ? { harness: binding.sessionKey } : {}), ...at } as AppendDraft;
}

/**
 * The turns Baton ran on `harnessSessionId` of `harnessTargetId` after `afterSeq`, in order: the ones a
 * re-import must find in the native history. One pass over the ledger (an explicit command, not a hot path).
 */
export function batonTurnsSince(ledger: Ledger, afterSeq: number, harnessTargetId: string, harnessSessionId: string): BatonTurnView[] {
  type Texts = { userText: string; agentText: string };
  const turns = new Map<string, { target?: string; native?: string; summary?: TurnSummaryPayload; texts?: Texts; summarySeq: number; steers: string[] }>();
  // The summaries name their texts by messageId: the messages are folded in as the ledger is read.
  let state = initialState();
  for (const { event } of ledger.readEvents()) {
    state = reduce(state, event);
    if (event.seq <= afterSeq || event.turnId === undefined) continue;
    let entry = turns.get(event.turnId);
    if (entry === undefined) {
      entry = { summarySeq: 0, steers: [] };
      turns.set(event.turnId, entry);
    }
    if (entry.target === undefined && event.harnessTargetId !== undefined) entry.target = event.harnessTargetId;
    if (event.source.type === "harness" && event.harnessSessionId !== undefined) entry.native ??= event.harnessSessionId;
    if (event.kind === "user_message" && (event.payload as { delivery?: unknown }).delivery === "steer") {
      entry.steers.push(displayUserText((event.payload as { content?: ContentBlock[] }).content ?? []));
    }
    if (event.kind === "_baton_turn_summary" && entry.summary === undefined) {
      entry.summary = event.payload as TurnSummaryPayload;
      entry.texts = summaryTexts(state, entry.summary);
      entry.summarySeq = event.seq;
    }
  }
  const out: Array<BatonTurnView & { seq: number }> = [];
  for (const [turnId, entry] of turns) {
    if (entry.summary === undefined || entry.target !== harnessTargetId || entry.native !== harnessSessionId) continue;
    out.push({
      turnId,
      seq: entry.summarySeq,
      userText: entry.texts?.userText ?? "",
      hasOutput: (entry.texts?.agentText ?? "") !== "" || entry.summary.toolCalls.length > 0,
      stopReason: entry.summary.stopReason,
      steers: entry.steers,
    });
  }
  return out.sort((a, b) => a.seq - b.seq).map(({ seq: _seq, ...view }) => view);
}
