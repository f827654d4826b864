/**
 * Plugin questions (plugins.md §4, PIX-01): a plugin instance asks the user through a `question` interaction with
 * requester and source `plugin` and no turn — it blocks nothing, waits for no process and no callback (recovery
 * leaves it pending; a reopened session shows it again). Whoever opens one has deduplicated it (one per instance,
 * resource incarnation and decisionKey: `src/plugin/question-request.ts`).
 *
 * - answer: checked and normalised first — each question gets exactly one non-empty value, an option's label
 *   becomes its `optionId`, free text only where the question allows it — then `interaction.resolved` is appended
 *   **and synced**, and only then are the listeners told (the app re-enqueues the resource: its next reconcile
 *   reads the answer from the ledger, also after a crash in between).
 * - withdraw: the requester takes it back (its resource went or moved on): `cancelled {requester}`.
 */
import type { InteractionResolution, QuestionDraft } from "../event/interaction-types.ts";
import { normaliseAnswer } from "../interaction/answers.ts";
import { selectPendingInteractions, tableGet, type InteractionItem, type ProjectionState } from "../projection/index.ts";
import { BatonError } from "../shared/errors.ts";
import type { IdSource } from "../shared/ids.ts";
import type { AppendFn } from "./pipeline.ts";

export interface PluginQuestionDeps {
  readonly append: AppendFn;
  readonly sync: () => Promise<void>;
  readonly state: () => ProjectionState;
  readonly ids: IdSource;
}

export type PluginAnswerListener = (item: InteractionItem, resolution: InteractionResolution) => void;

/** A pending question asked by a plugin (no turn, no waiter): the ones this desk answers. */
export function pendingPluginQuestion(state: ProjectionState, interactionId: string): InteractionItem | undefined {
  const item = tableGet(state.interactions, interactionId);
  return item !== undefined && item.status === "pending" && item.requester.type === "plugin" && item.draft.type === "question" ? item : undefined;
}

export class PluginQuestions {
  private readonly listeners = new Set<PluginAnswerListener>();

  constructor(private readonly deps: PluginQuestionDeps) {}

  /** Open a plugin question (the caller deduplicated it); resolves to its interaction id. */
  open(pluginInstanceId: string, draft: QuestionDraft): string {
    const interactionId = this.deps.ids.mint("interaction");
    const requester = { type: "plugin", pluginInstanceId } as const;
    this.deps.append({ kind: "interaction.opened", payload: { interactionId, requester, draft }, source: requester });
    return interactionId;
  }

  /** Answer (or cancel) it: the resolution is on disk before any listener hears of it. Throws `not_pending` / `usage`. */
  async answer(interactionId: string, resolution: InteractionResolution): Promise<void> {
    const item = pendingPluginQuestion(this.deps.state(), interactionId);
    if (item === undefined || item.draft.type !== "question") throw new BatonError("not_pending", `question ${interactionId} is no longer pending`);
    const normalised = normaliseAnswer(item.draft, resolution);
    this.deps.append({ kind: "interaction.resolved", payload: { interactionId, resolution: normalised }, source: { type: "user" } });
    await this.deps.sync();
    for (const listener of [...this.listeners]) listener(item, normalised);
  }

  /** The requester takes its question back: `cancelled {requester}`. False when it was not pending. */
  withdraw(interactionId: string): boolean {
    const item = pendingPluginQuestion(this.deps.state(), interactionId);
    if (item === undefined || item.requester.type !== "plugin") return false;
    const requester = { type: "plugin", pluginInstanceId: item.requester.pluginInstanceId } as const;
    this.deps.append({ kind: "interaction.resolved", payload: { interactionId, resolution: { outcome: "cancelled", reason: "requester" } }, source: requester });
    return true;
  }

  /** Told after each answer is durable. */
  onAnswered(listener: PluginAnswerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  pending(): readonly InteractionItem[] {
    return selectPendingInteractions(this.deps.state()).filter((item) => item.requester.type === "plugin" && item.draft.type === "question");
  }
}
