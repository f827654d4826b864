/** HAR-10: map open harness strings into a closed vocabulary with a pessimistic fallback. */
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

/** Terminal stop reasons Baton understands; anything else becomes `failed`, never `end_turn`. */
export const TERMINAL_STOP_REASONS = ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled", "failed", "error"] as const;
export type TerminalStopReason = (typeof TERMINAL_STOP_REASONS)[number];

export function normalizeStopReason(raw: unknown, aliases?: Readonly<Record<string, TerminalStopReason>>): TerminalStopReason {
  return normalizeClosed(raw, TERMINAL_STOP_REASONS, "failed", aliases === undefined ? {} : { aliases });
}
