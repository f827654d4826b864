/**
 * Target references as users type them (HAR-01): canonical ids and aliases, case-insensitive,
 * unique prefixes; ambiguity is reported with the matching ids.
 */
export type TargetMatch =
  | { readonly kind: "match"; readonly id: string }
  | { readonly kind: "ambiguous"; readonly matches: readonly string[] }
  | { readonly kind: "unknown" };

export interface TargetRefEntry {
  readonly id: string;
  readonly aliases: readonly string[];
}

export function matchTargetRef(ref: string, entries: readonly TargetRefEntry[]): TargetMatch {
  const wanted = ref.trim().toLowerCase();
  if (wanted.length === 0) return { kind: "unknown" };
  for (const entry of entries) {
    if (entry.id === wanted || entry.aliases.includes(wanted)) return { kind: "match", id: entry.id };
  }
  const matches = new Set<string>();
  for (const entry of entries) {
    if (entry.id.startsWith(wanted)) matches.add(entry.id);
  }
  if (matches.size === 1) return { kind: "match", id: [...matches][0] as string };
  if (matches.size > 1) return { kind: "ambiguous", matches: [...matches].sort() };
  return { kind: "unknown" };
}
