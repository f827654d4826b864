/**
 * The session's Plugin Manager (MGR-01..05): activates the enabled instances of `plugin.yaml` as Bindings
 * (in parallel, failures isolated), enables/disables/updates/removes with rollback, restarts by hand (a
 * crash-loop guard keeps a plugin that failed 3 times in 10 minutes stopped), reloads, and closes
 * idempotently in reverse activation order. It talks to the Controller only through `PluginHostPort`:
 * binding facts are appended there (`_baton_plugin_binding_update`), consent is asked there.
 * Operations on one instance run one at a time; there is no automatic restart.
 */
import fs from "node:fs";
import type { PluginBindingPayload } from "../event/kinds.ts";
import { systemClock, type Clock } from "../shared/clock.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import type { Logger, LogFields, LogLevel } from "../shared/log.ts";
import { createSessionLog, type SessionLog, type SessionLogger } from "../store/session-log.ts";
import { PluginBinding, type BindingReason, type BindingSession, type CommandCall } from "./binding.ts";
import type { Board } from "./board.ts";
import { BoardHub } from "./board-hub.ts";
import { parsePluginRef, type ConsentAsk, type PluginCatalog, type PluginRef } from "./catalog.ts";
import { pluginLogFile } from "./paths.ts";
import type { InstanceSettings } from "./settings.ts";
import { FairCapacity } from "./resources/keyed-queue.ts";
import { pluginRows, type PluginRow } from "./plugin-rows.ts";
import type { SupervisorTimings } from "./supervisor.ts";
import type { PluginHostPort } from "./host-port.ts";

export type { PluginRow } from "./plugin-rows.ts";
export type { PluginHostPort, PluginOutput } from "./host-port.ts";

export interface ManagerOptions {
  readonly catalog: PluginCatalog;
  readonly session: BindingSession;
  readonly host: PluginHostPort;
  /** The user's environment (each runner gets a scrubbed copy). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The session log; plugin records go there and to the plugin's own log. */
  readonly log: SessionLogger;
  readonly reservedCommands: ReadonlySet<string>;
  /** How to start a runner (default: this Bun on src/plugin/runner/main.ts). */
  readonly runner?: { readonly file: string; readonly args: readonly string[] };
  readonly timings?: Partial<SupervisorTimings>;
  readonly clock?: Clock;
}


export interface ActivationReport {
  readonly activated: readonly string[];
  readonly failures: readonly { readonly key: string; readonly detail: string }[];
}

const CRASH_WINDOW_MS = 10 * 60_000;
const CRASH_LIMIT = 3;

export function defaultRunner(): { file: string; args: string[] } {
  const dir = `${import.meta.dir}/runner`;
  return { file: process.execPath, args: ["--no-install", `--config=${dir}/bunfig.toml`, `${dir}/main.ts`] };
}

function tee(a: Logger, b: Logger): Logger {
  const both: Logger = {
    log(level: LogLevel, message: string, fields?: LogFields) {
      a.log(level, message, fields);
      b.log(level, message, fields);
    },
    child: () => both,
  };
  return both;
}

export class PluginManager {
  private readonly bindings = new Map<string, PluginBinding>();
  /** Activation order, for closing in reverse. */
  private order: string[] = [];
  private readonly failures = new Map<string, number[]>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly logs = new Map<string, SessionLog>();
  private readonly listeners = new Set<() => void>();
  private readonly boards = new BoardHub(() => this.activeBindings().flatMap((b) => b.boardInputs()));
  private readonly clock: Clock;
  private closing: Promise<void> | undefined;
  private logDirReady: Promise<unknown> | undefined;
  /** Reconciles at once across bindings: min(4, 1 + active bindings), round-robin (plugins.md §2). */
  private readonly capacity = new FairCapacity(1);

  private offTurns: (() => void) | undefined;

  constructor(private readonly options: ManagerOptions) {
    this.clock = options.clock ?? systemClock;
    const offTurns = options.host.onTurn?.((turn) => {
      for (const binding of this.activeBindings()) binding.turnEnded(turn);
    });
    const offAnswers = options.host.onAnswer?.((pluginInstanceId, resource) => this.byInstanceId(pluginInstanceId)?.wake(resource));
    this.offTurns = () => (offTurns?.(), offAnswers?.());
  }

  get catalog(): PluginCatalog {
    return this.options.catalog;
  }

  /** Called after any binding changed state. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The Board as last published (BRD-01): a value, read without I/O. */
  get board(): Board {
    return this.boards.board;
  }

  /** Called with the new Board whenever a presented item or a binding changed. */
  onBoard(listener: (board: Board) => void): () => void {
    return this.boards.onBoard(listener);
  }

  /** MGR-01: close what a dead process left "active", then activate every enabled instance in parallel. */
  async start(): Promise<ActivationReport> {
    for (const item of Object.values(this.options.host.projected())) {
      if (item.state !== "active") continue;
      this.record({ pluginInstanceId: item.pluginInstanceId, pluginId: item.pluginId, packageVersion: item.packageVersion, treeDigest: item.treeDigest, state: "closed", reason: { code: "recovery", detail: "Baton exited while the binding was active" } });
    }
    let instances: readonly InstanceSettings[];
    try {
      instances = (await this.catalog.settings.load()).instances.filter((i) => i.enabled);
    } catch (error) {
      this.options.log.log("error", "plugin settings could not be read; no plugin was started", { error });
      this.options.host.toast(`Plugins not started: ${describeError(error)}`, "error", "baton");
      return { activated: [], failures: [{ key: this.catalog.paths.settings, detail: describeError(error) }] };
    }
    const results = await Promise.all(instances.map((instance) => this.serial(instance.pluginId, () => this.activate(instance))));
    return {
      activated: results.filter((r) => r.state === "active").map((r) => r.instance.key),
      failures: results.filter((r) => r.state !== "active").map((r) => ({ key: r.instance.key, detail: r.reason?.detail ?? r.state })),
    };
  }

  /** Enable (asking consent when needed) and activate; a failed activation rolls back (MGR-03). */
  enable(text: string | PluginRef, ask: ConsentAsk = this.options.host.askConsent): Promise<PluginBinding> {
    const ref = typeof text === "string" ? parsePluginRef(text) : text;
    return this.serialByRef(ref, async () => {
      const { instance, install, previous } = await this.catalog.enable(ref, ask);
      const old = this.bindings.get(instance.key);
      if (old !== undefined && old.state === "active" && old.version === instance.version) return old;
      if (old !== undefined) await old.close({ code: previous?.version !== instance.version ? "update" : "restart" });
      this.failures.delete(instance.key);
      const binding = await this.activateWith(instance, install);
      if (binding.state === "active") return binding;
      // Roll back: the old version comes back when this was an update, else the instance is disabled.
      if (previous?.enabled === true && previous.version !== instance.version) {
        const restored = await this.catalog.settings.upsert(instance.key, { enabled: true, version: previous.version });
        await this.activate(restored);
        throw new BatonError("plugin_failed", `${instance.pluginId} ${instance.version} did not start (${binding.reason?.detail ?? binding.state}); ${previous.version} is active again`);
      }
      await this.catalog.settings.upsert(instance.key, { enabled: false });
      throw new BatonError("plugin_failed", `${instance.pluginId} did not start (${binding.reason?.detail ?? binding.state}); it stays disabled`);
    });
  }

  /** Disable: the binding closes; its data stays. */
  disable(text: string | PluginRef): Promise<InstanceSettings> {
    const ref = typeof text === "string" ? parsePluginRef(text) : text;
    return this.serialByRef(ref, async () => {
      const instance = await this.catalog.disable(ref);
      await this.bindings.get(instance.key)?.close({ code: "disabled" });
      return instance;
    });
  }

  /** Remove: close, forget the instance, delete its installed versions. */
  remove(text: string | PluginRef): Promise<{ key: string; versions: number }> {
    const ref = typeof text === "string" ? parsePluginRef(text) : text;
    return this.serialByRef(ref, async () => {
      for (const binding of [...this.bindings.values()]) {
        const same = binding.pluginId === ref.pluginId && (ref.marketplace === undefined || binding.instance.marketplace === ref.marketplace);
        if (same) await binding.close({ code: "removed" });
      }
      return this.catalog.remove(ref);
    });
  }

  /** Restart by hand (the only restart there is); refused after 3 failures in 10 minutes. */
  restart(text: string | PluginRef): Promise<PluginBinding> {
    const ref = typeof text === "string" ? parsePluginRef(text) : text;
    return this.serialByRef(ref, async () => {
      const target = await this.catalog.resolve(ref);
      if (target.settings?.enabled !== true) throw new BatonError("plugin_failed", `${ref.pluginId} is disabled; enable it instead`);
      const recent = this.recentFailures(target.key);
      if (recent >= CRASH_LIMIT) {
        throw new BatonError("plugin_failed", `${ref.pluginId} failed ${recent} times in the last 10 minutes and stays stopped`, {
          hint: `Fix it (see: baton plugins logs ${ref.pluginId}), then disable and enable it again.`,
        });
      }
      await this.bindings.get(target.key)?.close({ code: "restart" });
      return this.activate(target.settings);
    });
  }

  /** MGR-04: close every binding (reverse), start the enabled ones again from fresh runner processes. */
  async reload(): Promise<ActivationReport> {
    await this.closeAll({ code: "reload" });
    return this.start();
  }

  /** Run a plugin command of an active binding. */
  execute(pluginInstanceId: string, commandId: string, argument: string, call: CommandCall = {}): ReturnType<PluginBinding["execute"]> {
    const binding = this.byInstanceId(pluginInstanceId);
    if (binding === undefined) return Promise.reject(new BatonError("plugin_not_found", `no plugin binding ${pluginInstanceId} in this session`));
    return binding.execute(commandId, argument, call);
  }

  /** This session's binding of an instance id (`pi_…`), if any. */
  byInstanceId(pluginInstanceId: string): PluginBinding | undefined {
    return [...this.bindings.values()].find((b) => b.instance.pluginInstanceId === pluginInstanceId);
  }

  /** Resolves once no controller of an active binding has work pending or running. */
  async idle(): Promise<void> {
    await Promise.all(this.activeBindings().map((b) => b.controllerHost?.idle()));
  }

  binding(key: string): PluginBinding | undefined {
    return this.bindings.get(key);
  }

  activeBindings(): PluginBinding[] {
    return [...this.bindings.values()].filter((b) => b.state === "active");
  }

  /** Installed plugins with their settings and this session's binding. */
  list(): Promise<PluginRow[]> {
    return pluginRows(this.catalog, (key) => this.bindings.get(key));
  }

  /** MGR-05: idempotent; closes every binding in reverse activation order and the plugin logs. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.offTurns?.();
      await this.closeAll({ code: "shutdown" });
      await Promise.all([...this.logs.values()].map((log) => log.close()));
    })();
    return this.closing;
  }

  private async closeAll(reason: BindingReason): Promise<void> {
    for (const key of [...this.order].reverse()) await this.bindings.get(key)?.close(reason);
  }

  private async activate(instance: InstanceSettings): Promise<PluginBinding> {
    await this.logDir();
    let install;
    try {
      install = await this.catalog.load(instance.marketplace, instance.pluginId, instance.version);
    } catch (error) {
      this.options.log.log("error", `plugin ${instance.pluginId} could not be loaded`, { error });
      const failed = new PluginBinding({ ...this.bindingDeps(instance, undefined), loadFailure: { code: "activation", detail: describeError(error) } });
      this.bindings.set(instance.key, failed);
      this.settled(failed);
      return failed;
    }
    return this.activateWith(instance, install);
  }

  private async activateWith(instance: InstanceSettings, install: Awaited<ReturnType<PluginCatalog["load"]>>): Promise<PluginBinding> {
    if (this.closing !== undefined) throw new BatonError("plugin_failed", "the session is closing");
    await this.logDir();
    const binding = new PluginBinding(this.bindingDeps(instance, install));
    this.bindings.set(instance.key, binding);
    this.order = [...this.order.filter((k) => k !== instance.key), instance.key];
    await binding.start();
    return binding;
  }

  private bindingDeps(instance: InstanceSettings, install: Awaited<ReturnType<PluginCatalog["load"]>> | undefined): ConstructorParameters<typeof PluginBinding>[0] {
    return {
      instance,
      install,
      session: this.options.session,
      pluginsRoot: this.catalog.paths.root,
      runner: this.options.runner ?? defaultRunner(),
      env: this.options.env,
      reservedCommands: this.options.reservedCommands,
      log: this.pluginLog(instance, install?.receipt.version ?? instance.version),
      ...(this.options.timings === undefined ? {} : { timings: this.options.timings }),
      clock: this.clock,
      capacity: this.capacity,
      snapshot: () => this.options.host.snapshot?.() ?? {},
      interactions: (binding, resource) => this.options.host.interactions?.(binding.instance.pluginInstanceId, resource) ?? [],
      turns: () => this.options.host.turns?.() ?? [],
      resourceChanged: (binding, object, gone) => this.options.host.resourceChanged?.(binding.instance.pluginInstanceId, object, gone),
      publish: (binding, controllerId, resource, output) => {
        const publish = this.options.host.publish;
        if (publish === undefined) {
          this.options.log.log("info", `reconcile output of ${controllerId}/${resource.metadata.name} not shown: this host has no place for plugin outputs`);
          return;
        }
        return publish({ pluginInstanceId: binding.instance.pluginInstanceId, pluginId: binding.pluginId, packageVersion: binding.version, controllerId, resource, output });
      },
      onSettled: (binding) => this.settled(binding),
      onToast: (binding, text, tone) => this.options.host.toast(text, tone, binding.pluginId),
      onBoard: () => this.boards.republish(),
    };
  }

  private settled(binding: PluginBinding): void {
    const state = binding.state;
    if (state !== "active" && state !== "failed" && state !== "closed") return;
    const reason = binding.reason;
    this.record({
      pluginInstanceId: binding.instance.pluginInstanceId,
      pluginId: binding.pluginId,
      packageVersion: binding.version,
      treeDigest: binding.treeDigest,
      state,
      ...(reason === undefined || state === "active" ? {} : { reason: { code: reason.code, ...(reason.detail === undefined ? {} : { detail: reason.detail }) } }),
      ...(state === "active" ? { registrations: binding.registrations.map((r) => ({ ...r })) } : {}),
    });
    if (state === "failed") this.noteFailure(binding.instance.key);
    this.capacity.setLimit(Math.min(4, 1 + this.activeBindings().length));
    for (const listener of [...this.listeners]) listener();
    // A binding that stopped takes its Board items along; one that became active has none yet.
    this.boards.republish();
  }

  private record(update: PluginBindingPayload): void {
    try {
      this.options.host.record(update);
    } catch (error) {
      this.options.log.log("error", "could not record a plugin binding update", { error, attributes: { pluginId: update.pluginId, state: update.state } });
    }
  }

  private noteFailure(key: string): void {
    const now = this.clock.now();
    this.failures.set(key, [...(this.failures.get(key) ?? []).filter((t) => now - t < CRASH_WINDOW_MS), now]);
  }

  private recentFailures(key: string): number {
    const now = this.clock.now();
    return (this.failures.get(key) ?? []).filter((t) => now - t < CRASH_WINDOW_MS).length;
  }

  private logDir(): Promise<unknown> {
    this.logDirReady ??= fs.promises.mkdir(this.catalog.paths.logs, { recursive: true, mode: 0o700 }).catch(() => undefined);
    return this.logDirReady;
  }

  private pluginLog(instance: InstanceSettings, version: string): Logger {
    const provenance = { source: "plugin" as const, pluginId: instance.pluginId, pluginInstanceId: instance.pluginInstanceId, packageVersion: version };
    let file = this.logs.get(instance.pluginId);
    if (file === undefined) {
      file = createSessionLog({ path: pluginLogFile(this.catalog.paths, instance.pluginId), batonSessionId: this.options.session.batonSessionId, clock: this.clock, minLevel: "debug" });
      this.logs.set(instance.pluginId, file);
    }
    return tee(this.options.log.childWith("plugin", provenance), file.childWith("plugin", provenance));
  }

  /** One queue per plugin id: operations on any instance of the same plugin never interleave. */
  private serialByRef<T>(ref: PluginRef, fn: () => Promise<T>): Promise<T> {
    return this.serial(ref.pluginId, fn);
  }

  private serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    this.queues.set(key, next.catch(() => undefined));
    return next;
  }
}
