/** TUI-15: the session's display title as the terminal tab title (OSC 1, plus OSC 2 for the window). */
import { terminalSafe } from "../shared/terminal-text.ts";

const MAX_TITLE = 100;

/** Terminal-safe, whitespace collapsed, capped; empty stays empty. */
export function sanitizeTitle(title: string): string {
  // The controls terminalSafe leaves (\t, \n) and its control pictures are not wanted in a title either.
  const cleaned = terminalSafe(title).replace(/[\u2400-\u2421\ufffd]/g, " ").replace(/\s+/g, " ").trim();
  return cleaned.length > MAX_TITLE ? `${cleaned.slice(0, MAX_TITLE - 1)}…` : cleaned;
}

/** The escape sequences that set the tab (OSC 1) and window (OSC 2) title. */
export function titleSequence(title: string): string {
  const safe = sanitizeTitle(title);
  return `\u001b]1;${safe}\u001b\\\u001b]2;${safe}\u001b\\`;
}
