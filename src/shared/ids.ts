/**
 * Prefixed, branded ULIDs. Every Baton object id is minted here and nowhere else.
 * Shape: `<prefix>_<26 Crockford base32 chars>` (10 time chars + 16 random).
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { monotonicFactory as MonotonicFactory } from "ulid";
import { sha256Hex } from "./digest.ts";
import type { $brand } from "zod";

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
  pluginInstance: "pi",
  approvalRule: "apr",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

/**
 * zod's brand, so that a schema's `.brand<"TurnId">()` parses straight to `TurnId`: the event registry, the
 * config and the ledger decode ids once at the door and everything inside carries the brand.
 */
export type Branded<T, B extends string> = T & $brand<B>;

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
export type PluginInstanceId = Branded<string, "PluginInstanceId">;
/**
 * A target's name (`codex`, `claude`, `reviewer`, …): chosen in config, not minted. Branded where it enters
 * (config load, a CLI argument, a stored event, the harness host's stamp) by `targetIdOf`.
 */
export type TargetId = Branded<string, "TargetId">;

/** The one door for a target name read from config, a command line or a harness (names are kept verbatim). */
export function targetIdOf(name: string): TargetId {
  return name as TargetId;
}

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
  pluginInstance: PluginInstanceId;
  approvalRule: string;
}

/** The id port: production mints ULIDs; tests pass a seeded source. */
export interface IdSource {
  mint<K extends IdKind>(kind: K): IdTypes[K];
  /**
   * Load now what the first `mint` would load (the ULID library: ≈ 2 ms, #18). The TUI calls it once its first frame
   * is out, so the first prompt's admission does not pay it while the user waits for the screen to answer.
   */
  prepare?(): void;
}

/**
 * The ulid package's build without `node:crypto`. Its "node" build (what an import resolves to under Bun) imports
 * node:crypto only for a fallback when there is no Web Crypto, and Bun has it; importing node:crypto costs a Bun
 * start ≈ 10–13 ms (src/shared/digest.ts). Its "default" build is the same code without that import, so it is
 * loaded by path (the package is pinned exactly; tests/unit/ids.test.ts checks the file and what it mints).
 */
export function ulidLibrary(): { readonly monotonicFactory: typeof MonotonicFactory } {
  const requireHere = createRequire(import.meta.url);
  const nodeBuild = requireHere.resolve("ulid");
  return requireHere(path.join(path.dirname(nodeBuild), "..", "browser", "index.cjs")) as { monotonicFactory: typeof MonotonicFactory };
}

/** Random bytes drawn from Web Crypto at a time: 16 ids' worth. */
const RANDOM_POOL_BYTES = 256;
const randomPool = new Uint8Array(RANDOM_POOL_BYTES);
let randomPoolAt = RANDOM_POOL_BYTES;

/**
 * The library's own Web Crypto source (one random byte / 256 per character), given to it explicitly: its detection
 * looks at `window` before `globalThis`, and a DOM stand-in (tests, an embedding) can define `window` without `crypto`.
 * The bytes come from a pool refilled by one `getRandomValues` call, not from a call and a new typed array per
 * character (#18: an id in a new millisecond, as nearly every event appended live is, took 16 of each; its mint
 * went from 0.88 to 0.57 µs p50, 13.7–17.9 to 4.4–9.5 µs p99.9). Each byte is used once.
 */
function webCryptoPrng(): number {
  if (randomPoolAt === RANDOM_POOL_BYTES) {
    crypto.getRandomValues(randomPool);
    randomPoolAt = 0;
  }
  return (randomPool[randomPoolAt++] as number) / 256;
}

/** `load` is the library's loader (tests count its calls). */
export function createUlidSource(now: () => number = Date.now, load: typeof ulidLibrary = ulidLibrary): IdSource {
  let next: ReturnType<typeof MonotonicFactory> | undefined;
  const factory = (): ReturnType<typeof MonotonicFactory> => (next ??= load().monotonicFactory(webCryptoPrng));
  return {
    mint<K extends IdKind>(kind: K): IdTypes[K] {
      return `${ID_PREFIXES[kind]}_${factory()(now())}` as IdTypes[K];
    },
    prepare(): void {
      factory();
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

/** Crockford base32 as ULIDs use it: digits and upper-case letters without I, L, O, U. */
const CROCKFORD_BODY = /^[0-9A-HJKMNP-TV-Z]*$/;
const ULID_LENGTH = 26;

/** Exactly what `mint("session")` produces: `bs_` + 26 Crockford base32 characters. Nothing else names a session. */
export function isBatonSessionId(value: string): value is BatonSessionId {
  return value.length === 3 + ULID_LENGTH && value.startsWith("bs_") && CROCKFORD_BODY.test(value.slice(3));
}

/**
 * What a user typed as a session id or a unique prefix of one (`bs_01J…`, `01J…`, any case) as the `bs_…`
 * prefix to look for; undefined when it cannot be the start of a session id (other characters, too long,
 * or a path). Case is folded: Crockford base32 is case-insensitive.
 */
export function sessionIdPrefix(typed: string): string | undefined {
  const trimmed = typed.trim();
  const hasPrefix = trimmed.toLowerCase().startsWith("bs_");
  const body = (hasPrefix ? trimmed.slice(3) : trimmed).toUpperCase();
  if (!hasPrefix && body.length === 0) return undefined;
  if (body.length > ULID_LENGTH || !CROCKFORD_BODY.test(body)) return undefined;
  return `bs_${body}`;
}

/**
 * The one id that is derived, not minted (PLG-02): a plugin instance configured globally as
 * `<pluginId>@<marketplace>` has `pi_` + the first 16 hex chars of sha256(key), the same in every session.
 */
export function pluginInstanceIdFor(key: string): PluginInstanceId {
  return `${ID_PREFIXES.pluginInstance}_${sha256Hex(key).slice(0, 16)}` as PluginInstanceId;
}
