/** The event envelope (inventory §3.1), drafts, and decoding of stored lines. */
import type { BatonSessionId, EventId, TargetId, TurnId } from "../shared/ids.ts";
import { FAST_CHECKS, isMessageChunkPayload } from "./fast-checks.ts";
import { EVENT_KINDS, isEventKind, type DraftPayloadOf, type EventKind, type PayloadOf } from "./kinds.ts";
import { isStopReason } from "./stop-reasons.ts";

export const ENVELOPE_VERSION = 3;
/** The envelope versions this Baton reads: exactly the one it writes (older layouts are not migrated). */
export const READABLE_ENVELOPE_VERSIONS: readonly number[] = [ENVELOPE_VERSION];

export type EventSource =
  | { readonly type: "baton" }
  | { readonly type: "user" }
  | { readonly type: "harness"; readonly harnessTargetId: TargetId }
  | { readonly type: "plugin"; readonly pluginInstanceId: string }
  | { readonly type: "schedule"; readonly scheduleId: string };

/** A source as a producer names it (a plain target name); the stored event's is `EventSource`. */
export type DraftSource = Exclude<EventSource, { readonly type: "harness" }> | { readonly type: "harness"; readonly harnessTargetId: string };

/** The source of every fact Baton itself records (one value; compare by `type`, never by identity). */
export const BATON_SOURCE: { readonly type: "baton" } = Object.freeze({ type: "baton" });

export interface EventScope {
  readonly type: "session";
  readonly batonSessionId: BatonSessionId;
}

/** Fields every envelope carries besides kind and payload. */
export interface EnvelopeHeader {
  readonly v: number;
  readonly eventId: EventId;
  readonly seq: number;
  readonly ts: string;
  readonly scope: EventScope;
  readonly source: EventSource;
  readonly parentEventId?: EventId;
  readonly harness?: string;
  readonly harnessTargetId?: TargetId;
  readonly harnessSessionId?: string;
  readonly turnId?: TurnId;
  readonly raw?: unknown;
  readonly parentSessionId?: string;
  readonly agentId?: string;
  readonly agentType?: string;
}

export interface Envelope<K extends string = string, P = unknown> extends EnvelopeHeader {
  readonly kind: K;
  readonly payload: P;
}

/** Any stored event, known kind or not. */
export type AnyEvent = Envelope<string, unknown>;

/** A stored event of a known kind, discriminated on `kind`. */
export type KnownEvent = { [K in EventKind]: Envelope<K, PayloadOf<K>> }[EventKind];
export type EventOf<K extends EventKind> = Envelope<K, PayloadOf<K>>;

type StampedByStore = "v" | "eventId" | "seq" | "ts" | "scope";

/**
 * What producers hand to the store: the store stamps v, eventId, seq, ts and scope. The payload is zod's
 * input side and the target a plain name: append validates the draft, and the stored event carries brands.
 */
export type DraftOf<K extends EventKind> = Omit<Envelope<K, DraftPayloadOf<K>>, StampedByStore | "source" | "harnessTargetId"> & {
  readonly source: DraftSource;
  readonly harnessTargetId?: string;
};

export type EventDraft = {
  [K in EventKind]: DraftOf<K>;
}[EventKind];

/** What adapters emit: the host stamps source, harness and target from the binding. */
export type AdapterDraft = {
  [K in EventKind]: Omit<DraftOf<K>, "source" | "harness" | "harnessTargetId"> & {
    readonly source?: DraftSource;
    readonly harness?: string;
    readonly harnessTargetId?: string;
  };
}[EventKind];

/** True when the event's kind is in the registry (the payload is then trusted as validated on append). */
export function isKnownEvent(event: AnyEvent): event is KnownEvent {
  return isEventKind(event.kind);
}

export function isKind<K extends EventKind>(event: AnyEvent, kind: K): event is EventOf<K> {
  return event.kind === kind;
}

export type DecodeResult = { readonly ok: true; readonly event: AnyEvent } | { readonly ok: false; readonly reason: string };

/**
 * Structural check of a parsed line. Known kinds are not re-validated here (append validated them);
 * `validatePayload` does the full check for doctor and for producers.
 */
export function decodeEnvelope(value: unknown): DecodeResult {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, reason: "not an object" };
  const record = value as Record<string, unknown>;
  const v = record["v"];
  if (typeof v !== "number") return { ok: false, reason: "missing envelope version 'v'" };
  if (v !== ENVELOPE_VERSION) return { ok: false, reason: unreadableVersion(v) };
  if (typeof record["eventId"] !== "string") return { ok: false, reason: "missing 'eventId'" };
  if (typeof record["seq"] !== "number" || !Number.isInteger(record["seq"])) return { ok: false, reason: "missing integer 'seq'" };
  if (typeof record["kind"] !== "string") return { ok: false, reason: "missing 'kind'" };
  if (typeof record["ts"] !== "string") return { ok: false, reason: "missing 'ts'" };
  const source = record["source"];
  if (typeof source !== "object" || source === null || typeof (source as { type?: unknown }).type !== "string") {
    return { ok: false, reason: "missing 'source'" };
  }
  if (!("payload" in record)) return { ok: false, reason: "missing 'payload'" };
  const kind = record["kind"];
  if (kind === "state_update" || kind === "_baton_turn_summary") return { ok: true, event: upgradeStopReason(record) as unknown as AnyEvent };
  return { ok: true, event: record as unknown as AnyEvent };
}

/**
 * The read path's check of a parsed line, in one pass: true only when `decodeEnvelope(value)` accepts it as it
 * is (the same object), its seq is above `previousSeq`, its scope names `batonSessionId` (when given) and its
 * payload passes `validatePayload` — what a reader checks, answered without a result object for the lines that
 * pass (nearly all). False means "not sure": the caller then runs the full checks, which refuse or accept the
 * line and word the reason. Streamed message chunks, most of a ledger, are checked inline; other known kinds
 * through `FAST_CHECKS` (a kind without one says false). A stop reason that `decodeEnvelope` would upgrade fails
 * the fast check of its kind, so what passes here is never upgraded.
 */
export function isReadableEvent(value: unknown, previousSeq: number, batonSessionId: string | undefined): boolean {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  const seq = record["seq"];
  if (record["v"] !== ENVELOPE_VERSION || typeof seq !== "number" || !Number.isInteger(seq) || seq <= previousSeq) return false;
  const kind = record["kind"];
  if (typeof kind !== "string" || typeof record["eventId"] !== "string" || typeof record["ts"] !== "string") return false;
  const source = record["source"] as { type?: unknown } | null;
  if (typeof source !== "object" || source === null || typeof source.type !== "string") return false;
  if (batonSessionId !== undefined) {
    const scope = record["scope"] as { batonSessionId?: unknown } | null;
    if (typeof scope !== "object" || scope === null || scope.batonSessionId !== batonSessionId) return false;
  }
  if (kind === "agent_message_chunk" || kind === "agent_thought_chunk") return isMessageChunkPayload(record["payload"]);
  if (!("payload" in record)) return false;
  // Unknown kinds are kept, not interpreted (EV-08).
  return isEventKind(kind) ? FAST_CHECKS[kind]?.(record["payload"]) === true : true;
}

/**
 * Ledgers written before the stop-reason vocabulary was closed may carry a harness's free text there: it is
 * read as `unknown` (a failure, never a success) and the text is kept in `nativeStopReason`.
 */
function upgradeStopReason(record: Record<string, unknown>): Record<string, unknown> {
  const payload = record["payload"];
  if (typeof payload !== "object" || payload === null) return record;
  const stopReason = (payload as { stopReason?: unknown }).stopReason;
  if (typeof stopReason !== "string" || isStopReason(stopReason)) return record;
  const nativeStopReason = (payload as { nativeStopReason?: unknown }).nativeStopReason ?? stopReason;
  return { ...record, payload: { ...payload, stopReason: "unknown", nativeStopReason } };
}

function unreadableVersion(v: number): string {
  const readable = `this Baton reads envelope version ${READABLE_ENVELOPE_VERSIONS.join(", ")} only`;
  if (Number.isInteger(v) && v > ENVELOPE_VERSION) return `envelope version ${v} was written by a newer Baton; ${readable} (upgrade Baton to open it)`;
  if (Number.isInteger(v) && v > 0) return `envelope version ${v} was written by an older Baton; ${readable}`;
  return `envelope version ${String(v)} is not a version; ${readable}`;
}

/** Full payload validation of a known kind; unknown kinds pass (they are kept, not interpreted). */
export function validatePayload(kind: string, payload: unknown): string | undefined {
  if (!isEventKind(kind)) return undefined;
  const fast = FAST_CHECKS[kind];
  if (fast?.(payload) === true) return undefined;
  const result = EVENT_KINDS[kind].payload.safeParse(payload);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at payload.${issue.path.join(".")}` : "";
  return `invalid ${kind} payload${where}: ${issue?.message ?? "unknown problem"}`;
}
