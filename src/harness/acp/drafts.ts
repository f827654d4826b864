/** Typed adapter drafts for the ACP harness (the host stamps source, harness and target). */
import type { AdapterDraft } from "../../event/envelope.ts";
import type { EventKind, DraftPayloadOf } from "../../event/kinds.ts";
import type { TurnId } from "../../shared/ids.ts";

export interface DraftPart {
  readonly kind: EventKind;
  readonly payload: unknown;
  readonly turnId?: TurnId;
}

export function part<K extends EventKind>(kind: K, payload: DraftPayloadOf<K>, turnId?: TurnId): DraftPart {
  return turnId === undefined ? { kind, payload } : { kind, payload, turnId };
}

export function toAdapterDraft(draft: DraftPart, extra: { readonly harnessSessionId?: string | undefined; readonly raw?: unknown }): AdapterDraft {
  const out: Record<string, unknown> = { kind: draft.kind, payload: draft.payload };
  if (draft.turnId !== undefined) out["turnId"] = draft.turnId;
  if (extra.harnessSessionId !== undefined && extra.harnessSessionId !== "") out["harnessSessionId"] = extra.harnessSessionId;
  if (extra.raw !== undefined) out["raw"] = extra.raw;
  return out as AdapterDraft;
}
