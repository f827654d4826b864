/**
 * Test envelopes: a small factory that stamps what the store stamps (v, eventId, seq, ts, scope) and what
 * the host stamps (source, harness, target), so tests read as given/when/then over event kinds.
 */
import { ENVELOPE_VERSION, type AnyEvent, type EventOf, type EventSource } from "../../src/event/envelope.ts";
import type { DraftPayloadOf, EventKind } from "../../src/event/kinds.ts";
import { targetIdOf, type BatonSessionId, type EventId, type TurnId } from "../../src/shared/ids.ts";

export type SourceShorthand = "user" | "baton" | "harness" | EventSource;

export interface EventOptions {
  /** Envelope turnId. */
  readonly turn?: string;
  /** Envelope harnessTargetId (also the harness source's target). */
  readonly target?: string;
  /** Envelope harness name; defaults to the target id up to its first `-`. */
  readonly harness?: string;
  /** Defaults to `harness` when a target is given, else `baton`. */
  readonly source?: SourceShorthand;
  /** Overrides the next seq (later events continue from it). */
  readonly seq?: number;
  readonly ts?: string;
  readonly parentEventId?: string;
}

export interface EventFactory {
  /** A known-kind event with the next seq. */
  make<K extends EventKind>(kind: K, payload: DraftPayloadOf<K>, options?: EventOptions): EventOf<K>;
  /** Any kind, including ones not in the registry. */
  any(kind: string, payload: unknown, options?: EventOptions): AnyEvent;
  /** The same event re-delivered: same kind, payload and coordinates, a fresh eventId/seq/ts. */
  redeliver<E extends AnyEvent>(event: E): E;
  readonly sessionId: BatonSessionId;
  /** The seq the next event gets. */
  nextSeq(): number;
}

export interface EventFactoryOptions {
  readonly sessionId?: string;
  readonly startSeq?: number;
  /** ts of seq 1; each seq adds one second. */
  readonly epochMs?: number;
}

const DEFAULT_EPOCH_MS = Date.UTC(2025, 0, 1, 12, 0, 0);

export function createEventFactory(options: EventFactoryOptions = {}): EventFactory {
  const sessionId = (options.sessionId ?? "bs_00000000000000000000000001") as BatonSessionId;
  const epochMs = options.epochMs ?? DEFAULT_EPOCH_MS;
  let seq = options.startSeq ?? 1;

  const sourceOf = (shorthand: SourceShorthand | undefined, target: string | undefined): EventSource => {
    if (typeof shorthand === "object") return shorthand;
    const kind = shorthand ?? (target !== undefined ? "harness" : "baton");
    if (kind === "harness") return { type: "harness", harnessTargetId: targetIdOf(target ?? "unknown") };
    return { type: kind };
  };

  const stamp = (kind: string, payload: unknown, opts: EventOptions = {}): AnyEvent => {
    if (opts.seq !== undefined) seq = opts.seq;
    const current = seq++;
    const event: Record<string, unknown> = {
      v: ENVELOPE_VERSION,
      eventId: `ev_${String(current).padStart(26, "0")}` as EventId,
      seq: current,
      ts: opts.ts ?? new Date(epochMs + (current - 1) * 1000).toISOString(),
      scope: { type: "session", batonSessionId: sessionId },
      source: sourceOf(opts.source, opts.target),
      kind,
      payload,
    };
    if (opts.parentEventId !== undefined) event["parentEventId"] = opts.parentEventId;
    if (opts.target !== undefined) {
      event["harnessTargetId"] = opts.target;
      event["harness"] = opts.harness ?? opts.target.split("-")[0];
    } else if (opts.harness !== undefined) {
      event["harness"] = opts.harness;
    }
    if (opts.turn !== undefined) event["turnId"] = opts.turn as TurnId;
    return event as unknown as AnyEvent;
  };

  return {
    sessionId,
    make: <K extends EventKind>(kind: K, payload: DraftPayloadOf<K>, opts?: EventOptions) =>
      stamp(kind, payload, opts) as EventOf<K>,
    any: (kind, payload, opts) => stamp(kind, payload, opts),
    redeliver: <E extends AnyEvent>(event: E): E => {
      const current = seq++;
      return {
        ...event,
        eventId: `ev_${String(current).padStart(26, "0")}` as EventId,
        seq: current,
        ts: new Date(epochMs + (current - 1) * 1000).toISOString(),
      };
    },
    nextSeq: () => seq,
  };
}

/** `{ type: "text", text }` */
export function textBlock(text: string): { type: "text"; text: string } {
  return { type: "text", text };
}
