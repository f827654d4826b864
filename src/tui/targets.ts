/**
 * How targets look and are addressed in the TUI: author label and colour come from the harness definition
 * (through the controller's target directory), never from a harness name tested here. `/<target> [message]`
 * routing resolves through the same directory.
 */
import type { TargetDirectory } from "../controller/targets.ts";
import { selectLastDrivenTarget, type ProjectionState } from "../projection/index.ts";
import type { TargetId } from "../shared/ids.ts";

export interface TargetLook {
  readonly id: string;
  /** Human label (e.g. the definition's label, or the target id for extra targets). */
  readonly label: string;
  /** Author name on the timeline. */
  readonly author: string;
  readonly color: string;
}

const UNKNOWN_COLOR = "#b48ead";

export function targetLook(targets: TargetDirectory, targetId: string | null): TargetLook {
  const target = targetId === null ? undefined : targets.get(targetId);
  if (target === undefined) {
    const id = targetId ?? "agent";
    return { id, label: id, author: id, color: UNKNOWN_COLOR };
  }
  return { id: target.id, label: target.label, author: target.author, color: target.color };
}

/** A cache of looks by target id (the configured targets are fixed for the life of the TUI). */
export function createTargetLooks(targets: TargetDirectory): (targetId: string | null) => TargetLook {
  const cache = new Map<string, TargetLook>();
  return (targetId) => {
    const key = targetId ?? "";
    let look = cache.get(key);
    if (look === undefined) {
      look = targetLook(targets, targetId);
      cache.set(key, look);
    }
    return look;
  };
}

export type SlashTarget =
  | { readonly kind: "target"; readonly targetId: TargetId; readonly message: string }
  | { readonly kind: "ambiguous"; readonly token: string; readonly matches: readonly string[] }
  | { readonly kind: "none" };

/** `/<token> [message]` where token is a target id, alias or unique prefix (e.g. `/cl fix it`). */
export function matchSlashTarget(targets: TargetDirectory, text: string): SlashTarget {
  const m = /^\/([A-Za-z0-9][A-Za-z0-9._-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (m === null) return { kind: "none" };
  const token = m[1] ?? "";
  const match = targets.match(token);
  if (match.kind === "match") return { kind: "target", targetId: match.id, message: (m[2] ?? "").trim() };
  if (match.kind === "ambiguous") return { kind: "ambiguous", token, matches: match.matches };
  return { kind: "none" };
}

/** The target a session opened from `/sessions` continues on: the one it last drove while still configured, else `current`. */
export function continuedTarget(targets: TargetDirectory, state: ProjectionState, current: TargetId): TargetId {
  const last = selectLastDrivenTarget(state);
  return last !== null && targets.has(last) ? last : current;
}
