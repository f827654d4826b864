/** Thoughts (TUI-03): one message may hold several blocks separated by `<!-- -->`; a `**Title**` first line titles its block. */

export interface ThoughtBlock {
  readonly title?: string;
  readonly text: string;
}

const SEPARATOR = /<!--\s*-->/;
const TITLE_LINE = /^\*\*([^*\n]+)\*\*[ \t]*(?:\r?\n|$)/;

export function splitThought(text: string): ThoughtBlock[] {
  const out: ThoughtBlock[] = [];
  for (const raw of text.split(SEPARATOR)) {
    const part = raw.trim();
    if (part === "") continue;
    const m = TITLE_LINE.exec(part);
    if (m === null) out.push({ text: part });
    else out.push({ title: (m[1] ?? "").trim(), text: part.slice(m[0].length).trim() });
  }
  return out;
}
