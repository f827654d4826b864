/** ↑/↓ input history with draft stash (TUI-13). Pure state transitions. */

export interface HistoryNav {
  /** Index into the entries currently shown, or null when not navigating. */
  readonly index: number | null;
  /** The draft stashed when navigation started. */
  readonly stash: string;
}

export const IDLE_NAV: HistoryNav = { index: null, stash: "" };

export interface HistoryStep {
  readonly nav: HistoryNav;
  /** Text to put in the editor. */
  readonly text: string;
}

/** Adjacent duplicates removed; empty entries dropped. */
export function normaliseHistory(entries: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e.trim() === "") continue;
    if (out[out.length - 1] === e) continue;
    out.push(e);
  }
  return out;
}

/** One step back (older). Null when there is nothing older. */
export function historyPrev(entries: readonly string[], nav: HistoryNav, draft: string): HistoryStep | null {
  if (entries.length === 0) return null;
  if (nav.index === null) {
    const index = entries.length - 1;
    return { nav: { index, stash: draft }, text: entries[index] ?? "" };
  }
  if (nav.index <= 0) return null;
  const index = nav.index - 1;
  return { nav: { index, stash: nav.stash }, text: entries[index] ?? "" };
}

/** One step forward (newer); walking past the newest restores the stashed draft. */
export function historyNext(entries: readonly string[], nav: HistoryNav): HistoryStep | null {
  if (nav.index === null) return null;
  if (nav.index < entries.length - 1) {
    const index = nav.index + 1;
    return { nav: { index, stash: nav.stash }, text: entries[index] ?? "" };
  }
  return { nav: IDLE_NAV, text: nav.stash };
}

/**
 * The same navigation over `next` entries that replaced `prev` (older ones arrived in front, or the host's list
 * replaced what was submitted locally): it stays on the entry it showed, the occurrence nearest to where that
 * entry moved by the change in length; idle when that entry is gone.
 */
export function followNav(prev: readonly string[], next: readonly string[], nav: HistoryNav): HistoryNav {
  if (nav.index === null || prev === next) return nav;
  const text = prev[nav.index];
  const expected = nav.index + (next.length - prev.length);
  let best = -1;
  for (let i = 0; i < next.length; i++) if (next[i] === text && (best < 0 || Math.abs(i - expected) < Math.abs(best - expected))) best = i;
  return best < 0 ? IDLE_NAV : { index: best, stash: nav.stash };
}
