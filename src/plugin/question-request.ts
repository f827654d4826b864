/**
 * A plugin's `interaction` output as a plugin question (plugins.md §4, PIX-01): a `question` interaction with one
 * question (`questionId` "decision", header = title, question = prompt) and a `pluginContext {decisionKey,
 * resource (with uid), resourceOwner?, basedOn…}`. One per (instance, resource incarnation, decisionKey): asking
 * again — pending or resolved — appends nothing. Which pending questions a resource change withdraws (deleted,
 * or its generation moved past the basis), like proposals. Pure.
 */
import type { QuestionDraft } from "../event/interaction-types.ts";
import type { InteractionItem } from "../projection/index.ts";
import type { PluginOutput } from "./host-port.ts";
import type { ResourceObject } from "./resources/schema.ts";
import { withdrawnBy } from "./withdrawal.ts";

/** The one question of a plugin question draft. */
export const DECISION_QUESTION_ID = "decision";

export interface PluginQuestionContext extends Readonly<Record<string, unknown>> {
  readonly pluginId: string;
  readonly pluginInstanceId: string;
  readonly packageVersion: string;
  readonly controllerId: string;
  readonly decisionKey: string;
  readonly resource: { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string };
  readonly resourceOwner?: { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string };
  readonly basedOnGeneration: number;
  readonly basedOnResourceVersion: string;
}

export interface PluginQuestionRequest {
  readonly pluginInstanceId: string;
  readonly draft: QuestionDraft & { readonly pluginContext: PluginQuestionContext };
}

/** The question for an `interaction` output, or undefined for any other output kind. */
export function questionRequest(out: PluginOutput): PluginQuestionRequest | undefined {
  const output = out.output;
  if (output.kind !== "interaction") return undefined;
  const m = out.resource.metadata;
  const options = output.options?.map((o) => ({
    optionId: o.optionId,
    label: o.label,
    ...(o.description === undefined ? {} : { description: o.description }),
    ...(o.role === undefined ? {} : { role: o.role }),
  }));
  const pluginContext: PluginQuestionContext = {
    pluginId: out.pluginId,
    pluginInstanceId: out.pluginInstanceId,
    packageVersion: out.packageVersion,
    controllerId: out.controllerId,
    decisionKey: output.decisionKey,
    resource: { apiVersion: out.resource.apiVersion, kind: out.resource.kind, name: m.name, uid: m.uid },
    ...(m.owner === undefined ? {} : { resourceOwner: { apiVersion: m.owner.apiVersion, kind: m.owner.kind, name: m.owner.name, uid: m.owner.uid } }),
    basedOnGeneration: m.generation,
    basedOnResourceVersion: m.resourceVersion,
  };
  return {
    pluginInstanceId: out.pluginInstanceId,
    draft: {
      type: "question",
      questions: [
        {
          questionId: DECISION_QUESTION_ID,
          header: output.title,
          question: output.prompt,
          ...(options === undefined ? {} : { options }),
          // Without options the answer is free text; with them, only an option unless the plugin allows more.
          allowOther: options === undefined ? true : output.allowOther === true,
        },
      ],
      pluginContext,
    },
  };
}

function contextOf(item: InteractionItem): Partial<PluginQuestionContext> | undefined {
  if (item.draft.type !== "question") return undefined;
  const context = (item.draft as { pluginContext?: Partial<PluginQuestionContext> }).pluginContext;
  return typeof context?.decisionKey === "string" && context.resource !== undefined ? context : undefined;
}

/** Is this a question a plugin asked (PIX-01)? */
export function isPluginQuestion(item: InteractionItem): boolean {
  return item.requester.type === "plugin" && contextOf(item) !== undefined;
}

/** The question this instance already asked about this resource incarnation under this decisionKey, pending or resolved. */
export function sameQuestion(items: Iterable<InteractionItem>, request: PluginQuestionRequest): InteractionItem | undefined {
  const want = request.draft.pluginContext;
  for (const item of items) {
    if (item.requester.type !== "plugin" || item.requester.pluginInstanceId !== request.pluginInstanceId) continue;
    const c = contextOf(item);
    if (c?.resource?.uid === want.resource.uid && c.decisionKey === want.decisionKey) return item;
  }
  return undefined;
}

/** The pending questions of `pluginInstanceId` a change of `object` withdraws: it is being deleted or gone, or its spec moved on. */
export function questionsToWithdraw(pending: readonly InteractionItem[], pluginInstanceId: string, object: ResourceObject, gone: boolean): string[] {
  return withdrawnBy(pending, contextOf, pluginInstanceId, object, gone);
}
