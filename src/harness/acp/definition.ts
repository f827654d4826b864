/**
 * The ACP harness (HAR-02): one definition, any number of targets, each an agent command that speaks the Agent
 * Client Protocol on stdio (claude-agent-acp, codex-acp, gemini --acp, opencode acp, qwen --acp, …). It has no
 * bundled target: an ACP target is nothing without its command. The SDK loads when a target first starts.
 */
import type { HarnessDefinition } from "../definition.ts";
import type { AcpAdapter } from "./adapter.ts";
import { capabilitiesOf } from "./probe.ts";
import { acpSettingsSchema } from "./settings.ts";

/**
 * The adapter module (wire, session, mapper, the diff library) loads when a target is first used, not when Baton
 * starts: `create` is synchronous, so it is required on demand (Bun loads an ES module synchronously).
 */
function adapterModule(): typeof import("./adapter.ts") {
  return require("./adapter.ts") as typeof import("./adapter.ts");
}

export const acpDefinition: HarnessDefinition = {
  id: "acp",
  aliases: [],
  label: "ACP agent",
  sessionKey: "acp",
  shortName: "acp",
  color: "#bb9af7",
  settingsSchema: acpSettingsSchema,
  // The ACP baseline before a target's agent is probed; a target's live binding answers from its agent's own
  // `initialize` (cached per target) once it runs.
  capabilities: capabilitiesOf(undefined),
  bundledTarget: false,
  create: (context): AcpAdapter =>
    new (adapterModule().AcpAdapter)({
      targetId: context.target.id,
      settings: context.target.settings,
      log: context.log,
      ...(context.trace ? { trace: context.trace } : {}),
      ...(context.stateDir !== undefined ? { stateDir: context.stateDir } : {}),
    }),
  probeExecutable: async (target, env) => (await import("./probe-executable.ts")).probeAcpExecutable(target, env),
};
