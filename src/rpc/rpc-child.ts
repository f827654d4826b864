/**
 * A child that speaks JSON-RPC on its stdio: a process handle (own group, watchdog, stderr ring, typed exit,
 * group stop; see process-handle.ts) with a started peer on its channel. The one way Baton starts such a child;
 * the spawn port is a value, so tests hand in an in-memory process.
 */
import { JsonRpcPeer, type JsonRpcPeerOptions, type JsonRpcTransport } from "./jsonrpc.ts";
import type { StopOptions } from "./child-process.ts";
import { spawnProcess, type ExitInfo, type ProcessHandle, type ProcessSpec } from "./process-handle.ts";

/** Starts the process of a spec (`spawnProcess`, or an in-memory stand-in in tests). */
export type SpawnPort = (spec: ProcessSpec) => ProcessHandle;

export type RpcPeerOptions = Omit<JsonRpcPeerOptions, "transport">;

export interface RpcChild {
  readonly process: ProcessHandle;
  readonly peer: JsonRpcPeer;
  /** Close the peer (what is pending is rejected), then stop the process; resolves once it is reaped. */
  close(reason: string, stop?: StopOptions): Promise<ExitInfo>;
}

/** The transport of a process that never started: no input, and nothing can be sent. */
function closedTransport(label: string): JsonRpcTransport {
  return {
    input: (async function* () {})(),
    write() {
      throw new Error(`${label} is not running`);
    },
    end() {},
  };
}

export function startRpcChild(spec: Omit<ProcessSpec, "channel">, peer: RpcPeerOptions, spawn: SpawnPort = spawnProcess): RpcChild {
  const process = spawn({ ...spec, channel: "stdio" });
  const rpc = new JsonRpcPeer({ name: spec.label, ...peer, transport: process.transport ?? closedTransport(spec.label) });
  void rpc.start();
  return {
    process,
    peer: rpc,
    close(reason, stop) {
      rpc.close(reason);
      return process.stop(stop);
    },
  };
}
