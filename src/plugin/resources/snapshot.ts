/**
 * What a reconcile knows about the session (REC-09), built from projection selectors: the session, active
 * turns, queued inputs, targets, pending interactions and the latest turn summaries (the last 50: a snapshot
 * is sent on every reconcile, so it stays small), and — per resource — its plugin questions with their
 * outcomes (PIX-01, `pluginInteractions`). Pure; the controller host deep-freezes it, the runner again.
 *
 * `harnessTargets` is every configured target (the Controller's directory, in its order), not only those the
 * session has used: a loop may suggest a target nobody has talked to yet (second-opinion's reviewer).
 */
import { selectPendingInteractions } from "../../projection/selectors.ts";
import { loopInteractions, recentSummaries, summaryTexts, type ProjectionState } from "../../projection/index.ts";
import type { ResourceObject } from "./schema.ts";

const TURNS_IN_SNAPSHOT = 50;

/** A configured target as the snapshot lists it. */
export interface SnapshotTarget {
  readonly harnessTargetId: string;
  readonly harness: string | null;
}

export function batonSnapshot(state: ProjectionState, cwd: string, targets: readonly SnapshotTarget[]): Record<string, unknown> {
  const turns = recentSummaries(state, TURNS_IN_SNAPSHOT).map((s) => {
    const texts = summaryTexts(state, s);
    return {
      turnId: s.turnId,
      harnessTargetId: s.harnessTargetId,
      ...(s.stopReason === undefined ? {} : { stopReason: s.stopReason }),
      userText: texts.userText,
      agentText: texts.agentText,
      toolCalls: s.toolCalls.map((t) => ({ toolCallId: t.toolCallId, title: t.title, kind: t.kind, status: t.status })),
      ...(s.startedAt === undefined ? {} : { startedAt: s.startedAt }),
      ...(s.endedAt === undefined ? {} : { endedAt: s.endedAt }),
      revision: s.seq,
    };
  });
  const latest = turns.at(-1);
  return {
    session: { batonSessionId: state.batonSessionId ?? "", cwd, runState: state.runState, revision: state.lastSeq },
    activeTurns: Object.values(state.activeTurns).map((t) => ({ turnId: t.turnId, harnessTargetId: t.harnessTargetId, state: t.state })),
    inputs: state.queuedInputs.map((i) => ({ messageId: i.messageId, targetId: i.targetId, text: i.displayText ?? "", queuedSeq: i.queuedSeq })),
    harnessTargets: targets.map((t) => ({ harnessTargetId: t.harnessTargetId, harness: t.harness })),
    pendingInteractions: selectPendingInteractions(state).map((i) => ({ interactionId: i.interactionId, kind: i.draft.type, turnId: i.turnId })),
    ...(latest === undefined ? {} : { latestTurn: latest }),
    turns,
  };
}

interface PluginQuestionContext {
  readonly decisionKey?: unknown;
  readonly resource?: { readonly apiVersion?: unknown; readonly kind?: unknown; readonly name?: unknown; readonly uid?: unknown };
}

/**
 * The plugin questions (`question` interactions with a `pluginContext {decisionKey, resource}`) this
 * instance opened about this incarnation of `resource`, oldest first, with their outcome once resolved.
 */
export function pluginInteractionsOf(state: ProjectionState, pluginInstanceId: string, resource: ResourceObject): Record<string, unknown>[] {
  const out: { seq: number; item: Record<string, unknown> }[] = [];
  for (const item of loopInteractions(state)) {
    if (item.requester.type !== "plugin" || item.requester.pluginInstanceId !== pluginInstanceId || item.draft.type !== "question") continue;
    const context = (item.draft as { pluginContext?: PluginQuestionContext }).pluginContext;
    if (context?.resource?.uid !== resource.metadata.uid || typeof context.decisionKey !== "string") continue;
    const resolution = item.resolution;
    const outcome =
      resolution === null
        ? undefined
        : resolution.outcome === "answered"
          ? { type: "answered", values: Object.values(resolution.answers).flat() }
          : resolution.outcome === "cancelled"
            ? { type: "cancelled", reason: resolution.reason }
            : { type: "cancelled", reason: resolution.outcome };
    const ref = { apiVersion: resource.apiVersion, kind: resource.kind, name: resource.metadata.name, uid: resource.metadata.uid };
    out.push({ seq: item.openedSeq, item: { interactionId: item.interactionId, decisionKey: context.decisionKey, resource: ref, ...(outcome === undefined ? {} : { outcome }) } });
  }
  return out.sort((a, b) => a.seq - b.seq).map((x) => x.item);
}
