/**
 * Where a submitted line that starts with `/` goes (#11.15): `/<target> [message]` switches, an ambiguous
 * target prefix and a mistyped command are refused with what they could have meant, anything else (a path
 * such as `/tmp/x`, the agent's own command) is a prompt. Pure.
 */
import type { TargetDirectory } from "../controller/targets.ts";
import type { ProjectionState } from "../projection/index.ts";
import type { ChatCommand } from "chat-tui";
import { matchSlashTarget } from "./targets.ts";
import type { TargetId } from "../shared/ids.ts";

export type SlashRoute =
  | { readonly kind: "prompt" }
  | { readonly kind: "target"; readonly targetId: TargetId; readonly message: string }
  /** Not sent; `retype` gives the text back to the composer to fix. */
  | { readonly kind: "refused"; readonly message: string; readonly retype: boolean };

/** Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps cost 1. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** How many edits still count as a typo of a word this long (short words must match exactly). */
function tolerance(length: number): number {
  return length <= 2 ? 0 : length <= 4 ? 1 : 2;
}

export type CommandTypo =
  | { readonly kind: "suggest"; readonly typed: string; readonly suggestions: readonly string[] }
  | { readonly kind: "none" };

/**
 * A submitted `/word` that is not a command but looks like a mistyped one: the commands it could have meant
 * (closest first). A path (`/tmp/x`), anything far from every command, and a command the agent itself
 * offers (`native`) are not typos: they go to the agent as typed.
 */
export function commandTypo(text: string, commands: readonly ChatCommand[], native: readonly string[] = []): CommandTypo {
  const m = /^\/([A-Za-z][\w-]*)(?=\s|$)/.exec(text.trim());
  if (m === null) return { kind: "none" };
  const typed = (m[1] ?? "").toLowerCase();
  if (native.some((name) => name.toLowerCase() === typed)) return { kind: "none" };
  const all = commands.flatMap((c) => [c.name, ...(c.aliases ?? [])].map((n) => ({ command: c.name, name: n.toLowerCase() })));
  if (all.some((entry) => entry.name === typed)) return { kind: "none" };
  // An ambiguous prefix (the composer resolves a unique one itself): every command it starts.
  const prefixed = [...new Set(all.filter((entry) => entry.name.startsWith(typed)).map((entry) => entry.command))];
  if (prefixed.length > 1) return { kind: "suggest", typed, suggestions: prefixed.sort() };
  const limit = tolerance(typed.length);
  const near = all
    .map((entry) => ({ command: entry.command, distance: editDistance(typed, entry.name) }))
    .filter((entry) => entry.distance <= limit)
    .sort((x, y) => x.distance - y.distance || x.command.localeCompare(y.command));
  const suggestions = [...new Set(near.map((entry) => entry.command))];
  return suggestions.length === 0 ? { kind: "none" } : { kind: "suggest", typed, suggestions };
}

/** The names of the slash commands the target itself reported (they go to it as typed). */
export function nativeCommands(state: ProjectionState, targetId: TargetId): string[] {
  if (!Object.hasOwn(state.perTarget, targetId)) return [];
  return (state.perTarget[targetId]?.commands ?? []).map((command) => command.name);
}

export function routeSlash(targets: TargetDirectory, commands: readonly ChatCommand[], native: readonly string[], text: string): SlashRoute {
  if (!text.startsWith("/")) return { kind: "prompt" };
  const slash = matchSlashTarget(targets, text);
  if (slash.kind === "target") return { kind: "target", targetId: slash.targetId, message: slash.message };
  if (slash.kind === "ambiguous") return { kind: "refused", message: `'/${slash.token}' matches ${slash.matches.join(", ")}; nothing was sent`, retype: false };
  const typo = commandTypo(text, commands, native);
  if (typo.kind === "none") return { kind: "prompt" };
  const options = typo.suggestions.map((s) => `/${s}`);
  const meant = options.length === 1 ? options[0] : `${options.slice(0, -1).join(", ")} or ${options.at(-1)}`;
  return {
    kind: "refused",
    message: `Unknown command '/${typo.typed}' — did you mean ${meant}? Nothing was sent (start the line with a space to send it as typed; /help lists the commands).`,
    retype: true,
  };
}
