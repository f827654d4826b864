/** `/help`: Baton's commands, the agents and the keys (#11.15). Pure. */
import type { ChatCommand } from "chat-tui";

/** The keys of the screen, as the README's table says them. */
export const KEY_HELP: readonly (readonly [string, string])[] = [
  ["Enter", "send (while a turn runs: steer it if the agent accepts, else queue a follow-up)"],
  ["Ctrl+J", "new line (Shift+Enter where the terminal reports it)"],
  ["Esc", "answer the open card with its Esc choice, else interrupt the running turn"],
  ["↑ / ↓", "history; ↑ on an empty composer takes back the latest queued message"],
  ["Ctrl+C", "clear the draft; twice within 1.5 s exits (Ctrl+D on an empty composer exits too)"],
  ["Ctrl+O", "expand or fold long tool output"],
  ["Shift+Tab", "plan mode on/off"],
  ["@", "reference another session: @session:<id> puts its turns in front of your prompt"],
  ["Tab", "complete a command or an @ reference"],
];

const names = (command: ChatCommand): string => [command.name, ...(command.aliases ?? [])].map((n) => `/${n}`).join(", ");

function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

/** The `/help` text: Baton's commands, the agents (`current` marked) and the keys. */
export function helpLines(commands: readonly ChatCommand[], agents: readonly string[], current: string): string[] {
  const isAgent = new Set(agents);
  const own = commands.filter((c) => !isAgent.has(c.name));
  const targets = commands.filter((c) => isAgent.has(c.name));
  return [
    "Commands",
    ...table(own.map((c) => [names(c), c.description ?? ""])),
    "Agents (/<agent> switches, /<agent> <message> switches and sends; a unique prefix works)",
    ...table(targets.map((c) => [names(c), `${(c.description ?? "").replace(/^Talk to /, "").replace(/ \(add a message to send it\)$/, "")}${c.name === current ? "  ← current" : ""}`])),
    "Keys",
    ...table(KEY_HELP),
    "Anything else that starts with / (a path such as /tmp/x, or the agent's own command) is sent as a prompt.",
  ];
}
