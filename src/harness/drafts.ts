/**
 * Typed adapter drafts, one builder for every harness: an adapter names the kind, the payload and the
 * turn; the host stamps source, harness and target from the binding, the store the envelope.
 */
import type { AdapterDraft } from "../event/envelope.ts";
import type { EventKind, DraftPayloadOf } from "../event/kinds.ts";
import type { TurnId } from "../shared/ids.ts";

/** A draft without its session coordinates: the session adds harnessSessionId and raw when it emits. */
export type DraftPart = {
  [K in EventKind]: { readonly kind: K; readonly payload: DraftPayloadOf<K>; readonly turnId?: TurnId };
}[EventKind];

export interface DraftExtra {
  readonly turnId?: TurnId | undefined;
  readonly raw?: unknown;
  /** The native session id; an empty one (not known yet) is left out. */
  readonly harnessSessionId?: string | undefined;
  readonly agentId?: string | undefined;
}

export function part<K extends EventKind>(kind: K, payload: DraftPayloadOf<K>, turnId?: TurnId): DraftPart {
  return (turnId === undefined ? { kind, payload } : { kind, payload, turnId }) as DraftPart;
}

/** An adapter draft whose optional fields are present only when they carry a value. */
export function adapterDraft<K extends EventKind>(kind: K, payload: DraftPayloadOf<K>, extra: DraftExtra = {}): AdapterDraft {
  return build(kind, payload, extra);
}

/** A part with its session coordinates (the part's own turn, else the one given). */
export function toAdapterDraft(draft: DraftPart, extra: DraftExtra): AdapterDraft {
  return build(draft.kind, draft.payload, { ...extra, turnId: draft.turnId ?? extra.turnId });
}

function build(kind: EventKind, payload: unknown, extra: DraftExtra): AdapterDraft {
  const out: Record<string, unknown> = { kind, payload };
  if (extra.turnId !== undefined) out["turnId"] = extra.turnId;
  if (extra.harnessSessionId !== undefined && extra.harnessSessionId !== "") out["harnessSessionId"] = extra.harnessSessionId;
  if (extra.raw !== undefined) out["raw"] = extra.raw;
  if (extra.agentId !== undefined) out["agentId"] = extra.agentId;
  return out as AdapterDraft;
}
