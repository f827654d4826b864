/**
 * The ACP adapter: drives any Agent Client Protocol agent (a target = an agent command + env + optional mode) per
 * HAR-05. There are no per-agent branches: what differs between agents is what they advertise in `initialize`
 * (probe.ts) and what their sessions offer (config.ts). A handle whose agent died stays dead: `sendTurn` then throws
 * BatonError("harness_dead") before accepting, and the host re-opens (respawn, then the fallback chain resumes).
 */
import { supportedPromptBlocks, type Capabilities, type Configurable, type SessionConfigOption } from "../capabilities.ts";
import { unsupportedBlocks, type BindingSink, type EventSink, type HarnessAdapter, type HarnessHandle, type HarnessOpenOptions, type PromptInput, type SendTurnResult } from "../contract.ts";
import { BatonError, describeError, isBatonError } from "../../shared/errors.ts";
import type { HandleId, TurnId } from "../../shared/ids.ts";
import { silentLogger, type Logger } from "../../shared/log.ts";
import { isConfigId, type ConfigId } from "../../shared/config-ids.ts";
import { describeExit, openClient, spawnAgent, type AgentProcess, type WireTrace } from "./connection.ts";
import { part } from "../drafts.ts";
import { establishSession, RESUME_STATE_VERSION } from "./establish.ts";
import { capabilitiesOf, probeFromInitialize, probePath, readProbe, sameProbe, sessionAbilities, writeProbe, type AgentProbe } from "./probe.ts";
import { acpSettingsOf } from "./settings.ts";
import { AcpSession } from "./session.ts";
import { initializeParams, INITIALIZE_MS, resolveCommand } from "./start.ts";
import { withTimeout } from "./timeout.ts";

export interface AcpAdapterOptions {
  readonly targetId: string;
  /** The target's settings (`command`, `mode`), merged over `harnesses.acp`. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly log?: Logger;
  /** Raw wire trace (the app writes it to `native-<target>.jsonl`): every message in and out. */
  readonly trace?: WireTrace;
  /** `$BATON_HOME/state`: the probe cache lives there. */
  readonly stateDir?: string;
  /** The process port (tests and the bench may start the agent differently). */
  readonly spawn?: typeof spawnAgent;
}

export class AcpAdapter implements HarnessAdapter, Configurable {
  private readonly sessions = new Map<HandleId, AcpSession>();
  private readonly pending = new Map<HandleId, Map<ConfigId, string>>();
  /** Choices made before any session exists; applied at open. */
  private readonly desired = new Map<ConfigId, string>();
  private readonly log: Logger;
  private probe: AgentProbe | undefined;
  private memo: { readonly probe: AgentProbe | undefined; readonly capabilities: Capabilities } | undefined;

  constructor(private readonly options: AcpAdapterOptions) {
    this.log = options.log ?? silentLogger;
    const command = acpSettingsOf(options.settings).command;
    if (options.stateDir !== undefined && command !== undefined) this.probe = readProbe(probePath(options.stateDir, options.targetId), command);
  }

  /** From the agent's own `initialize` (cached per target and agent version); the baseline before it ever ran. */
  get capabilities(): Capabilities {
    if (this.memo === undefined || this.memo.probe !== this.probe) this.memo = { probe: this.probe, capabilities: capabilitiesOf(this.probe) };
    return this.memo.capabilities;
  }

  /** What this adapter last learned from the agent (tests, doctor). */
  agentProbe(): AgentProbe | undefined {
    return this.probe;
  }

  private remember(probe: AgentProbe): void {
    const merged: AgentProbe = probe.config === undefined && this.probe?.config !== undefined ? { ...probe, config: this.probe.config } : probe;
    if (sameProbe(this.probe, merged)) return;
    this.probe = merged;
    if (this.options.stateDir === undefined) return;
    try {
      writeProbe(probePath(this.options.stateDir, this.options.targetId), merged);
    } catch (error) {
      this.log.log("warn", `could not save the ACP probe of ${this.options.targetId}`, { error });
    }
  }

  async open(options: HarnessOpenOptions, sink: EventSink, binding: BindingSink): Promise<HarnessHandle> {
    const label = this.options.targetId;
    const settings = acpSettingsOf(this.options.settings);
    const command = resolveCommand(label, settings);
    const agent = (this.options.spawn ?? spawnAgent)(command.argv, { cwd: options.cwd, env: options.env, log: options.log });
    const session = new AcpSession({ process: agent, sink, interactions: options.interactions, binding, log: options.log, cwd: options.cwd, label });
    try {
      session.attach(await openClient(agent.streams, session.handlers, this.options.trace));
      const init = await withTimeout(session.wire.request("initialize", initializeParams()), INITIALIZE_MS, `${label} initialize`);
      const probe = probeFromInitialize(command.argv, init, new Date(options.clock.now()));
      this.remember(probe);
      const established = await establishSession(session, {
        cwd: options.cwd,
        resumeState: options.resumeState,
        abilities: sessionAbilities(probe),
        binding,
        authMethods: probe.authMethods,
      });
      await this.applyStartingConfig(session, options, settings.mode);
      this.remember({ ...probe, config: session.config.snapshot() });
      binding.publishIdentity({
        harnessSessionId: established.sessionId,
        resumeState: { version: RESUME_STATE_VERSION, data: { sessionId: established.sessionId, ...(probe.agent ? { agent: probe.agent } : {}), via: established.via } },
        fresh: established.via === "new",
      });
      session.emitConfig();
    } catch (error) {
      await session.shutdown();
      throw this.startupError(error, agent, command);
    }
    const handle: HarnessHandle = { id: options.ids.mint("handle") };
    this.sessions.set(handle.id, session);
    return handle;
  }

  /**
   * Before the first turn: the session's chosen mode, else (nothing chosen, or Baton's `default`) the target's.
   * The target's mode is the agent's own id, `default` included: some agents start in modes that approve
   * everything (claude-agent-acp 0.101 starts in `auto`), so it is sent whenever the agent is not in it, and a
   * configured mode that cannot be applied fails the open. Then model and effort.
   */
  private async applyStartingConfig(session: AcpSession, options: HarnessOpenOptions, targetMode: string | undefined): Promise<void> {
    const label = this.options.targetId;
    const chosen = options.mode ?? this.desired.get("mode");
    const mode = chosen === undefined || chosen === "default" ? targetMode : chosen;
    if (mode !== undefined) {
      try {
        await this.applyConfig(session, "mode", mode);
      } catch (error) {
        throw new BatonError("harness_start_failed", `${label} could not switch to mode '${mode}': ${describeError(error)}`, { hint: `Fix targets.${label}.mode (or remove it), or pick another mode.` });
      }
    }
    for (const id of ["model", "effort"] as const) {
      const value = (id === "model" ? options.model : options.effort) ?? this.desired.get(id);
      if (value === undefined || value === "default") continue;
      try {
        await this.applyConfig(session, id, value);
      } catch (error) {
        session.emit(part("_baton_notice", { level: "warning", title: `${label}: could not set ${id} '${value}'`, detail: describeError(error) }, options.turnId));
      }
    }
  }

  /** Send one change to the agent now; the snapshot is published as a config_option_update. */
  private async applyConfig(session: AcpSession, id: ConfigId, value: string): Promise<void> {
    const route = session.config.route(id);
    const agentValue = session.config.resolve(id, value, this.options.targetId);
    if (route === undefined || agentValue === undefined) return;
    if (route.via === "set_mode") {
      await withTimeout(session.wire.request("session/set_mode", { sessionId: session.sessionId, modeId: agentValue }), INITIALIZE_MS, `${this.options.targetId} session/set_mode`);
      session.config.setCurrentMode(agentValue);
    } else {
      const result = await withTimeout(
        session.wire.request("session/set_config_option", { sessionId: session.sessionId, configId: route.configId, value: agentValue }),
        INITIALIZE_MS,
        `${this.options.targetId} session/set_config_option`,
      );
      session.config.replaceOptions(result.configOptions);
    }
    session.emitConfig();
  }

  private startupError(error: unknown, agent: AgentProcess, command: { argv: readonly string[]; source: string }): BatonError {
    const exit = agent.exitInfo();
    const ran = `Command: ${command.argv.join(" ")} (from ${command.source}); ${describeExit(exit)}.`;
    if (exit?.errorCode === "ENOENT" || exit?.errorCode === "EACCES") {
      return new BatonError("harness_missing", `${this.options.targetId}: cannot run ${command.argv[0] ?? "the agent"} (${exit.errorCode})`, { hint: `${ran} Install the agent or fix targets.${this.options.targetId}.command.` });
    }
    if (isBatonError(error, "harness_start_failed") || isBatonError(error, "harness_missing")) return error;
    const stderr = agent.stderrTail().trim().split("\n").slice(-3).join("\n");
    return new BatonError("harness_start_failed", `${this.options.targetId} (ACP agent) failed to start: ${describeError(error)}${stderr !== "" ? `\n${stderr}` : ""}`, { cause: error, hint: ran });
  }

  private session(handle: HarnessHandle): AcpSession {
    const session = this.sessions.get(handle.id);
    if (session === undefined) throw new BatonError("contract_violation", `unknown or closed ACP handle ${handle.id}`);
    return session;
  }

  async sendTurn(handle: HarnessHandle, input: PromptInput): Promise<SendTurnResult> {
    const unsupported = unsupportedBlocks(input.blocks, supportedPromptBlocks(this.capabilities));
    if (unsupported.length > 0) throw new BatonError("prompt_unsupported", `${this.options.targetId} does not accept ${unsupported.join(", ")} blocks`);
    const session = this.session(handle);
    if (session.dead) throw new BatonError("harness_dead", `${this.options.targetId} is not running (${session.deadReason ?? "dead"})`, { hint: "The next prompt starts it again and resumes the session." });
    if (session.active !== undefined && !session.active.finished) return { accepted: false, effective: "rejected", reason: "busy" };
    const queued = this.pending.get(handle.id);
    if (queued !== undefined) {
      this.pending.delete(handle.id);
      for (const [id, value] of queued) await this.applyConfig(session, id, value);
    }
    return session.sendTurn(input);
  }

  async cancel(handle: HarnessHandle, turnId: TurnId): Promise<void> {
    await this.sessions.get(handle.id)?.cancel(turnId);
  }

  async close(handle: HarnessHandle): Promise<void> {
    const session = this.sessions.get(handle.id);
    if (session === undefined) return;
    this.sessions.delete(handle.id);
    this.pending.delete(handle.id);
    await session.close(sessionAbilities(this.probe).close);
  }

  async getConfig(handle: HarnessHandle | undefined): Promise<readonly SessionConfigOption[]> {
    const session = handle === undefined ? undefined : this.sessions.get(handle.id);
    const options = session !== undefined && !session.dead ? session.config.snapshot() : [...(this.probe?.config ?? [])];
    const chosen = handle === undefined ? this.desired : (this.pending.get(handle.id) ?? new Map<ConfigId, string>());
    return options.map((option) => (isConfigId(option.id) && chosen.has(option.id) ? { ...option, value: chosen.get(option.id) ?? option.value } : option));
  }

  /** Applies from the next turn: now when the session is idle, before the next prompt when one is running. */
  async setConfig(handle: HarnessHandle | undefined, id: ConfigId, value: string): Promise<void> {
    const session = handle === undefined ? undefined : this.sessions.get(handle.id);
    if (handle === undefined || session === undefined || session.dead) {
      if (value === "default") this.desired.delete(id);
      else this.desired.set(id, value);
      return;
    }
    session.config.resolve(id, value, this.options.targetId);
    if (session.active !== undefined && !session.active.finished) {
      const queued = this.pending.get(handle.id) ?? new Map<ConfigId, string>();
      queued.set(id, value);
      this.pending.set(handle.id, queued);
      return;
    }
    await this.applyConfig(session, id, value);
  }

  /** For tests and diagnostics: the agent's pid behind a handle. */
  processId(handle: HarnessHandle): number | undefined {
    return this.sessions.get(handle.id)?.deps.process.pid;
  }

  /** For tests: the session behind a handle. */
  sessionOf(handle: HarnessHandle): AcpSession | undefined {
    return this.sessions.get(handle.id);
  }
}
