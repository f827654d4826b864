/**
 * Which target an opened session starts on (TUI, exec, repl): the one the user named with `--agent`, else
 * the one the session last drove (a projection selector, so reopen and resume continue where the user
 * left off), else `defaultAgent`. A last target that is no longer configured falls back to the default
 * and says so; the history it produced is still delivered to the target that continues.
 */
import type { HarnessTarget } from "../harness/definition.ts";
import type { HarnessRegistry } from "../harness/registry.ts";
import { selectLastDrivenTarget, type ProjectionState } from "../projection/index.ts";

export interface StartTarget {
  readonly target: HarnessTarget;
  /** Set when the session's last target is gone from the configuration (shown once, not an error). */
  readonly note?: string;
}

/**
 * `requested` was already resolved from `--agent` (before the session was opened, so a typo fails fast);
 * `fallback` resolves `defaultAgent` the way the command wants (exec/repl: strictly; the TUI: leniently).
 */
export function startTarget(
  registry: HarnessRegistry,
  state: ProjectionState,
  requested: HarnessTarget | undefined,
  fallback: () => HarnessTarget,
): StartTarget {
  if (requested !== undefined) return { target: requested };
  const last = selectLastDrivenTarget(state);
  if (last === null) return { target: fallback() };
  if (registry.hasTarget(last)) return { target: registry.target(last) };
  const target = fallback();
  return { target, note: `this session last used '${last}', which is no longer configured; continuing on ${target.id} (it gets the history)` };
}
