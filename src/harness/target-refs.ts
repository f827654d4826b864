/**
 * Target references as users type them (HAR-01): canonical ids and aliases, case-insensitive,
 * unique prefixes; ambiguity is reported with the matching ids.
 */
import type { TargetId } from "../shared/ids.ts";

export type TargetMatch =
  | { readonly kind: "match"; readonly id: TargetId }
  | { readonly kind: "ambiguous"; readonly matches: readonly TargetId[] }
  | { readonly kind: "unknown" };

export interface TargetRefEntry {
  readonly id: TargetId;
  readonly aliases: readonly string[];
}

/** What a user typed → one configured target (its branded id), ambiguous, or unknown. */
export function matchTargetRef(ref: string, entries: readonly TargetRefEntry[]): TargetMatch {
  const wanted = ref.trim().toLowerCase();
  if (wanted.length === 0) return { kind: "unknown" };
  for (const entry of entries) {
    if (entry.id === wanted || entry.aliases.includes(wanted)) return { kind: "match", id: entry.id };
  }
  const matches = new Set<TargetId>();
  for (const entry of entries) {
    if (entry.id.startsWith(wanted)) matches.add(entry.id);
  }
  const [only] = matches;
  if (matches.size === 1 && only !== undefined) return { kind: "match", id: only };
  if (matches.size > 1) return { kind: "ambiguous", matches: [...matches].sort() };
  return { kind: "unknown" };
}
