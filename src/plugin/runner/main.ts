/**
 * The runner: the child process that hosts one plugin binding (RUN-01). JSON-RPC over fd 3 (to the host)
 * and fd 4 (from the host), so the plugin's own stdout cannot corrupt the protocol. It imports only the
 * protocol table, the rpc peer, shared helpers and the SDK package. It never outlives Baton: when fd 4
 * ends (the host is gone) or its parent changes, it kills its own process group, plugin children included.
 */
import fs from "node:fs";
import path from "node:path";
import { plugin as bunPlugin } from "bun";
import { JsonRpcError, JsonRpcPeer } from "../../rpc/jsonrpc.ts";
import { describeError } from "../../shared/errors.ts";
import {
  CANCEL_METHOD,
  commandResultSchema,
  contextCandidateSchema,
  describeIssue,
  HOST_REQUESTS,
  initializeParams,
  isHostMethod,
  MAX_MESSAGE_BYTES,
  presentationSchema,
  type CommandResultWire,
} from "../protocol.ts";
import type { SourceRegistration } from "baton-plugin";
import { activate, SDK_VERSION, type Activated } from "./activation.ts";
import { createSourceEmitter } from "./resource-client.ts";

const SDK_ENTRY = path.resolve(import.meta.dir, "../../../packages/baton-plugin/src/index.ts");
const PARENT_POLL_MS = 1_000;
const CLEANUP_LIMIT_MS = 1_500;
/** The host answers a runner request within 5 s; a little slack for a loaded machine. */
const HOST_ANSWER_MS = 10_000;

// `import … from "baton-plugin"` in a plugin resolves to this runner's SDK (the same module instance).
bunPlugin({
  name: "baton-plugin-sdk",
  setup(build) {
    build.module("baton-plugin", () => ({ contents: `export * from ${JSON.stringify(SDK_ENTRY)};`, loader: "ts" }));
  },
});

const output = fs.createWriteStream("", { fd: 3 });
const input = fs.createReadStream("", { fd: 4 });
output.on("error", () => exitGroup());
input.on("error", () => exitGroup());

let activated: Activated | undefined;
let initializing = false;
let inflight = 0;
let exiting = false;

/** Kill every process of this runner's group (the runner leads it), itself last. */
function exitGroup(): void {
  if (exiting) return;
  exiting = true;
  const done = activated?.close() ?? Promise.resolve();
  const limit = new Promise((resolve) => setTimeout(resolve, CLEANUP_LIMIT_MS));
  void Promise.race([done, limit]).finally(() => {
    try {
      process.kill(-process.pid, "SIGKILL");
    } catch {
      process.exit(1);
    }
  });
}

/** A plugin handler's throw becomes an error answer (name and stack kept); the runner lives on. */
async function asAnswer<T>(method: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    throw new JsonRpcError(method, -32000, describeError(error), { name: e.name, stack: e.stack });
  }
}

/** What reconcile returned, as the wire result; a bad requeueAfterMs is the plugin's error, not a violation. */
function reconcileAnswer(method: string, result: unknown): { output?: unknown; requeueAfterMs?: number } {
  if (result === undefined || result === null) return {};
  if (typeof result !== "object") throw new JsonRpcError(method, -32000, "reconcile must return { output?, requeueAfterMs? } or nothing");
  const { output, requeueAfterMs } = result as { output?: unknown; requeueAfterMs?: unknown };
  if (requeueAfterMs !== undefined && (typeof requeueAfterMs !== "number" || !Number.isFinite(requeueAfterMs) || requeueAfterMs < 0)) {
    throw new JsonRpcError(method, -32000, `reconcile returned requeueAfterMs ${String(requeueAfterMs)}; it must be a number ≥ 0`);
  }
  return { ...(output === undefined ? {} : { output }), ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }) };
}

/** What the host sent a reconcile is frozen: mutating it throws (REC-09). */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value as object)) deepFreeze(item);
  }
  return value;
}

/** Running resource Sources by run id: each one's signal aborts on `source/stop` or when the binding closes. */
const sources = new Map<string, AbortController>();

function startSource(binding: Activated, sourceRunId: string, source: Extract<SourceRegistration, { type: "resource" }>): void | Promise<void> {
  const run = new AbortController();
  binding.signal.addEventListener("abort", () => run.abort(), { once: true });
  sources.set(sourceRunId, run);
  const emit = createSourceEmitter((m, p) => peer.request(m, p, { timeoutMs: HOST_ANSWER_MS }), sourceRunId);
  return source.start({
    emit: (resource) => {
      if (run.signal.aborted) return Promise.reject(new Error(`source ${source.sourceId} was stopped`));
      return emit(resource);
    },
    reportError: (error) => {
      if (run.signal.aborted) return;
      peer.notify("source/error", { sourceRunId, error: { message: describeError(error) } });
    },
    signal: run.signal,
  });
}

function invalid(method: string, message: string): JsonRpcError {
  return new JsonRpcError(method, -32602, message);
}

async function dispatch(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
  if (!isHostMethod(method)) throw new JsonRpcError(method, -32601, `unknown method ${method}`);
  const parsed = HOST_REQUESTS[method].params.safeParse(params ?? {});
  if (!parsed.success) throw invalid(method, `invalid params for ${method}: ${describeIssue(parsed.error)}`);
  switch (method) {
    case "runner/initialize": {
      if (activated !== undefined || initializing) throw new JsonRpcError(method, -32600, "already initialized");
      initializing = true;
      const init = initializeParams.parse(params);
      try {
        activated = await activate(init, {
          log: (level, message, fields) => peer.notify("log/write", { level, message, ...(fields ?? {}) }),
          toast: (text, tone) => peer.notify("toast/show", { text, ...(tone === undefined ? {} : { tone }) }),
          request: (method, params) => peer.request(method, params, { timeoutMs: HOST_ANSWER_MS }),
        });
      } catch (error) {
        const e = error instanceof Error ? error : new Error(String(error));
        throw new JsonRpcError(method, -32000, describeError(error), { name: e.name, stack: e.stack });
      } finally {
        initializing = false;
      }
      return { sdk: SDK_VERSION, registrations: activated.registrations };
    }
    case "runner/ping":
      return { rssBytes: process.memoryUsage.rss(), pendingCalls: inflight };
    case "runner/shutdown":
      await activated?.close();
      setImmediate(() => output.end(() => process.exit(0)));
      return {};
    case "command/execute": {
      const { commandId, argument, selectedValue, searchQuery } = HOST_REQUESTS["command/execute"].params.parse(params);
      const command = activated?.commands.get(commandId);
      if (command === undefined) throw new JsonRpcError(method, -32602, `no command ${commandId}`);
      let result: unknown;
      try {
        result = await command.execute({
          argument,
          signal,
          ...(selectedValue === undefined ? {} : { selectedValue }),
          ...(searchQuery === undefined ? {} : { searchQuery }),
        });
      } catch (error) {
        const e = error instanceof Error ? error : new Error(String(error));
        throw new JsonRpcError(method, -32000, describeError(error), { name: e.name, stack: e.stack });
      }
      const wire: CommandResultWire = result === undefined || result === null ? { kind: "none" } : (result as CommandResultWire);
      const checked = commandResultSchema.safeParse(wire);
      if (!checked.success) throw new JsonRpcError(method, -32000, `command ${commandId} returned an invalid result: ${describeIssue(checked.error)}`);
      return checked.data;
    }
    case "controller/reconcile": {
      const p = HOST_REQUESTS["controller/reconcile"].params.parse(params);
      const controller = activated?.controllers.get(p.controllerId);
      if (controller === undefined) throw new JsonRpcError(method, -32602, `no controller ${p.controllerId}`);
      const result = await asAnswer(method, () =>
        controller.reconcile({ snapshot: deepFreeze(p.snapshot) as never, pluginInteractions: deepFreeze(p.pluginInteractions) as never, signal }, deepFreeze(p.resource) as never),
      );
      return reconcileAnswer(method, result);
    }
    case "controller/present": {
      const p = HOST_REQUESTS["controller/present"].params.parse(params);
      const present = activated?.controllers.get(p.controllerId)?.present;
      if (present === undefined) throw new JsonRpcError(method, -32602, `controller ${p.controllerId} has no present()`);
      const shown = await asAnswer(method, () => present(deepFreeze(p.resource) as never));
      if (shown === undefined || shown === null) return null;
      // The plugin's mistake is an error answer (a diagnostic item on the Board), never a protocol violation.
      const checked = presentationSchema.safeParse(shown);
      if (!checked.success) throw new JsonRpcError(method, -32000, `present() returned an invalid presentation: ${describeIssue(checked.error)}`);
      return checked.data;
    }
    case "context/search": {
      const p = HOST_REQUESTS["context/search"].params.parse(params);
      const provider = activated?.providers.get(p.providerKind);
      if (provider === undefined) throw new JsonRpcError(method, -32602, `no context provider ${p.providerKind}`);
      const found = await asAnswer(method, () => provider.search(p.query, { limit: p.limit, signal }));
      const checked = contextCandidateSchema.array().safeParse(Array.isArray(found) ? found.slice(0, p.limit) : found);
      if (!checked.success) throw new JsonRpcError(method, -32000, `search() of ${p.providerKind} returned invalid candidates: ${describeIssue(checked.error)}`);
      return checked.data;
    }
    case "context/provide": {
      const p = HOST_REQUESTS["context/provide"].params.parse(params);
      const provider = activated?.providers.get(p.providerKind);
      if (provider === undefined) throw new JsonRpcError(method, -32602, `no context provider ${p.providerKind}`);
      const given = await asAnswer(method, () => provider.provide(p.id, { maxChars: p.maxChars, signal }));
      if (given === undefined || given === null) return null;
      const answer = typeof given === "string" ? { text: given } : given;
      const checked = HOST_REQUESTS["context/provide"].result.safeParse(answer);
      if (!checked.success || checked.data === null) throw new JsonRpcError(method, -32000, `provide() of ${p.providerKind} must return text or { text, resource? }`);
      return checked.data;
    }
    case "watch/map": {
      const p = HOST_REQUESTS["watch/map"].params.parse(params);
      const watch = activated?.controllers.get(p.controllerId)?.watches?.[p.watchIndex];
      const handler = watch?.[p.event];
      if (watch === undefined || handler === undefined) throw new JsonRpcError(method, -32602, `no ${p.event} handler for watch ${p.watchIndex} of ${p.controllerId}`);
      const object = deepFreeze(p.object) as never;
      const requests = await asAnswer(method, () => (p.event === "update" ? (watch.update?.(deepFreeze(p.old ?? p.object) as never, object) ?? []) : handler.call(watch, object as never, object)));
      if (!Array.isArray(requests) || !requests.every((r) => typeof r?.name === "string")) throw new JsonRpcError(method, -32000, `the ${p.event} handler of watch ${p.watchIndex} must return [{ name }]`);
      return { requests: requests.map((r: { name: string }) => ({ name: r.name })) };
    }
    case "source/start": {
      const p = HOST_REQUESTS["source/start"].params.parse(params);
      const source = activated?.controllers.get(p.controllerId)?.sources?.find((s) => s.sourceId === p.sourceId);
      if (activated === undefined || source?.type !== "resource") throw new JsonRpcError(method, -32602, `no resource Source ${p.sourceId} of ${p.controllerId}`);
      await asAnswer(method, () => startSource(activated as Activated, p.sourceRunId, source));
      return {};
    }
    case "source/stop": {
      const p = HOST_REQUESTS["source/stop"].params.parse(params);
      sources.get(p.sourceRunId)?.abort();
      sources.delete(p.sourceRunId);
      return {};
    }
    default:
      throw new JsonRpcError(method, -32601, `${method} is not supported by this runner (SDK ${SDK_VERSION})`);
  }
}

const peer = new JsonRpcPeer({
  transport: {
    input,
    write: (line) => {
      output.write(line);
    },
    end: () => output.end(),
  },
  name: "host",
  cancelMethod: CANCEL_METHOD,
  maxLineBytes: MAX_MESSAGE_BYTES,
  stampVersion: true,
  onRequest: async (method, params, _id, signal) => {
    inflight++;
    try {
      return await dispatch(method, params, signal);
    } finally {
      inflight--;
    }
  },
  // The host closing fd 4 means Baton is gone (or gave up on us): nothing may outlive it.
  onClose: () => exitGroup(),
});
void peer.start();

const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) exitGroup();
}, PARENT_POLL_MS).unref();

process.on("uncaughtException", (error) => {
  try {
    peer.notify("log/write", { level: "error", message: `uncaught exception: ${describeError(error)}`, error: { message: describeError(error), ...(error.stack === undefined ? {} : { stack: error.stack }) } });
  } finally {
    setImmediate(() => process.exit(70));
  }
});
process.on("unhandledRejection", (reason) => {
  peer.notify("log/write", { level: "error", message: `unhandled rejection: ${describeError(reason)}` });
});
