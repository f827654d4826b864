/**
 * The ACP harness (HAR-02): one definition, any number of targets, each an agent command that speaks the Agent
 * Client Protocol on stdio (claude-agent-acp, codex-acp, gemini --acp, opencode acp, qwen --acp, …). It has no
 * bundled target: an ACP target is nothing without its command. The SDK loads when a target first starts.
 */
import os from "node:os";
import { describeError } from "../../shared/errors.ts";
import { silentLogger } from "../../shared/log.ts";
import type { ExecutableReport, HarnessDefinition, HarnessTarget } from "../definition.ts";
import { AcpAdapter } from "./adapter.ts";
import { openClient, spawnAgent } from "./connection.ts";
import { capabilitiesOf, describeProbe, probeFromInitialize } from "./probe.ts";
import { AcpSession } from "./session.ts";
import { acpSettingsOf, acpSettingsSchema } from "./settings.ts";
import { initializeParams, resolveCommand } from "./start.ts";
import { withTimeout } from "./timeout.ts";

const PROBE_MS = 20_000;
const NO_INTERACTIONS = { request: async () => ({ outcome: "cancelled" as const, reason: "non-interactive" as const }) };

/** `baton doctor`: start the agent, ask `initialize` (no session is created), stop it; report what it said. */
export async function probeAcpExecutable(target: HarnessTarget, env: Readonly<Record<string, string>>): Promise<ExecutableReport> {
  let command: { argv: readonly string[]; source: string };
  try {
    command = resolveCommand(target.id, acpSettingsOf(target.settings));
  } catch (error) {
    return { ok: false, searched: [`targets.${target.id}.command (not set)`], hint: describeError(error) };
  }
  const agent = spawnAgent(command.argv, { cwd: os.homedir(), env, log: silentLogger });
  const session = new AcpSession({ process: agent, sink: { emit: () => undefined }, interactions: NO_INTERACTIONS, log: silentLogger, cwd: os.homedir(), label: target.id });
  try {
    session.attach(await openClient(agent.streams, session.handlers));
    const init = await withTimeout(session.wire.request("initialize", initializeParams()), PROBE_MS, `${target.id} initialize`);
    const probe = probeFromInitialize(command.argv, init, new Date());
    return {
      ok: true,
      argv: command.argv,
      source: command.source,
      ...(probe.agent ? { version: `${probe.agent.name} ${probe.agent.version}` } : {}),
      details: describeProbe(probe),
    };
  } catch (error) {
    const exit = agent.exitInfo();
    const why = exit?.errorCode !== undefined ? exit.errorCode : describeError(error);
    return { ok: false, searched: [`${command.argv.join(" ")} from ${command.source} (${why})`], hint: "Install the agent or fix the command; it must speak ACP on stdin/stdout." };
  } finally {
    await session.shutdown();
  }
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
  create: (context) =>
    new AcpAdapter({
      targetId: context.target.id,
      settings: context.target.settings,
      log: context.log,
      ...(context.trace ? { trace: context.trace } : {}),
      ...(context.stateDir !== undefined ? { stateDir: context.stateDir } : {}),
    }),
  probeExecutable: probeAcpExecutable,
};
