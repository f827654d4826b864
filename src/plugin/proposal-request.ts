/**
 * A plugin's `proposed-input` output as a proposal request (plugins.md §4, PRO-01): the dedupe key
 * `sha256(session, instance, apiVersion/kind/name/uid, generation, resourceVersion, sha256(text))` (a Turn's
 * resourceVersion is its ledger revision) and the `pluginContext` the card and the withdrawal read. Which
 * pending proposals a resource change withdraws (deleted, or its generation moved past the basis). Pure.
 */
import { sha256Hex } from "../shared/digest.ts";
import type { ProposalItem } from "../projection/index.ts";
import type { PluginOutput } from "./manager.ts";
import type { ResourceObject } from "./resources/schema.ts";
import { withdrawnBy } from "./withdrawal.ts";

export interface PluginProposalRequest {
  readonly text: string;
  readonly dedupeKey: string;
  readonly title?: string;
  readonly targetId?: string;
  readonly contextRefs?: readonly { readonly name: string }[];
  readonly pluginContext: PluginProposalContext;
}

export interface PluginProposalContext extends Readonly<Record<string, unknown>> {
  readonly pluginId: string;
  readonly pluginInstanceId: string;
  readonly packageVersion: string;
  readonly controllerId: string;
  readonly resource: { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string };
  readonly basedOnGeneration: number;
  readonly basedOnResourceVersion: string;
  readonly dedupeKey: string;
}

export function proposalDedupeKey(batonSessionId: string, pluginInstanceId: string, resource: ResourceObject, text: string): string {
  const m = resource.metadata;
  const basis = [batonSessionId, pluginInstanceId, `${resource.apiVersion}/${resource.kind}/${m.name}/${m.uid}`, String(m.generation), m.resourceVersion, sha256Hex(text)];
  return `pp_${sha256Hex(basis.join("\n"))}`;
}

/** The request for a `proposed-input` output, or undefined for any other output kind. */
export function proposalRequest(batonSessionId: string, out: PluginOutput): PluginProposalRequest | undefined {
  const output = out.output;
  if (output.kind !== "proposed-input") return undefined;
  const m = out.resource.metadata;
  const dedupeKey = proposalDedupeKey(batonSessionId, out.pluginInstanceId, out.resource, output.text);
  return {
    text: output.text,
    dedupeKey,
    ...(output.title === undefined ? {} : { title: output.title }),
    ...(output.targetId === undefined ? {} : { targetId: output.targetId }),
    ...(output.contextRefs === undefined ? {} : { contextRefs: output.contextRefs.map((r) => ({ name: r.name })) }),
    pluginContext: {
      pluginId: out.pluginId,
      pluginInstanceId: out.pluginInstanceId,
      packageVersion: out.packageVersion,
      controllerId: out.controllerId,
      resource: { apiVersion: out.resource.apiVersion, kind: out.resource.kind, name: m.name, uid: m.uid },
      basedOnGeneration: m.generation,
      basedOnResourceVersion: m.resourceVersion,
      dedupeKey,
    },
  };
}

function contextOf(item: ProposalItem): Partial<PluginProposalContext> | undefined {
  const context = item.draft.pluginContext as Partial<PluginProposalContext> | undefined;
  return context?.resource === undefined ? undefined : context;
}

/**
 * A proposal of this instance — pending or resolved — with the same resource incarnation, generation and
 * text: the same suggestion on a newer resourceVersion (a status write) is neither a second card nor, once
 * dismissed, back again.
 */
export function sameSuggestion(proposals: Iterable<ProposalItem>, request: PluginProposalRequest): ProposalItem | undefined {
  const want = request.pluginContext;
  for (const item of proposals) {
    const c = contextOf(item);
    const same =
      item.requester.type === "plugin" &&
      item.requester.pluginInstanceId === want.pluginInstanceId &&
      c?.resource?.uid === want.resource.uid &&
      c.basedOnGeneration === want.basedOnGeneration &&
      item.draft.text === request.text;
    if (same) return item;
  }
  return undefined;
}

/** The pending proposals of `pluginInstanceId` a change of `object` withdraws: it is being deleted or gone, or its spec moved on. */
export function proposalsToWithdraw(pending: readonly ProposalItem[], pluginInstanceId: string, object: ResourceObject, gone: boolean): string[] {
  return withdrawnBy(pending, contextOf, pluginInstanceId, object, gone);
}
