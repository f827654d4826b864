/** Completion rules (VIEW-05, TUI-14): `/` only at line start, `@` after whitespace, max 6 candidates. Pure. */
import type { ChatCommand, MentionCandidate, MentionGroup } from "../types.ts";

export const MAX_CANDIDATES = 6;

/** The command prefix being typed, when the text before the cursor is `/<non-space>*` at the very start. */
export function slashQuery(textBeforeCursor: string): string | null {
  const m = /^\/(\S*)$/.exec(textBeforeCursor);
  return m === null ? null : (m[1] ?? "");
}

/** The mention query being typed: `@<non-space>*` at the start or after whitespace, ending at the cursor. */
export function mentionQuery(textBeforeCursor: string): string | null {
  const m = /(?:^|\s)@([^\s@]*)$/.exec(textBeforeCursor);
  return m === null ? null : (m[1] ?? "");
}

function names(command: ChatCommand): string[] {
  return [command.name, ...(command.aliases ?? [])];
}

/** Commands whose name or alias starts with `prefix`; exact matches first, then by name. */
export function matchCommands(commands: readonly ChatCommand[], prefix: string): ChatCommand[] {
  const p = prefix.toLowerCase();
  const exact: ChatCommand[] = [];
  const partial: ChatCommand[] = [];
  for (const command of commands) {
    const ns = names(command).map((n) => n.toLowerCase());
    if (ns.includes(p)) exact.push(command);
    else if (ns.some((n) => n.startsWith(p))) partial.push(command);
  }
  partial.sort((a, b) => a.name.localeCompare(b.name));
  return [...exact, ...partial];
}

/**
 * A submitted line that starts with `/name` resolves to a registered command by exact name/alias or by a
 * unique prefix. Anything else (unknown or ambiguous) is not a command.
 */
export function resolveCommand(
  commands: readonly ChatCommand[],
  text: string,
): { readonly name: string; readonly args: string } | null {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  if (m === null) return null;
  const typed = (m[1] ?? "").toLowerCase();
  const args = (m[2] ?? "").trim();
  const exact = commands.find((c) => names(c).some((n) => n.toLowerCase() === typed));
  if (exact !== undefined) return { name: exact.name, args };
  const prefixed = commands.filter((c) => names(c).some((n) => n.toLowerCase().startsWith(typed)));
  const only = prefixed.length === 1 ? prefixed[0] : undefined;
  return only === undefined ? null : { name: only.name, args };
}

export function commonPrefix(values: readonly string[]): string {
  const first = values[0];
  if (first === undefined) return "";
  let end = first.length;
  for (const v of values) {
    let i = 0;
    while (i < end && i < v.length && v[i] === first[i]) i++;
    end = i;
  }
  return first.slice(0, end);
}

export interface GroupedCandidate {
  readonly group: string;
  readonly item: MentionCandidate;
}

/** Takes at most `max` candidates round-robin across groups, then orders them by group for display. */
export function interleaveGroups(groups: readonly MentionGroup[], max = MAX_CANDIDATES): GroupedCandidate[] {
  const picked: GroupedCandidate[][] = groups.map(() => []);
  let total = 0;
  for (let round = 0; total < max; round++) {
    let any = false;
    groups.forEach((g, gi) => {
      const item = g.items[round];
      if (item === undefined || total >= max) return;
      picked[gi]?.push({ group: g.group, item });
      total++;
      any = true;
    });
    if (!any) break;
  }
  return picked.flat();
}

export function mentionInsert(item: MentionCandidate): string {
  return item.insert ?? `@${item.id}`;
}
