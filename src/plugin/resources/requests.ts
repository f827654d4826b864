/**
 * The host side of a runner's `resource/*` requests: each one is checked (params already validated by the
 * protocol table) and answered from the binding's ResourceStore. A store refusal (invalid name, unowned
 * type, conflict…) is an error answer carrying its code — the runner lives on; it is not a violation.
 */
import { JsonRpcError } from "../../rpc/jsonrpc.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import type { ParamsOfRunner, RunnerMethod } from "../protocol.ts";
import type { ControllerHost } from "./controller-host.ts";
import type { CreateInput, ResourceStore } from "./store.ts";

/** A resource Source's `source/emit`, answered by the binding's controllers (REC-06); a refusal carries its code. */
export async function answerSourceEmit(controllers: ControllerHost | undefined, params: unknown): Promise<unknown> {
  const p = params as ParamsOfRunner<"source/emit">;
  try {
    if (controllers === undefined) throw new BatonError("plugin_failed", "the controllers have not started");
    return await controllers.emit(p.sourceRunId, p.resource);
  } catch (error) {
    throw new JsonRpcError("source/emit", -32000, error instanceof BatonError ? error.message : describeError(error), { code: error instanceof BatonError ? error.code : "internal" });
  }
}

export async function answerResourceRequest(store: ResourceStore, method: RunnerMethod, params: unknown): Promise<unknown> {
  try {
    return await dispatch(store, method, params);
  } catch (error) {
    const code = error instanceof BatonError ? error.code : "internal";
    throw new JsonRpcError(method, -32000, error instanceof BatonError ? error.message : describeError(error), { code });
  }
}

async function dispatch(store: ResourceStore, method: RunnerMethod, raw: unknown): Promise<unknown> {
  switch (method) {
    case "resource/get": {
      const p = raw as ParamsOfRunner<"resource/get">;
      return (await store.get(p)) ?? null;
    }
    case "resource/list": {
      const p = raw as ParamsOfRunner<"resource/list">;
      return store.list(p, p.matchLabels === undefined ? {} : { matchLabels: p.matchLabels });
    }
    case "resource/create": {
      const p = raw as ParamsOfRunner<"resource/create">;
      return store.create(p.resource as unknown as CreateInput);
    }
    case "resource/replaceSpec": {
      const p = raw as ParamsOfRunner<"resource/replaceSpec">;
      return store.replaceSpec(p, p.spec, p.expectedResourceVersion === undefined ? {} : { expectedResourceVersion: p.expectedResourceVersion });
    }
    case "resource/patchStatus": {
      const p = raw as ParamsOfRunner<"resource/patchStatus">;
      return store.patchStatus(p, p.patch, p.expectedResourceVersion === undefined ? {} : { expectedResourceVersion: p.expectedResourceVersion });
    }
    case "resource/patchMetadata": {
      const p = raw as ParamsOfRunner<"resource/patchMetadata">;
      const patch = { ...(p.labels === undefined ? {} : { labels: p.labels }), ...(p.annotations === undefined ? {} : { annotations: p.annotations }) };
      return store.patchMetadata(p, patch, p.expectedResourceVersion === undefined ? {} : { expectedResourceVersion: p.expectedResourceVersion });
    }
    case "resource/delete": {
      const p = raw as ParamsOfRunner<"resource/delete">;
      return (await store.delete(p)) ?? null;
    }
    default:
      throw new BatonError("plugin_failed", `${method} is not available to plugins in this version of Baton`);
  }
}
