/**
 * The streamed tail of a batch fold: the text block a run of chunks extends.
 *
 * Most of a ledger is runs of streamed chunks into one message. Folded one by one, each chunk walks the
 * messages table, checks the draft's ownership of the message, its content and its last block, and
 * re-runs the message's commit (timeline, turn data, the turn's retrying and streaming marks) only to find
 * that nothing but the text changed. Inside one draft (a load, `replay`) the state after a chunk is known
 * exactly: so once a chunk has extended a text block the draft created, the next chunk of the same kind,
 * message and turn — with the same state object in hand and no other reduce in between — is folded by
 * appending its text to that block and moving `lastSeq`. That is what the full path would do to them in
 * place, and the only things it would change: the message exists and is in progress, its turn does not
 * change (so no timeline entry, no turn data, no turn join), the retrying and streaming marks were set by
 * the chunk before for the same turn, and the state's session id is set.
 *
 * Anything else — another event, a chunk of another message, kind or turn, an empty or non-text block, a
 * state that is not the one returned, a draft that closed — forgets the tail and takes the full path.
 * Live folds (one draft per event) never use it. `tests/unit/ledger-fast-fold.test.ts` and the
 * projection's property tests fold with and without it.
 */
import type { AnyEvent } from "../event/envelope.ts";
import { draftNumber, noteEdit, owned, type Mutable } from "./draft.ts";
import type { ProjectionState } from "./state.ts";
import { tableGet } from "./table.ts";

/** The kinds whose chunks stream into a message. */
const MESSAGE_CHUNK_KINDS: ReadonlySet<string> = new Set(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

// The tail (module state: a fold runs one draft at a time, and every note is tied to its draft's number).
let tailState: ProjectionState | undefined;
let tailDraft = 0;
let tailKind = "";
let tailMessageId = "";
let tailTurnId: string | null = null;
let tailBlock: { text: string } | undefined;

/** `enabled: false` folds every chunk through the full path; `extended` counts the chunks the tail folded (tests). */
export const streamTail = { enabled: true, extended: 0 };

function textOfChunk(event: AnyEvent): string | undefined {
  const content = (event.payload as { content?: unknown } | null | undefined)?.content as { type?: unknown; text?: unknown } | null | undefined;
  if (typeof content !== "object" || content === null || content.type !== "text") return undefined;
  return typeof content.text === "string" ? content.text : undefined;
}

/**
 * Folds `event` into `state` when it continues the tail (then true: `state` now holds it); else false. The
 * reducer asks this first, before anything else (`reduce`, `reduceStored`): so the function a load runs for
 * nine events in ten stays this small one, and the full reducer is compiled for the rest only.
 */
export function extendTail(state: ProjectionState, event: AnyEvent): boolean {
  if (state !== tailState || tailBlock === undefined || tailDraft !== draftNumber() || tailDraft === 0 || event.seq <= state.lastSeq) return false;
  if (event.kind !== tailKind || (event.turnId ?? null) !== tailTurnId) return false;
  if ((event.payload as { messageId?: unknown }).messageId !== tailMessageId) return false;
  const text = textOfChunk(event);
  if (text === undefined || text === "") return false;
  tailBlock.text += text;
  (state as Mutable<ProjectionState>).lastSeq = event.seq;
  noteEdit();
  streamTail.extended++;
  return true;
}

export function forgetTail(): void {
  tailState = undefined;
  tailBlock = undefined;
}

/**
 * After the full path folded a chunk into `state` inside a batch draft: when it left the message ending in a
 * text block the draft created (from the first chunk of a run on), the next chunk can extend it directly.
 */
export function noteTail(state: ProjectionState, event: AnyEvent): void {
  if (!streamTail.enabled || !MESSAGE_CHUNK_KINDS.has(event.kind) || state.batonSessionId === null || !owned(state)) return;
  const messageId = (event.payload as { messageId?: unknown }).messageId;
  if (typeof messageId !== "string") return;
  const message = tableGet(state.messages, messageId);
  if (message === undefined || message.status !== "in_progress") return;
  const last = message.content[message.content.length - 1] as { type?: unknown; text?: unknown } | undefined;
  if (last === undefined || last.type !== "text" || typeof last.text !== "string" || !owned(last)) return;
  tailState = state;
  tailDraft = draftNumber();
  tailKind = event.kind;
  tailMessageId = messageId;
  tailTurnId = event.turnId ?? null;
  tailBlock = last as { text: string };
}
