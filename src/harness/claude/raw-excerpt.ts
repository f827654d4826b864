/** Claude's `raw` excerpts (the draft builder itself is `harness/drafts.ts`, shared by every adapter). */
import { INVALID_UTF8_FIELD } from "../../shared/jsonl.ts";

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
