/** The slash commands Baton registers with the composer (completion and `command` intents), inventory 2.3. */
import type { TargetDirectory } from "../controller/targets.ts";
import type { ChatCommand } from "chat-tui";
import { targetLook } from "./targets.ts";

export const BATON_COMMANDS: readonly ChatCommand[] = [
  { name: "model", description: "Choose the model for the next turns (picker, or /model <id>)" },
  { name: "effort", description: "Choose the reasoning effort (picker, or /effort <level>)" },
  { name: "plan", description: "Toggle plan mode (also Shift+Tab)" },
  { name: "implement-plan", description: "Leave plan mode and implement the latest proposed plan" },
  { name: "compact", description: "Compact the current agent's context (idle only)" },
  { name: "sessions", description: "Switch to another session of this project (idle only)" },
  { name: "inbox", description: "Sessions of every project that wait for you; Enter opens one (idle only)" },
  { name: "approvals", description: "Baton's approval rules for this project; Enter revokes one (/approvals revoke <id>)" },
  { name: "new", description: "Start a new session in this directory (idle only)" },
  { name: "rewind", description: "Put the files back to before a turn and continue from there (idle only)" },
  { name: "status", description: "Show session, agent, model, cwd and tokens" },
  { name: "plugins", description: "List plugins; enable, disable or restart one (/plugins restart <id>)" },
  { name: "board", description: "Show or hide the plugin Board (/board open|hide|auto)" },
  { name: "help", description: "Commands, keys and agents" },
  { name: "exit", description: "Exit Baton", aliases: ["quit"] },
];

/** One command per target (`/<id> [message]` switches and optionally sends); aliases of built-in targets too. */
export function targetCommands(targets: TargetDirectory): ChatCommand[] {
  const taken = new Set(BATON_COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]));
  return targets
    .list()
    .filter((target) => !taken.has(target.id))
    .map((target) => {
      const aliases = target.aliases.filter((a) => !taken.has(a));
      return {
        name: target.id,
        description: `Talk to ${targetLook(targets, target.id).label} (add a message to send it)`,
        ...(aliases.length === 0 ? {} : { aliases }),
      };
    });
}

export function allCommands(targets: TargetDirectory): ChatCommand[] {
  return [...targetCommands(targets), ...BATON_COMMANDS];
}

/** Every name and alias Baton's own commands and targets use: a plugin command may not take one. */
export function reservedCommandNames(targets: TargetDirectory): Set<string> {
  return new Set(allCommands(targets).flatMap((c) => [c.name, ...(c.aliases ?? [])]));
}
