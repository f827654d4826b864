/** Typed construction of adapter drafts (the host stamps source/harness/target). */
import type { AdapterDraft } from "../../event/envelope.ts";
import type { EventKind, DraftPayloadOf } from "../../event/kinds.ts";
import type { TurnId } from "../../shared/ids.ts";
import { INVALID_UTF8_FIELD } from "../../shared/jsonl.ts";

export interface DraftExtra {
  readonly turnId?: TurnId | undefined;
  readonly raw?: unknown;
  readonly harnessSessionId?: string | undefined;
  readonly agentId?: string | undefined;
}

export function adapterDraft<K extends EventKind>(kind: K, payload: DraftPayloadOf<K>, extra: DraftExtra = {}): AdapterDraft {
  const out: Record<string, unknown> = { kind, payload };
  if (extra.turnId !== undefined) out["turnId"] = extra.turnId;
  if (extra.raw !== undefined) out["raw"] = extra.raw;
  if (extra.harnessSessionId !== undefined) out["harnessSessionId"] = extra.harnessSessionId;
  if (extra.agentId !== undefined) out["agentId"] = extra.agentId;
  return out as AdapterDraft;
}

/** The fields that name an SDK message (and the invalid-UTF-8 mark, when it carries one). */
const IDENTITY_FIELDS = ["type", "subtype", "uuid", "session_id", INVALID_UTF8_FIELD] as const;

/**
 * `raw` for an event made from a small part of a large session-level SDK message (`system/init`, `result`): the
 * message's identity and the fields the event was made from, not the whole message again (the native trace has
 * it whole; `uuid` finds it there). A trivial Claude turn stored 3.3 KB of init and 2.5 KB of result verbatim.
 */
export function rawExcerpt(message: object, fields: readonly string[]): Record<string, unknown> {
  const source = message as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of [...IDENTITY_FIELDS, ...fields]) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
