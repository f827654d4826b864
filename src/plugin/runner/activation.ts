/**
 * Inside the runner: load the plugin's entry, check its default export against the manifest, build the
 * activation context, collect registrations until `activate` resolves (then seal), and close in reverse.
 */
import { pathToFileURL } from "node:url";
import {
  configureExec,
  createExec,
  SDK_VERSION,
  type ActivationContext,
  type CommandRegistration,
  type ContextProviderRegistration,
  type ControllerRegistration,
  type LogAttributes,
  type PluginPackage,
} from "baton-plugin";
import { spawnChild } from "../../rpc/child-process.ts";
import type { InitializeParams, Registration, SourceRegistrationWire } from "../protocol.ts";
import { createResourceClient, type RunnerRequest } from "./resource-client.ts";

export interface RunnerChannel {
  log(level: "debug" | "info" | "warn" | "error", message: string, fields?: LogAttributes): void;
  toast(text: string, tone?: "info" | "success" | "warning" | "error"): void;
  /** A request to the host (resources, source emits). */
  request: RunnerRequest;
}

export interface Activated {
  readonly registrations: Registration[];
  readonly commands: ReadonlyMap<string, CommandRegistration>;
  /** By controllerId (`<apiVersion>/<Kind>`). */
  readonly controllers: ReadonlyMap<string, ControllerRegistration>;
  /** By the plugin's own kind. */
  readonly providers: ReadonlyMap<string, ContextProviderRegistration>;
  /** Aborted when the binding closes (Sources derive their signal from it). */
  readonly signal: AbortSignal;
  /** Abort the binding's signal, then run cleanups in reverse order. */
  close(): Promise<void>;
}

const COMMAND_NAME = /^[a-z0-9][a-z0-9-]*$/;
const SOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** A controller's Sources as wire registrations (REC-06); the cron pattern and time zone are checked by the host. */
function sourcesOf(id: string, controller: ControllerRegistration): SourceRegistrationWire[] {
  const list = controller.sources ?? [];
  if (!Array.isArray(list)) throw new Error(`controller ${id}: sources must be an array`);
  const seen = new Set<string>();
  return list.map((source, i) => {
    const where = `controller ${id}: sources[${i}]`;
    const sourceId = (source as { sourceId?: unknown } | undefined)?.sourceId;
    if (typeof sourceId !== "string" || !SOURCE_ID.test(sourceId) || sourceId.length > 100) throw new Error(`${where} needs a sourceId of letters, digits, '.', '_' and '-'`);
    if (seen.has(sourceId)) throw new Error(`${where}: sourceId '${sourceId}' is used twice in this controller`);
    seen.add(sourceId);
    if (source.type === "resource") {
      if (typeof source.start !== "function") throw new Error(`${where} (${sourceId}) is a resource Source without start()`);
      return { type: "resource", sourceId };
    }
    if (source.type === "cron") {
      if (typeof source.cron !== "string" || typeof source.timeZone !== "string") throw new Error(`${where} (${sourceId}) is a cron Source; it needs cron and timeZone strings`);
      return { type: "cron", sourceId, cron: source.cron, timeZone: source.timeZone };
    }
    throw new Error(`${where} (${sourceId}) has type '${String((source as { type?: unknown }).type)}'; use "resource" or "cron"`);
  });
}
const PROVIDER_KIND = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

function isPluginPackage(value: unknown): value is PluginPackage {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v["pluginId"] === "string" && typeof v["version"] === "string" && typeof v["activate"] === "function";
}

function serialize(error: unknown): { name?: string; message: string; stack?: string } {
  if (error instanceof Error) return { name: error.name, message: error.message, ...(error.stack === undefined ? {} : { stack: error.stack }) };
  return { message: String(error) };
}

export async function activate(params: InitializeParams, channel: RunnerChannel): Promise<Activated> {
  const mod = (await import(pathToFileURL(params.entry.path).href)) as { default?: unknown };
  const plugin = mod.default;
  if (!isPluginPackage(plugin)) throw new Error(`${params.entry.path}: the default export is not a plugin (it needs pluginId, version and activate())`);
  if (plugin.pluginId !== params.entry.pluginId) throw new Error(`the default export's pluginId '${plugin.pluginId}' differs from the manifest's '${params.entry.pluginId}'`);
  if (plugin.version !== params.entry.version) throw new Error(`the default export's version '${plugin.version}' differs from the manifest's '${params.entry.version}'`);

  const commands = new Map<string, CommandRegistration>();
  const controllers = new Map<string, ControllerRegistration>();
  const providers = new Map<string, ContextProviderRegistration>();
  const registrations: Registration[] = [];
  const cleanups: (() => void | Promise<void>)[] = [];
  const binding = new AbortController();
  let sealed = false;
  let closed = false;
  const open = (what: string): void => {
    if (closed) throw new Error(`${what} after the binding closed`);
  };
  const registering = (what: string): void => {
    open(what);
    if (sealed) throw new Error(`${what} after activate() resolved: registration is sealed`);
  };
  // A `processGroup` exec gets Baton's child helper: its own group, and a watchdog that stops the group if
  // this runner dies, armed before the command runs (a test command's children never outlive the binding).
  const exec = createExec(params.permissions.exec, process.env as Record<string, string>, params.session.cwd, (program, args, options) => spawnChild(program, args, { ...options, armFirst: true }));
  configureExec(exec);
  const log = (level: "debug" | "info" | "warn" | "error") => (message: string, fields?: LogAttributes) => {
    open("logger");
    channel.log(level, message, fields?.error === undefined ? fields : { ...fields, error: serialize(fields.error) });
  };
  const ctx: ActivationContext = {
    instance: { pluginInstanceId: params.instance.pluginInstanceId, key: params.instance.key, config: params.config as never },
    session: params.session,
    dataDirs: params.dataDirs,
    logger: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
    toast: {
      show(toast) {
        open("toast.show");
        channel.toast(toast.text, toast.tone);
      },
    },
    exec,
    resources: createResourceClient(channel.request),
    signal: binding.signal,
    registerCommand(command) {
      registering("registerCommand");
      if (typeof command?.name !== "string" || !COMMAND_NAME.test(command.name)) throw new Error(`command name '${String(command?.name)}' must be lowercase letters, digits and hyphens`);
      if (commands.has(command.name)) throw new Error(`command '${command.name}' is registered twice`);
      if (typeof command.execute !== "function") throw new Error(`command '${command.name}' has no execute()`);
      commands.set(command.name, command);
      registrations.push({ type: "command", commandId: command.name, name: command.name, description: String(command.description ?? "") });
    },
    registerController(controller) {
      registering("registerController");
      const type = controller?.resourceType;
      if (typeof type?.apiVersion !== "string" || typeof type.kind !== "string") throw new Error("registerController needs resourceType { apiVersion, kind }");
      const id = `${type.apiVersion}/${type.kind}`;
      if (controllers.has(id)) throw new Error(`a controller for ${id} is registered twice (one per resource type)`);
      if (typeof controller.reconcile !== "function") throw new Error(`controller ${id} has no reconcile()`);
      const sources = sourcesOf(id, controller);
      const max = controller.maxConcurrency;
      if (max !== undefined && (!Number.isInteger(max) || max < 1 || max > 16)) throw new Error(`controller ${id}: maxConcurrency must be an integer from 1 to 16`);
      const watches = (controller.watches ?? []).map((watch, i) => {
        const w = watch?.resourceType;
        if (typeof w?.apiVersion !== "string" || typeof w.kind !== "string") throw new Error(`controller ${id}: watches[${i}] needs resourceType { apiVersion, kind }`);
        const events = (["create", "update", "delete"] as const).filter((event) => typeof watch[event] === "function");
        return { resourceType: { apiVersion: w.apiVersion, kind: w.kind }, events };
      });
      controllers.set(id, controller);
      registrations.push({
        type: "controller",
        controllerId: id,
        resourceType: { apiVersion: type.apiVersion, kind: type.kind },
        ...(max === undefined ? {} : { maxConcurrency: max }),
        present: typeof controller.present === "function",
        watches,
        ...(sources.length === 0 ? {} : { sources }),
      });
    },
    registerContextProvider(provider) {
      registering("registerContextProvider");
      const kind = provider?.kind;
      if (typeof kind !== "string" || !PROVIDER_KIND.test(kind)) throw new Error(`context provider kind '${String(kind)}' must be letters, digits, '_' and '-'`);
      if (providers.has(kind)) throw new Error(`context provider '${kind}' is registered twice`);
      if (typeof provider.search !== "function" || typeof provider.provide !== "function") throw new Error(`context provider '${kind}' needs search() and provide()`);
      providers.set(kind, provider);
      registrations.push({ type: "contextProvider", kind, description: String(provider.description ?? "") });
    },
    onClose(cleanup) {
      registering("onClose");
      cleanups.push(cleanup);
    },
  };
  let closing: Promise<void> | undefined;
  // Cleanups may still log; the logger and toast refuse only once every cleanup ran.
  const close = (): Promise<void> => {
    closing ??= (async () => {
      sealed = true;
      binding.abort();
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          channel.log("warn", "a close handler threw", { error: serialize(error) });
        }
      }
      closed = true;
    })();
    return closing;
  };
  try {
    await plugin.activate(ctx);
  } catch (error) {
    // MGR-02: what was registered so far is withdrawn; cleanups still run.
    await close();
    throw error;
  }
  sealed = true;
  return { registrations, commands, controllers, providers, signal: binding.signal, close };
}

export { SDK_VERSION };
