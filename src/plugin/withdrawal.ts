/**
 * When a plugin's open interaction (a proposal or a question) is withdrawn: its resource is being deleted or
 * gone, or the resource's spec moved past the generation the interaction was based on.
 */
import type { Requester } from "../event/interaction-types.ts";
import type { ResourceObject } from "./resources/schema.ts";

export interface PluginBasis {
  readonly resource?: { readonly uid?: string };
  readonly basedOnGeneration?: number;
}

/** The ids among `pending` of `pluginInstanceId` that a change of `object` withdraws. */
export function withdrawnBy<T extends { readonly interactionId: string; readonly requester: Requester }>(
  pending: readonly T[],
  basisOf: (item: T) => PluginBasis | undefined,
  pluginInstanceId: string,
  object: ResourceObject,
  gone: boolean,
): string[] {
  return pending
    .filter((item) => {
      if (item.requester.type !== "plugin" || item.requester.pluginInstanceId !== pluginInstanceId) return false;
      const basis = basisOf(item);
      if (basis?.resource?.uid !== object.metadata.uid) return false;
      return gone || object.metadata.deletionTimestamp !== undefined || object.metadata.generation > (basis.basedOnGeneration ?? Number.POSITIVE_INFINITY);
    })
    .map((item) => item.interactionId);
}
