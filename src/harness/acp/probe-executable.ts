/**
 * `baton doctor` for an ACP target: start the agent, ask `initialize` (no session is created), stop it; report
 * what it said. Loaded on use (definition.ts): the agent's wire and session code is not needed to start Baton.
 */
import os from "node:os";
import { describeError } from "../../shared/errors.ts";
import { silentLogger } from "../../shared/log.ts";
import type { ExecutableReport, HarnessTarget } from "../definition.ts";
import { openClient, spawnAgent } from "./connection.ts";
import { describeProbe, probeFromInitialize } from "./probe.ts";
import { AcpSession } from "./session.ts";
import { acpSettingsOf } from "./settings.ts";
import { initializeParams, resolveCommand } from "./start.ts";
import { withTimeout } from "./timeout.ts";

const PROBE_MS = 20_000;
const NO_INTERACTIONS = { request: async () => ({ outcome: "cancelled" as const, reason: "non-interactive" as const }) };

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
