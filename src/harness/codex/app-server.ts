/**
 * Starting `codex app-server` (COD-01): the process (own group, watchdog, stderr ring and log; see
 * rpc/rpc-child.ts) with a JSON-RPC peer on its stdio, and the one handshake every connection opens with
 * (initialize → initialized). The live session, the inspector, the model probe and textgen all start here.
 */
import { BatonError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import type { JsonRpcPeer } from "../../rpc/jsonrpc.ts";
import type { StartedProcess, StopOptions } from "../../rpc/child-process.ts";
import { startRpcChild, type RpcChild, type RpcPeerOptions, type SpawnPort } from "../../rpc/rpc-child.ts";
import type { InitializeParams } from "./protocol/InitializeParams";
import { SETUP_TIMEOUT_MS } from "./wire.ts";

/** Baton's version as Codex's `clientInfo` reports it. */
export const CLIENT_VERSION = "0.1.0";
/** `clientInfo.title` of a live session's connection. */
export const SESSION_TITLE = "Baton";
/** Stdin EOF ends an app-server at once; TERM, then KILL, go to its whole process group. */
export const APP_SERVER_STOP: StopOptions = { eofGraceMs: 2_000, termGraceMs: 1_000 };

const STDERR_LOG_LINE = 500;

export interface AppServerLaunch {
  /** The resolved app-server command (`codex app-server …`). */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The child's complete environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Each stderr line goes here as a warning. */
  readonly log: Logger;
  /** The process port (tests pass an in-memory app-server). */
  readonly spawn?: SpawnPort | undefined;
  /** This very launch, already spawned (the Codex prestart): adopted instead of spawning (the real port only). */
  readonly started?: StartedProcess | undefined;
}

/** Spawn an app-server with a started peer on its stdio; the handshake is the caller's next step (`initialize`). */
export function startAppServer(launch: AppServerLaunch, peer: RpcPeerOptions): RpcChild {
  const [file, ...args] = launch.argv;
  if (file === undefined) throw new BatonError("harness_start_failed", "empty codex command");
  const { log } = launch;
  const spec = {
    label: "codex app-server",
    file,
    args,
    cwd: launch.cwd,
    env: launch.env,
    ...(launch.started === undefined ? {} : { started: launch.started }),
    onLine: (stream: "stdout" | "stderr", line: string) => {
      if (stream === "stderr") log.log("warn", `codex stderr: ${line.slice(0, STDERR_LOG_LINE)}`);
    },
  };
  return startRpcChild(spec, { log, ...peer }, launch.spawn);
}

export function initializeParams(title: string, version: string = CLIENT_VERSION): InitializeParams {
  return { clientInfo: { name: "baton", title, version }, capabilities: { experimentalApi: true, requestAttestation: false } };
}

/** The handshake: `initialize` (answered within the setup timeout), then the `initialized` notification. */
export async function initialize(peer: JsonRpcPeer, title: string, version?: string): Promise<void> {
  await peer.request("initialize", initializeParams(title, version), { timeoutMs: SETUP_TIMEOUT_MS });
  peer.notify("initialized");
}
