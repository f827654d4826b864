/**
 * The model catalog without a session (HAR-08 for Codex): a short-lived app-server answers `model/list`,
 * then exits. Used before the first turn, so `/model` and `exec --model` can offer and check real choices
 * without starting a thread. The live session's process is never touched.
 */
import type { Logger } from "../../shared/log.ts";
import { JsonRpcPeer } from "../../rpc/jsonrpc.ts";
import type { CodexProcess, spawnAppServer } from "./process.ts";
import type { Model } from "./protocol/v2/Model";
import type { ModelListResponse } from "./protocol/v2/ModelListResponse";
import { SETUP_TIMEOUT_MS } from "./wire.ts";

export interface ModelProbeDeps {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly log: Logger;
  readonly spawn: typeof spawnAppServer;
  readonly clientVersion: string;
}

/** The visible models of the catalog; throws when the app-server cannot start or answer. */
export async function probeCodexModels(deps: ModelProbeDeps): Promise<Model[]> {
  const child: CodexProcess = deps.spawn(deps.argv, { cwd: deps.cwd, env: deps.env, log: deps.log });
  const peer = new JsonRpcPeer({
    transport: child.transport,
    name: "codex app-server (model list)",
    log: deps.log,
    onRequest: () => {
      throw new Error("a model probe answers no requests");
    },
  });
  void peer.start();
  try {
    await peer.request("initialize", { clientInfo: { name: "baton", title: "Baton", version: deps.clientVersion }, capabilities: { experimentalApi: true, requestAttestation: false } }, { timeoutMs: SETUP_TIMEOUT_MS });
    peer.notify("initialized");
    const listed = (await peer.request("model/list", { limit: 200 }, { timeoutMs: SETUP_TIMEOUT_MS })) as ModelListResponse;
    return listed.data.filter((model) => !model.hidden);
  } finally {
    peer.close("model list done");
    const exited = await Promise.race([child.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000))]);
    if (!exited) child.kill("SIGKILL");
  }
}
