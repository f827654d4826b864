/**
 * HarnessHistoryBoundary (NAT-05): how much of a native history Baton imported, as a digest it can
 * recompute later. Each turn is reduced to a canonical form — the prompt and the events as
 * {source, kind, payload}, text normalized, keys sorted, and every key ending in `Id`, named `ts`
 * or ending in `At` removed (ids and clocks may be re-minted; content may not) — and hashed; the
 * prefix digest chains the turn digests, so rewriting any earlier turn changes it.
 */
import { sha256Hex } from "../shared/digest.ts";
import type { NativeTurn } from "./inspector.ts";

export interface HistoryBoundary {
  readonly version: 1;
  /** The last imported native turn. */
  readonly turnId?: string;
  readonly turnCount: number;
  readonly prefixDigest: string;
}

const SEED = "baton-native-history-v1";

function normalizeText(value: string): string {
  return value.normalize("NFC").replace(/\r\n?/g, "\n").trim();
}

function droppedKey(key: string): boolean {
  return key === "ts" || key.endsWith("Id") || key.endsWith("At");
}

/** A JSON value with dropped keys removed, object keys sorted and `text` fields normalized. */
export function canonicalValue(value: unknown, key?: string): unknown {
  if (typeof value === "string") return key === "text" ? normalizeText(value) : value;
  if (Array.isArray(value)) return value.map((entry) => canonicalValue(entry));
  if (typeof value !== "object" || value === null) return value ?? null;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(value).sort()) {
    if (droppedKey(name)) continue;
    const entry = (value as Record<string, unknown>)[name];
    if (entry === undefined) continue;
    out[name] = canonicalValue(entry, name);
  }
  return out;
}

/** The canonical form of one turn (what its digest covers). */
export function canonicalTurn(turn: NativeTurn): unknown {
  return canonicalValue({
    prompt: turn.prompt,
    events: turn.events.map((event) => ({ source: event.source ?? "harness", kind: event.kind, payload: event.payload })),
    stopReason: turn.stopReason,
  });
}

export function turnDigest(turn: NativeTurn): string {
  return sha256Hex(JSON.stringify(canonicalTurn(turn)));
}

/** The boundary after the first `count` turns (default: all of them). */
export function historyBoundary(turns: readonly NativeTurn[], count: number = turns.length): HistoryBoundary {
  const upTo = Math.max(0, Math.min(count, turns.length));
  let digest = sha256Hex(SEED);
  for (let index = 0; index < upTo; index++) {
    digest = sha256Hex(`${digest}:${turnDigest(turns[index] as NativeTurn)}`);
  }
  const last = upTo > 0 ? turns[upTo - 1] : undefined;
  return { version: 1, ...(last === undefined ? {} : { turnId: last.nativeTurnId }), turnCount: upTo, prefixDigest: digest };
}

/** A stored boundary (meta is JSON from disk), or undefined when it is not one this Baton understands. */
export function parseHistoryBoundary(value: unknown): HistoryBoundary | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (record["version"] !== 1) return undefined;
  const turnCount = record["turnCount"];
  const prefixDigest = record["prefixDigest"];
  if (typeof turnCount !== "number" || !Number.isInteger(turnCount) || turnCount < 0) return undefined;
  if (typeof prefixDigest !== "string" || !/^[0-9a-f]{64}$/.test(prefixDigest)) return undefined;
  const turnId = record["turnId"];
  return { version: 1, ...(typeof turnId === "string" ? { turnId } : {}), turnCount, prefixDigest };
}

/** Does `turns` still start with exactly what `boundary` recorded? */
export function boundaryHolds(turns: readonly NativeTurn[], boundary: HistoryBoundary): boolean {
  if (turns.length < boundary.turnCount) return false;
  return historyBoundary(turns, boundary.turnCount).prefixDigest === boundary.prefixDigest;
}
