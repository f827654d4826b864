/**
 * File checkpoints (`_baton_checkpoint`), their own slice: a list in seq order, and the selectors a rewind
 * needs — where it can go, and which paths changed outside any agent turn since (what it would clobber).
 */
import type { EventOf } from "../event/envelope.ts";
import { CHECKPOINT_BOUNDARIES, type CheckpointBoundary } from "../event/kinds.ts";
import { displayUserText } from "./display-text.ts";
import { listAt, listPush } from "./paged-list.ts";
import type { FileCheckpointItem } from "./file-checkpoint-item.ts";
import type { ProjectionState } from "./state.ts";
import { summaryTexts } from "./summary.ts";
import { tableGet, tableHas, tableSet } from "./table.ts";
import { summaryOf } from "./turn-summaries.ts";
import type { TargetId } from "../shared/ids.ts";

export function reduceFileCheckpoint(state: ProjectionState, event: EventOf<"_baton_checkpoint">): ProjectionState {
  const p = event.payload;
  // A boundary this Baton does not know is kept as a `before` that cannot be rewound to: its paths still count.
  const known = (CHECKPOINT_BOUNDARIES as readonly string[]).includes(p.boundary);
  const boundary: CheckpointBoundary = known ? p.boundary : "before";
  const key = `${known ? boundary : p.boundary}:${p.turnId}`;
  if (tableHas(state.fileCheckpointIndex, key)) return state;
  const item: FileCheckpointItem = {
    turnId: p.turnId,
    boundary,
    commit: p.commit,
    dirtyPaths: [...p.dirtyPaths],
    dirtyUnknown: p.dirtyUnknown === true,
    throughSeq: known && boundary === "before" && p.throughSeq !== undefined ? p.throughSeq : null,
    undo: known && boundary === "rewind" && p.undo !== undefined ? { batonSessionId: p.undo.batonSessionId, throughSeq: p.undo.throughSeq, commit: p.undo.commit } : null,
    harnessTargetId: event.harnessTargetId ?? null,
    seq: event.seq,
    ts: event.ts,
  };
  // The index is read before the push: inside a draft (draft.ts) the push may extend the list in place.
  const index = state.fileCheckpoints.length;
  return {
    ...state,
    fileCheckpoints: listPush(state.fileCheckpoints, item),
    fileCheckpointIndex: tableSet(state.fileCheckpointIndex, key, index),
  };
}

/** A place a rewind can go: before a driven turn, or back to where an earlier rewind started (undo). */
export interface RewindPoint {
  /** The turn id, or `undo`. */
  readonly id: string;
  readonly kind: "turn" | "undo";
  /** Index in `fileCheckpoints`. */
  readonly index: number;
  readonly turnId: string;
  /** The checkpoint the worktree is restored to. */
  readonly commit: string;
  /** The conversation the new session continues: a session (null: this one) through a seq. */
  readonly fork: { readonly batonSessionId: string | null; readonly throughSeq: number };
  readonly harnessTargetId: TargetId | null;
  readonly ts: string;
  /** What the user asked in that turn (empty for undo). */
  readonly userText: string;
}

export const UNDO_POINT_ID = "undo";

/** Rewind points, newest first. */
export function selectRewindPoints(state: ProjectionState): RewindPoint[] {
  const points: RewindPoint[] = [];
  for (let index = state.fileCheckpoints.length - 1; index >= 0; index--) {
    const item = listAt(state.fileCheckpoints, index);
    if (item === undefined) continue;
    if (item.boundary === "before" && item.throughSeq !== null) {
      points.push({
        id: item.turnId,
        kind: "turn",
        index,
        turnId: item.turnId,
        commit: item.commit,
        fork: { batonSessionId: null, throughSeq: item.throughSeq },
        harnessTargetId: item.harnessTargetId,
        ts: item.ts,
        userText: userTextOf(state, item.turnId),
      });
    } else if (item.boundary === "rewind" && item.undo !== null && !points.some((p) => p.kind === "undo")) {
      points.push({
        id: UNDO_POINT_ID,
        kind: "undo",
        index,
        turnId: item.turnId,
        commit: item.undo.commit,
        fork: { batonSessionId: item.undo.batonSessionId, throughSeq: item.undo.throughSeq },
        harnessTargetId: null,
        ts: item.ts,
        userText: "",
      });
    }
  }
  return points;
}

export function lastFileCheckpoint(state: ProjectionState): FileCheckpointItem | undefined {
  return listAt(state.fileCheckpoints, state.fileCheckpoints.length - 1);
}

/**
 * Paths changed outside any agent turn after checkpoint `afterIndex` (through `throughIndex`, default the
 * last): what the user (or anything but a driven turn) changed between turns, as the later `before` and
 * `rewind` checkpoints recorded it. `unknown` when one of them could not compare.
 */
export function changedOutsideTurnsAfter(
  state: ProjectionState,
  afterIndex: number,
  throughIndex = state.fileCheckpoints.length - 1,
): { readonly paths: readonly string[]; readonly unknown: boolean } {
  const paths = new Set<string>();
  let unknown = false;
  for (let i = afterIndex + 1; i <= throughIndex; i++) {
    const item = listAt(state.fileCheckpoints, i);
    if (item === undefined || item.boundary === "after") continue;
    for (const p of item.dirtyPaths) paths.add(p);
    if (item.dirtyUnknown) unknown = true;
  }
  return { paths: [...paths].sort(), unknown };
}

/** Index of the last file checkpoint at or before `seq` (-1: none). */
export function fileCheckpointIndexThrough(state: ProjectionState, seq: number): number {
  for (let i = state.fileCheckpoints.length - 1; i >= 0; i--) {
    if ((listAt(state.fileCheckpoints, i)?.seq ?? Infinity) <= seq) return i;
  }
  return -1;
}

function userTextOf(state: ProjectionState, turnId: string): string {
  const summary = summaryOf(state, turnId);
  if (summary !== undefined) return summaryTexts(state, summary).userText;
  const messageId = tableGet(state.turnData, turnId)?.userMessageId;
  const message = messageId ? tableGet(state.messages, messageId) : undefined;
  return message === undefined ? "" : displayUserText(message.content).trim();
}
