/**
 * fast-check properties of the fold over random ledgers drawn from every event kind (plus unknown ones):
 * replay is deterministic, live ≡ batch ≡ checkpoint-resume, re-delivered upserts are inert, an event
 * that changes nothing returns the same object, and the derived fields stay consistent.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { AnyEvent } from "../../src/event/envelope.ts";
import type { EventKind } from "../../src/event/kinds.ts";
import {
  blockingInteractionCount,
  deriveRunState,
  initialState,
  listToArray,
  plainState,
  reduce,
  replay,
  resolveTimelineItem,
  tableGet,
  tableHas,
  tableValues,
  type ProjectionState,
  allSummaries,
} from "../../src/projection/index.ts";
import { createEventFactory, type EventOptions } from "../support/events.ts";
import { defined, opt, PAYLOADS, turnId } from "../support/event-payloads.ts";

/** Kinds whose immediate re-delivery must be inert (upserts, first-write-wins, snapshots, closes). */
const UPSERT_KINDS: ReadonlySet<string> = new Set<EventKind>(
  (Object.keys(PAYLOADS) as EventKind[]).filter(
    (kind) => !kind.endsWith("_chunk") && !["usage_update", "_baton_error_update", "_baton_notice", "_baton_stall_notice"].includes(kind),
  ),
);

interface Spec {
  readonly kind: string;
  readonly payload: unknown;
  readonly options: EventOptions;
}

const options: fc.Arbitrary<EventOptions> = fc
  .record({
    turn: opt(turnId),
    target: opt(fc.constantFrom("codex", "codex-work", "claude")),
    source: fc.constantFrom("user" as const, "baton" as const, "harness" as const),
  })
  .map((value) => defined(value) as EventOptions);

/** Turn and interaction lifecycles are weighted up so closes, reopen attempts and cards interleave often. */
const WEIGHTS: Partial<Record<EventKind, number>> = {
  state_update: 8,
  "interaction.opened": 3,
  "interaction.resolved": 3,
  _baton_run_status: 2,
  tool_call_update: 2,
  _baton_delivery_attempt_update: 2,
};

const spec: fc.Arbitrary<Spec> = fc.oneof(
  ...(Object.entries(PAYLOADS) as [EventKind, fc.Arbitrary<unknown>][]).map(([kind, payload]) => ({
    weight: WEIGHTS[kind] ?? 1,
    arbitrary: fc.record({ kind: fc.constant<string>(kind), payload, options }),
  })),
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("future_kind", "plugin.something"), payload: fc.constant<unknown>({ x: 1 }), options }) },
);

const ledger = fc.array(spec, { maxLength: 60 });

function stamp(specs: readonly Spec[]): AnyEvent[] {
  const f = createEventFactory();
  return specs.map((s) => f.any(s.kind, s.payload, s.options));
}

const SESSION = createEventFactory().sessionId;

function withoutSeq(state: ProjectionState): unknown {
  return { ...plainState(state), lastSeq: 0 };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

function checkInvariants(state: ProjectionState): void {
  expect(state.runState).toBe(deriveRunState(state.activeTurns, blockingInteractionCount(state)));
  const pending = tableValues(state.interactions).filter((ix) => ix.status === "pending").map((ix) => ix.interactionId);
  expect([...state.pendingInteractionIds].sort()).toEqual(pending.sort());
  const seen = new Set<string>();
  for (const ref of listToArray(state.timeline)) {
    const key = `${ref.type}:${ref.id}`;
    expect(seen.has(key)).toBe(false);
    seen.add(key);
    if (ref.type !== "task") expect(resolveTimelineItem(state, ref)).toBeDefined();
  }
  for (const turnId of Object.keys(state.activeTurns)) expect(tableHas(state.stopReasons, turnId)).toBe(false);
  for (const summary of allSummaries(state)) expect(tableGet(state.turnData, summary.turnId)).toBeUndefined();
}

const RUNS = { numRuns: 300 };

describe("projection properties", () => {
  test("replaying the same ledger twice is deep-equal", () => {
    fc.assert(
      fc.property(ledger, (specs) => {
        const events = stamp(specs);
        expect(replay(events, initialState(SESSION))).toStrictEqual(replay(events, initialState(SESSION)));
      }),
      RUNS,
    );
  });

  test("live (one reduce at a time) ≡ batch replay ≡ resume from a JSON checkpoint at any cut", () => {
    fc.assert(
      fc.property(ledger, fc.nat(), (specs, cutSeed) => {
        const events = stamp(specs);
        // Frozen: a fold that wrote to a state it handed out (or to an event) would throw (drafts, #18).
        let live = deepFreeze(initialState(SESSION));
        for (const event of deepFreeze(events)) {
          live = deepFreeze(reduce(live, event));
          checkInvariants(live);
        }
        const batch = replay(events, initialState(SESSION));
        expect(live).toStrictEqual(batch);
        const cut = events.length === 0 ? 0 : cutSeed % (events.length + 1);
        const checkpoint = deepFreeze(JSON.parse(JSON.stringify(replay(events.slice(0, cut), initialState(SESSION)))) as ProjectionState);
        expect(replay(events.slice(cut), checkpoint)).toStrictEqual(batch);
      }),
      RUNS,
    );
  });

  test("an upsert re-delivered right away (fresh seq) returns the same state", () => {
    fc.assert(
      fc.property(ledger, (specs) => {
        const f = createEventFactory();
        let state = initialState(SESSION);
        for (const s of specs) {
          const event = f.any(s.kind, s.payload, s.options);
          state = reduce(state, event);
          if (UPSERT_KINDS.has(event.kind)) expect(reduce(state, f.redeliver(event))).toBe(state);
        }
      }),
      RUNS,
    );
  });

  test("an event that changes nothing returns the same object, and a new object always differs", () => {
    fc.assert(
      fc.property(ledger, (specs) => {
        let state = initialState(SESSION);
        for (const event of stamp(specs)) {
          const next = reduce(state, event);
          if (next !== state) expect(Bun.deepEquals(withoutSeq(next), withoutSeq(state))).toBe(false);
          state = next;
        }
      }),
      RUNS,
    );
  });

  test("an event already folded in (seq ≤ lastSeq) is inert", () => {
    fc.assert(
      fc.property(ledger, (specs) => {
        const events = stamp(specs);
        const state = replay(events, initialState(SESSION));
        for (const event of events) if (event.seq <= state.lastSeq) expect(reduce(state, event)).toBe(state);
      }),
      RUNS,
    );
  });
});
