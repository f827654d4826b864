/**
 * The loop half of the plugin host port (plugins.md §4): what a reconcile sees of the session (the
 * BatonSnapshot, a resource's plugin questions, the Turn resources and each new one), and where its
 * outputs go — a `proposed-input` becomes a `proposed_input` interaction through the Controller's
 * proposal desk (deduplicated by its key; the same text for the same resource generation, pending or
 * resolved, is not proposed again), an `interaction` becomes a plugin question (one per resource incarnation and
 * decisionKey) whose durable answer re-enqueues the resource, and a resource that is deleted or whose spec moved
 * on withdraws the proposals and questions it outdates.
 */
import type { Controller } from "../controller/controller.ts";
import { isProposal, loopInteractions, summaryOf } from "../projection/index.ts";
import type { PluginHostPort, PluginOutput } from "../plugin/manager.ts";
import { proposalRequest, proposalsToWithdraw, sameSuggestion } from "../plugin/proposal-request.ts";
import { questionRequest, questionsToWithdraw, sameQuestion } from "../plugin/question-request.ts";
import type { ResourceObject } from "../plugin/resources/schema.ts";
import { batonSnapshot, pluginInteractionsOf } from "../plugin/resources/snapshot.ts";
import { turnResource, turnResources } from "../plugin/resources/turns.ts";
import type { Logger } from "../shared/log.ts";

export type LoopPort = Required<Pick<PluginHostPort, "snapshot" | "interactions" | "publish" | "resourceChanged" | "turns" | "onTurn" | "onAnswer">>;

export function loopPort(controller: Controller, session: { readonly batonSessionId: string; readonly cwd: string }, log: Logger): LoopPort {
  return {
    snapshot: () =>
      batonSnapshot(
        controller.state,
        session.cwd,
        controller
          .targets()
          .list()
          .map((t) => ({ harnessTargetId: t.id, harness: t.harness })),
      ),
    interactions: (pluginInstanceId, resource) => pluginInteractionsOf(controller.state, pluginInstanceId, resource),
    publish: (out) => publishOutput(controller, session.batonSessionId, out, log),
    resourceChanged: (pluginInstanceId, object, gone) => {
      for (const id of proposalsToWithdraw(controller.proposals.pending(), pluginInstanceId, object, gone)) controller.proposals.withdraw(id);
      for (const id of questionsToWithdraw(controller.pluginQuestions.pending(), pluginInstanceId, object, gone)) controller.pluginQuestions.withdraw(id);
    },
    // An answer is on disk before this is called: the resource's next reconcile reads it from the ledger.
    onAnswer: (listener) =>
      controller.pluginQuestions.onAnswered((item) => {
        const resource = (item.draft as { pluginContext?: { resource?: { apiVersion: string; kind: string; name: string; uid: string } } }).pluginContext?.resource;
        if (item.requester.type === "plugin" && resource !== undefined) listener(item.requester.pluginInstanceId, resource);
      }),
    turns: () => turnResources(controller.state),
    onTurn: (listener: (turn: ResourceObject) => void) =>
      controller.subscribe((event) => {
        if (event.kind !== "_baton_turn_summary") return;
        const state = controller.state;
        const turnId = (event.payload as { turnId: string }).turnId;
        const entry = summaryOf(state, turnId);
        if (entry !== undefined) listener(turnResource(state, entry));
      }),
  };
}

function publishOutput(controller: Controller, batonSessionId: string, out: PluginOutput, log: Logger): void {
  const question = questionRequest(out);
  if (question !== undefined) {
    // One question per (instance, resource incarnation, decisionKey): asking again, pending or resolved, is a no-op.
    if (sameQuestion(loopInteractions(controller.state), question) === undefined) controller.pluginQuestions.open(question.pluginInstanceId, question.draft);
    return;
  }
  const request = proposalRequest(batonSessionId, out);
  if (request === undefined) {
    log.log("warn", `${out.pluginId}: a ${out.output.kind} output of ${out.controllerId}/${out.resource.metadata.name} has no place in this Baton`);
    return;
  }
  const proposals = loopInteractions(controller.state).filter(isProposal);
  if (sameSuggestion(proposals, request) !== undefined) return;
  controller.proposals.open({ type: "plugin", pluginInstanceId: out.pluginInstanceId }, request);
}
