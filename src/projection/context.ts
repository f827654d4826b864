/**
 * Context delivery (CTX-03): snapshots are recorded as assembled; a receipt marks its snapshot delivered
 * and advances the context epoch to the snapshot's throughSeq — never backwards. No receipt, no advance.
 * The snapshot text itself is not kept (only its length): it is transport, re-assembled when needed.
 */
import type { EventOf } from "../event/envelope.ts";
import { ownGet, recordSet } from "./record.ts";
import type { ContextEpoch, ContextSnapshotItem, ProjectionState } from "./state.ts";
import { tableGet, tableHas, tableSet } from "./table.ts";
import { withTarget } from "./targets.ts";

export function reduceContextSnapshot(state: ProjectionState, event: EventOf<"_baton_context_snapshot">): ProjectionState {
  const p = event.payload;
  if (tableHas(state.contextSnapshots, p.snapshotId)) return state;
  const snapshot: ContextSnapshotItem = {
    snapshotId: p.snapshotId,
    source: p.source,
    targetId: p.targetId ?? event.harnessTargetId ?? null,
    afterSeq: p.afterSeq,
    throughSeq: p.throughSeq,
    textChars: p.text.length,
    seq: event.seq,
    receipt: null,
  };
  return { ...state, contextSnapshots: tableSet(state.contextSnapshots, p.snapshotId, snapshot) };
}

export function reduceContextReceipt(
  state: ProjectionState,
  event: EventOf<"_baton_context_delivery_receipt">,
): ProjectionState {
  const { snapshotId, contextEpochId, transport } = event.payload;
  const snapshot = tableGet(state.contextSnapshots, snapshotId);
  if (snapshot === undefined || snapshot.receipt !== null) return state;
  const targetId = snapshot.targetId ?? event.harnessTargetId ?? null;
  const delivered: ContextSnapshotItem = { ...snapshot, receipt: { contextEpochId, transport, seq: event.seq } };
  // Only the session's history moves the watermark; a plugin Resource delivered is just that (plugins.md §5).
  if (snapshot.source.kind !== "session_history") return { ...state, contextSnapshots: tableSet(state.contextSnapshots, snapshotId, delivered) };
  const previous = ownGet(state.contextEpochs, contextEpochId);
  const epoch: ContextEpoch =
    previous === undefined
      ? { contextEpochId, targetId, throughSeq: snapshot.throughSeq, lastSnapshotId: snapshotId }
      : snapshot.throughSeq >= previous.throughSeq
        ? { ...previous, throughSeq: snapshot.throughSeq, lastSnapshotId: snapshotId }
        : previous;
  const next: ProjectionState = {
    ...state,
    contextSnapshots: tableSet(state.contextSnapshots, snapshotId, delivered),
    contextEpochs: recordSet(state.contextEpochs, contextEpochId, epoch),
  };
  return withTarget(next, targetId, event.harness, (t) =>
    t.contextEpochId === contextEpochId ? t : { ...t, contextEpochId },
  );
}
