/** Public surface of the projection: the pure fold, its state, selectors and helpers. */
// The vocabulary the slices are made of, for views that select them (the TUI imports no `event` module).
export { textOf, type ContentBlock } from "../event/content.ts";
export { isKind, type AnyEvent } from "../event/envelope.ts";
export type { InteractionDraft, InteractionResolution, PermissionOption } from "../event/interaction-types.ts";
export { kindsStreaming } from "../event/kinds.ts";
export { checkAttemptTransition, type AttemptTransitionVerdict } from "./attempts.ts";
export { displayUserText, stripInjectedContext } from "./display-text.ts";
export { errorIdOf, noticeIdOf } from "./notices.ts";
export { changedOutsideTurnsAfter, fileCheckpointIndexThrough, lastFileCheckpoint, selectRewindPoints, UNDO_POINT_ID, type RewindPoint } from "./file-checkpoints.ts";
export { emptyList, listAt, listChunks, listSlice, listToArray, PAGE_SIZE, type PagedList } from "./paged-list.ts";
export { readIndexes } from "./checkpoint-codec.ts";
export { loopInteractions } from "./interactions.ts";
export { checkStoredState, reduce, reduceStored, replay, storedProjectionFold } from "./reduce.ts";
export { selectPluginBinding, selectPluginCommands } from "./plugins.ts";
export { ownGet } from "./record.ts";
export { findProposal, isProposal, pendingProposal, selectPendingProposals, type ProposalItem } from "./proposals.ts";
export {
  createTranscriptSelector,
  resolveTimelineItem,
  selectTranscript,
  selectTranscriptWindow,
  type TranscriptEntry,
  type TranscriptSelector,
} from "./select-transcript.ts";
export {
  selectActivity,
  selectApprovalRoute,
  selectFooter,
  selectLastDrivenTarget,
  selectOpenToolCalls,
  selectPendingInteractions,
  selectTargetContext,
  selectTargetPlan,
  type Activity,
  type ActivityTool,
  type ActivityTurn,
  type Footer,
  type TargetContext,
  type TargetPlan,
} from "./selectors.ts";
export * from "./state.ts";
export { allSummaries, lastSummary, recentSummaries, summaryOf } from "./turn-summaries.ts";
export { repeatsSnapshot } from "./targets.ts";
export { buildTurnSummary, summaryTexts, type SummaryTexts } from "./summary.ts";
export { emptyTable, tableGet, tableHas, tableIds, tableToRecord, tableValues, TABLE_BUCKETS, type Table } from "./table.ts";
export { blockingInteractionCount, deriveRunState } from "./turns.ts";
export { selectWaiting, waitKindOf, type Waiting, type WaitItem, type WaitKind } from "./waiting.ts";
export { plainState, plainStateJson, type PlainState } from "./plain.ts";
