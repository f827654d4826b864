/**
 * The Claude Code harness type (HAR-02). The adapter and the inspector load the Agent SDK (~100 ms), so
 * both are imported on first use, not when Baton starts.
 */
import { inheritedEnv } from "../../rpc/child-process.ts";
import type { HarnessDefinition } from "../definition.ts";
import type { HarnessSessionInspector } from "../inspector.ts";
import { LazyAdapter } from "../lazy-adapter.ts";
import { CLAUDE_CAPABILITIES } from "./capabilities.ts";
import { probeClaudeExecutable } from "./executable.ts";
import { claudeSettingsSchema } from "./settings.ts";

const inspector: HarnessSessionInspector = {
  probe: async (id, context) => (await import("./inspector.ts")).claudeInspector.probe(id, context),
  read: async (id, context) => (await import("./inspector.ts")).claudeInspector.read(id, context),
};

export const claudeDefinition: HarnessDefinition = {
  id: "claude",
  aliases: ["cc"],
  label: "Claude Code",
  sessionKey: "claude-code",
  shortName: "claude",
  color: "#ff9e64",
  settingsSchema: claudeSettingsSchema,
  capabilities: CLAUDE_CAPABILITIES,
  create(context) {
    return new LazyAdapter(CLAUDE_CAPABILITIES, async () => {
      const { ClaudeAdapter } = await import("./adapter.ts");
      return new ClaudeAdapter({
        settings: context.target.settings,
        env: { ...inheritedEnv(), ...context.target.env },
        log: context.log.child("claude", { harness: "claude-code", harnessTargetId: context.target.id }),
        ...(context.trace ? { trace: context.trace } : {}),
      });
    });
  },
  probeExecutable(target, env) {
    return probeClaudeExecutable(target.settings, env);
  },
  inspector,
};
