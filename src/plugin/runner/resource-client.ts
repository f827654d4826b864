/**
 * The runner side of `ctx.resources`: each call is one `resource/*` request to the host, which owns the
 * files. The host's error answers come back as `ResourceError`s with a code a plugin can branch on.
 */
import { ResourceError, type ResourceClient, type ResourceErrorCode } from "baton-plugin";
import { JsonRpcError } from "../../rpc/jsonrpc.ts";
import type { RunnerMethod } from "../protocol.ts";

export type RunnerRequest = (method: RunnerMethod, params: unknown) => Promise<unknown>;

const CODES: Readonly<Record<string, ResourceErrorCode>> = {
  plugin_invalid: "invalid",
  plugin_not_found: "not_found",
  plugin_exists: "exists",
  plugin_conflict: "conflict",
};

function codeOf(error: unknown): ResourceErrorCode {
  if (!(error instanceof JsonRpcError)) return "failed";
  const data = error.data as { code?: unknown } | undefined;
  return typeof data?.code === "string" ? (CODES[data.code] ?? "failed") : "failed";
}

async function callHost<T>(request: RunnerRequest, method: RunnerMethod, params: unknown): Promise<T> {
  try {
    return (await request(method, params)) as T;
  } catch (error) {
    throw new ResourceError(codeOf(error), error instanceof Error ? error.message : String(error));
  }
}

/** A resource Source's `emit` (REC-06): a refusal rejects with a ResourceError (`conflict`, `invalid`…). */
export function createSourceEmitter(request: RunnerRequest, sourceRunId: string): (resource: unknown) => Promise<void> {
  return async (resource) => {
    await callHost(request, "source/emit", { sourceRunId, resource });
  };
}

export function createResourceClient(request: RunnerRequest): ResourceClient {
  function call<T>(method: RunnerMethod, params: unknown): Promise<T> {
    return callHost<T>(request, method, params);
  }
  const ref = (r: { apiVersion: string; kind: string; name: string }) => ({ apiVersion: r.apiVersion, kind: r.kind, name: r.name });
  return {
    get: async (r) => (await call<never | null>("resource/get", ref(r))) ?? undefined,
    list: (type, options = {}) => call("resource/list", { apiVersion: type.apiVersion, kind: type.kind, ...(options.matchLabels === undefined ? {} : { matchLabels: options.matchLabels }) }),
    create: (resource) => call("resource/create", { resource }),
    replaceSpec: (r, spec, options = {}) => call("resource/replaceSpec", { ...ref(r), spec, ...options }),
    patchStatus: (r, patch, options = {}) => call("resource/patchStatus", { ...ref(r), patch, ...options }),
    patchMetadata: (r, patch, options = {}) => call("resource/patchMetadata", { ...ref(r), ...patch, ...options }),
    delete: async (r) => (await call<never | null>("resource/delete", ref(r))) ?? undefined,
  };
}
