/**
 * What an ACP agent said about itself in `initialize` (HAR-08): name, version, capabilities, auth methods. Baton
 * never branches on the agent's name: every difference between agents is one of these capabilities. The probe is
 * cached per target in `$BATON_HOME/state/acp-<target>.json`, tagged with the command and the agent version it
 * came from; an entry for another command is not used, and each connection's own `initialize` replaces an entry
 * whose version or capabilities changed. Probing creates no session.
 */
import fs from "node:fs";
import path from "node:path";
import type { AgentCapabilities, AuthMethod, InitializeResponse } from "@agentclientprotocol/sdk/unstable";
import { SUPPORTED, type Capabilities, type SessionConfigOption } from "../capabilities.ts";
import { isObjectRecord } from "../../shared/shape.ts";

export const PROBE_VERSION = 1;

export interface AgentProbe {
  readonly version: typeof PROBE_VERSION;
  readonly command: readonly string[];
  readonly protocolVersion: number;
  readonly agent?: { readonly name: string; readonly version: string; readonly title?: string };
  readonly agentCapabilities: AgentCapabilities;
  readonly authMethods: readonly { readonly id: string; readonly name?: string }[];
  /** Model / effort / mode as the last session offered them (for `/model` before a session exists). */
  readonly config?: readonly SessionConfigOption[];
  readonly probedAt: string;
}

const present = (value: unknown): boolean => value !== undefined && value !== null && value !== false;

export function probeFromInitialize(command: readonly string[], response: InitializeResponse, now: Date): AgentProbe {
  const info = response.agentInfo;
  const authMethods = (response.authMethods ?? []).map((method: AuthMethod) => {
    const record = method as unknown as Record<string, unknown>;
    return { id: String(record["id"]), ...(typeof record["name"] === "string" ? { name: record["name"] } : {}) };
  });
  return {
    version: PROBE_VERSION,
    command: [...command],
    protocolVersion: response.protocolVersion,
    ...(info ? { agent: { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) } } : {}),
    agentCapabilities: response.agentCapabilities ?? {},
    authMethods,
    probedAt: now.toISOString(),
  };
}

/** What Baton may ask of the session: the fallback chain tries resume, then load, then a new session. */
export function sessionAbilities(probe: AgentProbe | undefined): { resume: boolean; load: boolean; close: boolean; list: boolean } {
  const caps = probe?.agentCapabilities;
  const session = isObjectRecord(caps?.sessionCapabilities) ? (caps.sessionCapabilities as Record<string, unknown>) : {};
  return { resume: present(session["resume"]), load: caps?.loadSession === true, close: present(session["close"]), list: present(session["list"]) };
}

/**
 * Baton capabilities from a probe. Text and resource links are the ACP baseline; image, audio and embedded
 * resources when advertised. Permissions always (agents ask through request_permission); config unless a
 * session showed the agent offers no model, effort or mode. No sync side channel: the host prepends catch-up.
 */
export function capabilitiesOf(probe: AgentProbe | undefined): Capabilities {
  const prompt = probe?.agentCapabilities.promptCapabilities;
  const offersConfig = probe?.config === undefined || probe.config.length > 0;
  return Object.freeze({
    prompt: Object.freeze({
      resourceLink: SUPPORTED,
      ...(prompt?.image === true ? { image: SUPPORTED } : {}),
      ...(prompt?.audio === true ? { audio: SUPPORTED } : {}),
      ...(prompt?.embeddedContext === true ? { embeddedResource: SUPPORTED } : {}),
    }),
    commands: SUPPORTED,
    ...(offersConfig ? { config: SUPPORTED } : {}),
    interactions: Object.freeze({ permission: SUPPORTED }),
  });
}

/** One line per fact, for `baton doctor`. */
export function describeProbe(probe: AgentProbe): string[] {
  const caps = probe.agentCapabilities;
  const abilities = sessionAbilities(probe);
  const prompt = caps.promptCapabilities;
  const session = [abilities.resume && "resume", abilities.load && "load", abilities.close && "close"].filter(Boolean);
  const blocks = ["text", "resource links", prompt?.image && "images", prompt?.audio && "audio", prompt?.embeddedContext && "embedded resources"].filter(Boolean);
  const lines = [
    `agent: ${probe.agent ? `${probe.agent.name} ${probe.agent.version}` : "(did not say its name)"}, ACP protocol ${probe.protocolVersion}`,
    `sessions: new${session.length > 0 ? `, ${session.join(", ")}` : ""}; prompts: ${blocks.join(", ")}`,
  ];
  if (probe.authMethods.length > 0) lines.push(`auth methods: ${probe.authMethods.map((m) => m.name ?? m.id).join(", ")} (Baton never logs in for an agent)`);
  return lines;
}

export function probePath(stateDir: string, targetId: string): string {
  return path.join(stateDir, `acp-${targetId}.json`);
}

/** The cached probe of a target, if it was made with this command. A corrupt or foreign file reads as none. */
export function readProbe(file: string, command: readonly string[]): AgentProbe | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
    if (!isObjectRecord(value) || value["version"] !== PROBE_VERSION || !Array.isArray(value["command"])) return undefined;
    if (JSON.stringify(value["command"]) !== JSON.stringify(command)) return undefined;
    if (!isObjectRecord(value["agentCapabilities"]) || !Array.isArray(value["authMethods"])) return undefined;
    return value as unknown as AgentProbe;
  } catch {
    return undefined;
  }
}

/** Same agent, same abilities: nothing to write. */
export function sameProbe(a: AgentProbe | undefined, b: AgentProbe): boolean {
  if (a === undefined) return false;
  const strip = (p: AgentProbe) => JSON.stringify({ ...p, probedAt: "" });
  return strip(a) === strip(b);
}

/** Atomic write (tmp + rename), private to the user. Failures are the caller's to log; the cache is optional. */
export function writeProbe(file: string, probe: AgentProbe): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(probe, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}
