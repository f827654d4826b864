/**
 * Prefixed, branded ULIDs. Every Baton object id is minted here and nowhere else.
 * Shape: `<prefix>_<26 Crockford base32 chars>` (10 time chars + 16 random).
 */
import { monotonicFactory } from "ulid";

export const ID_PREFIXES = {
  event: "ev",
  session: "bs",
  turn: "t",
  message: "m",
  interaction: "ix",
  attempt: "att",
  snapshot: "ctx",
  epoch: "ctxe",
  toolCall: "tc",
  plan: "pl",
  review: "arv",
  handle: "hs",
  picker: "pk",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

declare const brand: unique symbol;
export type Branded<T, B extends string> = T & { readonly [brand]: B };

export type EventId = Branded<string, "EventId">;
export type BatonSessionId = Branded<string, "BatonSessionId">;
export type TurnId = Branded<string, "TurnId">;
export type MessageId = Branded<string, "MessageId">;
export type InteractionId = Branded<string, "InteractionId">;
export type AttemptId = Branded<string, "AttemptId">;
export type SnapshotId = Branded<string, "SnapshotId">;
export type EpochId = Branded<string, "EpochId">;
export type ReviewId = Branded<string, "ReviewId">;
export type HandleId = Branded<string, "HandleId">;
export type PickerId = Branded<string, "PickerId">;

export interface IdTypes {
  event: EventId;
  session: BatonSessionId;
  turn: TurnId;
  message: MessageId;
  interaction: InteractionId;
  attempt: AttemptId;
  snapshot: SnapshotId;
  epoch: EpochId;
  toolCall: string;
  plan: string;
  review: ReviewId;
  handle: HandleId;
  picker: PickerId;
}

/** The id port: production mints ULIDs; tests pass a seeded source. */
export interface IdSource {
  mint<K extends IdKind>(kind: K): IdTypes[K];
}

export function createUlidSource(now: () => number = Date.now): IdSource {
  const next = monotonicFactory();
  return {
    mint<K extends IdKind>(kind: K): IdTypes[K] {
      return `${ID_PREFIXES[kind]}_${next(now())}` as IdTypes[K];
    },
  };
}

/** Deterministic ids for tests: `<prefix>_<counter padded to 26 chars>`. */
export function createSequentialIdSource(start = 1): IdSource {
  let counter = start;
  return {
    mint<K extends IdKind>(kind: K): IdTypes[K] {
      const body = String(counter++).padStart(26, "0");
      return `${ID_PREFIXES[kind]}_${body}` as IdTypes[K];
    },
  };
}
