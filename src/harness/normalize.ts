/** HAR-10: map open harness strings into a closed vocabulary with a pessimistic fallback. */
import { STOP_REASONS, type StopReason } from "../event/stop-reasons.ts";

export function normalizeClosed<T extends string>(
  raw: unknown,
  allowed: readonly T[],
  fallback: T,
  options: { emptyAs?: T; aliases?: Readonly<Record<string, T>> } = {},
): T {
  if (raw === undefined || raw === null || raw === "") return options.emptyAs ?? fallback;
  if (typeof raw !== "string") return fallback;
  const alias = options.aliases?.[raw];
  if (alias !== undefined) return alias;
  return (allowed as readonly string[]).includes(raw) ? (raw as T) : fallback;
}

/** A harness's terminal word as a Baton stop reason; anything Baton does not know becomes `failed`, never `end_turn`. */
export function normalizeStopReason(raw: unknown, aliases?: Readonly<Record<string, StopReason>>): StopReason {
  return normalizeClosed(raw, STOP_REASONS, "failed", aliases === undefined ? {} : { aliases });
}
