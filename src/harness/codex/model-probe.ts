/**
 * The model catalog without a session (HAR-08 for Codex): a short-lived app-server answers `model/list`,
 * then exits. Used before the first turn, so `/model` and `exec --model` can offer and check real choices
 * without starting a thread. The live session's process is never touched.
 */
import { APP_SERVER_STOP, initialize, startAppServer, type AppServerLaunch } from "./app-server.ts";
import type { Model } from "./protocol/v2/Model";
import type { ModelListResponse } from "./protocol/v2/ModelListResponse";
import { SETUP_TIMEOUT_MS } from "./wire.ts";

export interface ModelProbeDeps extends AppServerLaunch {
  readonly clientVersion: string;
}

/** The visible models of the catalog; throws when the app-server cannot start or answer. */
export async function probeCodexModels(deps: ModelProbeDeps): Promise<Model[]> {
  const child = startAppServer(deps, {
    name: "codex app-server (model list)",
    onRequest: () => {
      throw new Error("a model probe answers no requests");
    },
  });
  try {
    await initialize(child.peer, "Baton", deps.clientVersion);
    const listed = (await child.peer.request("model/list", { limit: 200 }, { timeoutMs: SETUP_TIMEOUT_MS })) as ModelListResponse;
    return listed.data.filter((model) => !model.hidden);
  } finally {
    await child.close("model list done", APP_SERVER_STOP);
  }
}
