/** Starting an ACP agent: which command, and what Baton says about itself in `initialize`. */
import type { InitializeRequest } from "@agentclientprotocol/sdk/unstable";
import { BatonError } from "../../shared/errors.ts";
import type { AcpSettings } from "./settings.ts";

export const INITIALIZE_MS = 30_000;
/** ACP's protocol version this client speaks (the SDK's PROTOCOL_VERSION; pinned by the schema-drift test). */
export const PROTOCOL_VERSION = 1;
const CLIENT_VERSION = "0.1.0";

export function resolveCommand(targetId: string, settings: AcpSettings): { argv: readonly string[]; source: string } {
  if (settings.command === undefined) {
    throw new BatonError("harness_missing", `ACP target '${targetId}' has no agent command`, {
      hint: `Set targets.${targetId}.command in config.yaml to the agent's argv, e.g. ["claude-agent-acp"] or ["codex-acp"].`,
    });
  }
  return { argv: settings.command, source: `targets.${targetId}.command` };
}

/**
 * Baton advertises no client file system and no terminals in v1: agents then use their own (gemini-cli's client-fs
 * path breaks new-file writes; no agent measured used client terminals). Any such call answers -32601.
 */
export function initializeParams(): InitializeRequest {
  return {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "baton", title: "Baton", version: CLIENT_VERSION },
  };
}
