/** TUI-15: the session's display title as the terminal tab title (OSC 1, plus OSC 2 for the window). */

const MAX_TITLE = 100;

/** Control characters removed, whitespace collapsed, capped; empty stays empty. */
export function sanitizeTitle(title: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = title.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").replace(/\s+/g, " ").trim();
  return cleaned.length > MAX_TITLE ? `${cleaned.slice(0, MAX_TITLE - 1)}…` : cleaned;
}

/** The escape sequences that set the tab (OSC 1) and window (OSC 2) title. */
export function titleSequence(title: string): string {
  const safe = sanitizeTitle(title);
  return `\u001b]1;${safe}\u001b\\\u001b]2;${safe}\u001b\\`;
}
