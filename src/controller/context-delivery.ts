/**
 * Context delivery (CTX-02/03): assemble what the target's native session has not seen, persist the
 * snapshot, choose the transport by capability: `sync_context` when the adapter takes history without a
 * turn (receipt once it did), else `prompt_prepend` (receipt only after the adapter accepted the turn).
 */
import { assembleCatchUp, wrapSync, type SummaryRecord } from "../context/catch-up.ts";
import type { ContextAttachment, PromptBlock } from "../event/content.ts";
import { fenceBlock } from "../shared/context-markers.ts";
import type { ContextTransport } from "../event/kinds.ts";
import { canSyncContext } from "../harness/capabilities.ts";
import type { HarnessRegistry } from "../harness/registry.ts";
import { allSummaries, listAt, listSlice, ownGet, summaryTexts, type ProjectionState, type SummaryTexts, type TurnSummaryEntry } from "../projection/index.ts";
import type { EpochId, EventId, IdSource, SnapshotId, TargetId, TurnId } from "../shared/ids.ts";
import type { HarnessBinding } from "./binding.ts";
import type { AppendFn } from "./pipeline.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

export interface PlannedDelivery {
  readonly snapshotId: SnapshotId;
  /** The snapshot's event: its receipt points at it (`parentEventId`). */
  readonly snapshotEventId: EventId;
  readonly contextEpochId: EpochId;
  readonly transport: ContextTransport;
  readonly text: string;
}

export interface DeliveryDeps {
  readonly append: AppendFn;
  readonly ids: IdSource;
  readonly sessionId: string;
  readonly budgetChars: number;
  readonly label: (targetId: TargetId) => string;
}

/** The receipted watermark of an epoch (never moves backwards). */
export function epochThroughSeq(state: ProjectionState, contextEpochId: EpochId): number {
  return ownGet(state.contextEpochs, contextEpochId)?.throughSeq ?? 0;
}

/**
 * How a turn's target is named in relayed history. A turn that ran on a target no longer in the
 * configuration keeps its id, marked as such: its history is still delivered, never dropped or thrown on.
 */
export function targetLabel(registry: HarnessRegistry, targetId: TargetId): string {
  if (!registry.hasTarget(targetId)) return `${targetId} (no longer configured)`;
  return registry.definitionOf(registry.target(targetId)).label;
}

export function summaryRecords(state: ProjectionState, label: (targetId: TargetId) => string, sinceSeq = 0): SummaryRecord[] {
  // Only turns after `sinceSeq` can be delivered (assembleCatchUp drops the rest, keeping them for numbering).
  return allSummaries(state).map((entry) => recordOf(state, entry, label, entry.seq > sinceSeq));
}

const NOT_DELIVERED: SummaryTexts = Object.freeze({ userText: "", steers: Object.freeze([] as string[]), agentText: "" });

/**
 * A summary as catch-up reads it. Its texts are resolved from the messages it names when first read, and only when
 * `deliverable` (else empty): `assembleCatchUp` reads the newest turns until its budget is full, so a fresh agent in
 * a session of hundreds of turns reads the messages of the few turns it is sent — resolving every one read each
 * earlier message of the session (checkpoint nodes from disk) at the start of that turn.
 */
function recordOf(state: ProjectionState, entry: TurnSummaryEntry, label: (targetId: TargetId) => string, deliverable: boolean): SummaryRecord {
  let texts: SummaryTexts | undefined;
  const read = (): SummaryTexts => (texts ??= deliverable ? summaryTexts(state, entry) : NOT_DELIVERED);
  return {
    seq: entry.seq,
    targetId: entry.harnessTargetId ?? undefined,
    label: entry.harnessTargetId ? label(entry.harnessTargetId) : "agent",
    summary: entry,
    get userText() {
      return read().userText;
    },
    get steers() {
      return read().steers;
    },
    get agentText() {
      return read().agentText;
    },
  };
}

/**
 * The records of the summaries after `sinceSeq` only, and how many come before them (`firstNumber` of the catch-up):
 * a turn of a long session reads the summaries its target has not seen, not all of the session's (its pages stay
 * on disk). Summaries are in seq order, so the first one after `sinceSeq` is found by bisection.
 */
export function deliverableRecords(
  state: ProjectionState,
  label: (targetId: TargetId) => string,
  sinceSeq: number,
  /** Whose texts are resolved (the others' are empty): a resumed target's own turns are never relayed back to it. */
  relayed: (targetId: TargetId | undefined) => boolean = () => true,
): { readonly records: SummaryRecord[]; readonly firstNumber: number } {
  const list = state.turnSummaries;
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((listAt(list, middle)?.seq ?? 0) <= sinceSeq) low = middle + 1;
    else high = middle;
  }
  const records = listSlice(list, low).map((entry) => recordOf(state, entry, label, relayed(entry.harnessTargetId ?? undefined)));
  return { records, firstNumber: low };
}

/** Append a snapshot when something is missing; returns how it will travel, or undefined. */
export function planDelivery(deps: DeliveryDeps, state: ProjectionState, binding: HarnessBinding, turnId: TurnId): PlannedDelivery | undefined {
  const contextEpochId = binding.contextEpochId();
  const fresh = binding.isFresh;
  const sinceSeq = fresh ? 0 : epochThroughSeq(state, contextEpochId);
  // A resumed native session is sent other targets' turns only (assembleCatchUp): its own stay unresolved. Its
  // watermark moves only with a delivery, so in a one-agent session every turn since the last one is a candidate.
  const { records, firstNumber } = deliverableRecords(state, deps.label, sinceSeq, fresh ? undefined : (targetId) => targetId !== binding.target.id);
  const catchUp = assembleCatchUp({
    summaries: records,
    firstNumber,
    sinceSeq,
    fresh,
    targetId: binding.target.id,
    budgetChars: deps.budgetChars,
  });
  if (!catchUp) return undefined;
  const snapshotId = deps.ids.mint("snapshot");
  const snapshot = deps.append({
    kind: "_baton_context_snapshot",
    payload: {
      snapshotId,
      source: { kind: "session_history", owner: deps.sessionId, key: "history" },
      targetId: binding.target.id,
      afterSeq: catchUp.afterSeq,
      throughSeq: catchUp.throughSeq,
      text: catchUp.text,
    },
    source: BATON_SOURCE,
    turnId,
    harnessTargetId: binding.target.id,
  });
  const transport: ContextTransport = canSyncContext(binding.adapter) ? "sync_context" : "prompt_prepend";
  return { snapshotId, snapshotEventId: snapshot.eventId, contextEpochId, transport, text: wrapSync(catchUp.text) };
}

/**
 * Snapshots for the context a prompt carries (plugin Resources, CTX-03 with a `plugin_resource` source):
 * one each, appended now, sent the way the history goes (sync_context when the adapter takes it, else
 * prepended as a `<baton-context>` block), receipted once accepted. They never move the history watermark.
 */
export function planAttachments(deps: DeliveryDeps, state: ProjectionState, binding: HarnessBinding, turnId: TurnId, attachments: readonly ContextAttachment[]): PlannedDelivery[] {
  const contextEpochId = binding.contextEpochId();
  const through = epochThroughSeq(state, contextEpochId);
  const transport: ContextTransport = canSyncContext(binding.adapter) ? "sync_context" : "prompt_prepend";
  return attachments.map((attachment) => {
    const snapshotId = deps.ids.mint("snapshot");
    const snapshot = deps.append({
      kind: "_baton_context_snapshot",
      payload: { snapshotId, source: attachment.source, targetId: binding.target.id, afterSeq: through, throughSeq: through, text: attachment.text },
      source: BATON_SOURCE,
      turnId,
      harnessTargetId: binding.target.id,
    });
    const text = fenceBlock("baton-context", `Context explicitly referenced by the user:\n\n${attachment.token}\n${attachment.text}`);
    return { snapshotId, snapshotEventId: snapshot.eventId, contextEpochId, transport, text };
  });
}

/** The prompt blocks for the deliveries: each `prompt_prepend` text (and a blank line) goes first, in order. */
export function applyDelivery(blocks: readonly PromptBlock[], deliveries: readonly PlannedDelivery[]): readonly PromptBlock[] {
  const prepended = deliveries.filter((d) => d.transport === "prompt_prepend").map((d): PromptBlock => ({ type: "text", text: `${d.text}\n\n` }));
  return prepended.length === 0 ? blocks : [...prepended, ...blocks];
}

export function appendReceipt(append: AppendFn, delivery: PlannedDelivery, turnId: TurnId, targetId: TargetId): void {
  append({
    kind: "_baton_context_delivery_receipt",
    payload: { snapshotId: delivery.snapshotId, contextEpochId: delivery.contextEpochId, transport: delivery.transport, accepted: true },
    source: BATON_SOURCE,
    parentEventId: delivery.snapshotEventId,
    turnId,
    harnessTargetId: targetId,
  });
}
