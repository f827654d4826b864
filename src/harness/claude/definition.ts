/** The Claude Code harness type (HAR-02). */
import type { HarnessDefinition } from "../definition.ts";
import { ClaudeAdapter } from "./adapter.ts";
import { probeClaudeExecutable } from "./executable.ts";
import { claudeInspector } from "./inspector.ts";

function inheritedEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) out[key] = value;
  return out;
}

export const claudeDefinition: HarnessDefinition = {
  id: "claude",
  aliases: ["cc"],
  label: "Claude Code",
  sessionKey: "claude-code",
  shortName: "claude",
  color: "#ff9e64",
  create(context) {
    return new ClaudeAdapter({
      settings: context.target.settings,
      env: { ...inheritedEnv(), ...context.target.env },
      log: context.log.child("claude", { harness: "claude-code", harnessTargetId: context.target.id }),
    });
  },
  probeExecutable(target, env) {
    return probeClaudeExecutable(target.settings, env);
  },
  inspector: claudeInspector,
};
