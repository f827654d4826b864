/**
 * How targets look and are addressed in the TUI: author label and colour come from the harness definition,
 * never from a harness name tested here. `/<target> [message]` routing resolves through the registry.
 */
import type { HarnessRegistry } from "../harness/registry.ts";
import { selectLastDrivenTarget, type ProjectionState } from "../projection/index.ts";

export interface TargetLook {
  readonly id: string;
  /** Human label (e.g. the definition's label, or the target id for extra targets). */
  readonly label: string;
  /** Author name on the timeline. */
  readonly author: string;
  readonly color: string;
}

const UNKNOWN_COLOR = "#b48ead";

export function targetLook(registry: HarnessRegistry, targetId: string | null): TargetLook {
  if (targetId === null || !registry.hasTarget(targetId)) {
    const id = targetId ?? "agent";
    return { id, label: id, author: id, color: UNKNOWN_COLOR };
  }
  const target = registry.target(targetId);
  const definition = registry.definitionOf(target);
  const builtin = target.id === target.harness;
  return {
    id: target.id,
    label: builtin ? definition.label : target.id,
    author: builtin ? definition.shortName : target.id,
    color: definition.color,
  };
}

/** A cache of looks by target id (the registry is fixed for the life of the TUI). */
export function createTargetLooks(registry: HarnessRegistry): (targetId: string | null) => TargetLook {
  const cache = new Map<string, TargetLook>();
  return (targetId) => {
    const key = targetId ?? "";
    let look = cache.get(key);
    if (look === undefined) {
      look = targetLook(registry, targetId);
      cache.set(key, look);
    }
    return look;
  };
}

export type SlashTarget =
  | { readonly kind: "target"; readonly targetId: string; readonly message: string }
  | { readonly kind: "ambiguous"; readonly token: string; readonly matches: readonly string[] }
  | { readonly kind: "none" };

/** `/<token> [message]` where token is a target id, alias or unique prefix (e.g. `/cl fix it`). */
export function matchSlashTarget(registry: HarnessRegistry, text: string): SlashTarget {
  const m = /^\/([A-Za-z0-9][A-Za-z0-9._-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (m === null) return { kind: "none" };
  const token = m[1] ?? "";
  const match = registry.match(token);
  if (match.kind === "match") return { kind: "target", targetId: match.id, message: (m[2] ?? "").trim() };
  if (match.kind === "ambiguous") return { kind: "ambiguous", token, matches: match.matches };
  return { kind: "none" };
}

/** The target a session opened from `/sessions` continues on: the one it last drove while still configured, else `current`. */
export function continuedTarget(registry: HarnessRegistry, state: ProjectionState, current: string): string {
  const last = selectLastDrivenTarget(state);
  return last !== null && registry.hasTarget(last) ? last : current;
}
