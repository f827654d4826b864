/**
 * A Binding: one activation of a plugin instance in this session (plugins.md §3). States
 * `pending → spawning → activating → active → closing → closed`, any stage → `failed(reason)`. Its
 * registrations take effect only on `active` (atomically) and are withdrawn on failure or close; every
 * transition to active/failed/closed is reported once to the manager, which records it in the ledger.
 */
import path from "node:path";
import type { PluginReasonCode } from "../event/kinds.ts";
import type { ChildStream } from "../rpc/process-handle.ts";
import { systemClock, type Clock } from "../shared/clock.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import type { Logger, LogLevel } from "../shared/log.ts";
import type { LoadedInstall } from "./install/installed.ts";
import { createDataDirs } from "./paths.ts";
import { scrubEnvironment } from "./permissions.ts";
import { BoardPresenter } from "./board-presenter.ts";
import type { BoardGroupInput } from "./board.ts";
import { ControllerHost } from "./resources/controller-host.ts";
import { FairCapacity } from "./resources/keyed-queue.ts";
import type { ReconcileOutput } from "./resources/outputs.ts";
import { answerResourceRequest, answerSourceEmit } from "./resources/requests.ts";
import { parseTypeKey, sameType, TURN_TYPE, type ResourceObject } from "./resources/schema.ts";
import { ResourceStore } from "./resources/store.ts";
import {
  PROTOCOL_VERSION,
  type CommandResultWire,
  type ControllerRegistrationWire,
  type NotificationOf,
  type Registration,
  type ResultOf,
  type RunnerNotification,
} from "./protocol.ts";
import type { InstanceSettings } from "./settings.ts";
import { registrationProblem } from "./registration-check.ts";
import { RunnerSupervisor, type FailureCode, type SupervisorTimings } from "./supervisor.ts";

export type BindingState = "pending" | "spawning" | "activating" | "active" | "closing" | "closed" | "failed";
export type BindingReasonCode = FailureCode | "activation" | Exclude<PluginReasonCode, FailureCode | "activation">;

export interface BindingReason {
  readonly code: BindingReasonCode;
  readonly detail?: string;
}

export interface BindingSession {
  readonly batonSessionId: string;
  readonly cwd: string;
  /** The project's directory in the store and the session's directory (plugin data dirs go under both). */
  readonly projectDir: string;
  readonly sessionDir: string;
}

export interface BindingDeps {
  readonly instance: InstanceSettings;
  /** Undefined when the install could not be loaded: the binding is then failed from the start. */
  readonly install: LoadedInstall | undefined;
  readonly loadFailure?: BindingReason;
  readonly session: BindingSession;
  /** `$BATON_HOME/plugins` (global data dirs go under it). */
  readonly pluginsRoot: string;
  readonly runner: { readonly file: string; readonly args: readonly string[] };
  /** The user's environment (scrubbed before it reaches the runner). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Baton's own command names: a plugin command may not shadow them. */
  readonly reservedCommands: ReadonlySet<string>;
  /** Records stamped with this plugin's provenance (session log and plugin log). */
  readonly log: Logger;
  readonly timings?: Partial<SupervisorTimings>;
  readonly clock?: Clock;
  /** The Manager-wide reconcile capacity (shared, round-robin across bindings). */
  readonly capacity?: FairCapacity;
  /** The BatonSnapshot for a reconcile (REC-09). */
  readonly snapshot?: () => unknown;
  /** A resource's plugin questions and their outcomes (PIX-01: `pluginInteractions`). */
  readonly interactions?: (binding: PluginBinding, resource: ResourceObject) => unknown[];
  /** The session's Turn resources (RES-06), derived from its turn summaries. */
  readonly turns?: () => readonly ResourceObject[];
  /** A resource changed (withdraws the proposals it outdates). */
  readonly resourceChanged?: (binding: PluginBinding, object: ResourceObject, gone: boolean) => void;
  /** A validated reconcile output (proposal or question). */
  readonly publish?: (binding: PluginBinding, controllerId: string, resource: ResourceObject, output: ReconcileOutput) => void | Promise<void>;
  /** active / failed / closed, once each. */
  readonly onSettled: (binding: PluginBinding) => void;
  readonly onToast: (binding: PluginBinding, text: string, tone: "info" | "success" | "warning" | "error") => void;
  /** Its Board items changed (presented, withdrawn). */
  readonly onBoard?: (binding: PluginBinding) => void;
}

/** What a command call carries besides its argument (CMD-01: a picker's choice, a remote search query). */
export type CommandCall = { readonly selectedValue?: string; readonly searchQuery?: string };

const SEARCH_DEADLINE_MS = 3_000;
const STDOUT_LEVEL: Readonly<Record<ChildStream, LogLevel>> = { stdout: "debug", stderr: "warn" };

export class PluginBinding {
  private current: BindingState = "pending";
  private why: BindingReason | undefined;
  private supervisor: RunnerSupervisor | undefined;
  private registered: readonly Registration[] = [];
  private closing: Promise<void> | undefined;
  private store: ResourceStore | undefined;
  private controllers: ControllerHost | undefined;
  private presenter: BoardPresenter | undefined;

  constructor(private readonly deps: BindingDeps) {
    if (deps.install === undefined) {
      this.current = "failed";
      this.why = deps.loadFailure ?? { code: "activation", detail: "the package could not be loaded" };
    }
  }

  get state(): BindingState {
    return this.current;
  }

  get reason(): BindingReason | undefined {
    return this.why;
  }

  get instance(): InstanceSettings {
    return this.deps.instance;
  }

  get treeDigest(): string {
    return this.deps.install?.receipt.treeDigest ?? "unknown";
  }

  get pluginId(): string {
    return this.deps.instance.pluginId;
  }

  get version(): string {
    return this.deps.install?.receipt.version ?? this.deps.instance.version;
  }

  /** What an active binding registered (empty in every other state). */
  get registrations(): readonly Registration[] {
    return this.current === "active" ? this.registered : [];
  }

  get runnerPid(): number | undefined {
    return this.supervisor?.pid;
  }

  get runnerRss(): number {
    return this.supervisor?.rssBytes ?? 0;
  }

  /** The controllers of an active binding (undefined when it registered none). */
  get controllerHost(): ControllerHost | undefined {
    return this.controllers;
  }

  /** What its presenting controllers show on the Board (empty unless active). */
  boardInputs(): readonly BoardGroupInput[] {
    return this.current === "active" ? (this.presenter?.inputs() ?? []) : [];
  }

  /** The Board cache, for tests and benches (undefined when nothing presents). */
  get board(): BoardPresenter | undefined {
    return this.presenter;
  }

  /** This instance's resources in this session (once the binding started). */
  get resources(): ResourceStore | undefined {
    return this.store;
  }

  /** Spawn, initialize, check registrations; resolves once active or failed (never rejects). */
  async start(): Promise<void> {
    const { instance, install, session } = this.deps;
    if (this.current !== "pending" || install === undefined) return;
    const manifest = install.checked.manifest;
    this.current = "spawning";
    let dataDirs: { global: string; project: string; session: string; instance: string };
    try {
      dataDirs = await createDataDirs({ pluginsRoot: this.deps.pluginsRoot, projectDir: session.projectDir, sessionDir: session.sessionDir }, instance.pluginId, instance.pluginInstanceId);
    } catch (error) {
      this.failWith({ code: "spawn", detail: `could not create its data directories: ${describeError(error)}` });
      return;
    }
    if (this.closing !== undefined) return;
    const store = new ResourceStore({
      root: path.join(session.sessionDir, "plugins", instance.pluginInstanceId, "resources"),
      namespace: instance.pluginInstanceId,
      owned: manifest.permissions.resourceTypes.map(parseTypeKey),
      reconciled: manifest.contributes.controllers.map((c) => parseTypeKey(c.resourceType)),
      derived: (type) => (sameType(type, TURN_TYPE) ? () => this.deps.turns?.() ?? [] : undefined),
      clock: this.deps.clock ?? systemClock,
      log: this.deps.log,
    });
    this.store = store;
    store.onChange((change) => {
      if (!store.isDerived(change.object)) this.deps.resourceChanged?.(this, change.object, change.reason === "deleted");
    });
    try {
      const swept = await store.sweepTerminating();
      if (swept > 0) this.deps.log.log("info", `${swept} deleted resource(s) of types no controller reconciles removed`);
    } catch (error) {
      this.deps.log.log("warn", `could not remove deleted resources left by an earlier run: ${describeError(error)}`);
    }
    if (this.closing !== undefined) return;
    const env = {
      ...scrubEnvironment(this.deps.env, manifest.permissions.env),
      BATON_PLUGIN_ID: instance.pluginId,
      BATON_PLUGIN_INSTANCE_ID: instance.pluginInstanceId,
      BATON_PLUGIN_VERSION: install.receipt.version,
    };
    const supervisor = new RunnerSupervisor({
      label: `plugin ${instance.pluginId}`,
      command: this.deps.runner,
      cwd: session.cwd,
      env,
      memoryMb: manifest.limits.memoryMb,
      log: this.deps.log,
      ...(this.deps.timings === undefined ? {} : { timings: this.deps.timings }),
      onOutput: (stream, line) => this.deps.log.log(STDOUT_LEVEL[stream], line, { attributes: { stream } }),
      onNotification: (method, params) => this.notification(method, params),
      onRequest: (method, params) => (method === "source/emit" ? answerSourceEmit(this.controllers, params) : answerResourceRequest(store, method, params)),
      onFailure: (failure) => this.failWith({ code: failure.code, detail: this.current === "activating" ? `during activation: ${failure.detail}` : failure.detail }),
    });
    this.supervisor = supervisor;
    this.current = "activating";
    let result;
    try {
      result = await supervisor.call("runner/initialize", {
        protocolVersion: PROTOCOL_VERSION,
        entry: { pluginId: instance.pluginId, version: install.receipt.version, path: install.checked.entryPath, packageRoot: install.checked.root },
        instance: { pluginInstanceId: instance.pluginInstanceId, key: instance.key },
        session: { batonSessionId: session.batonSessionId, cwd: session.cwd },
        dataDirs,
        config: instance.config,
        permissions: manifest.permissions,
      });
    } catch (error) {
      if (this.current === "activating") this.failWith({ code: "activation", detail: describeError(error) });
      return;
    }
    if (this.current !== "activating") return;
    const problem = registrationProblem(result.registrations, this.deps.install?.checked.manifest, this.deps.reservedCommands);
    if (problem !== undefined) {
      this.failWith({ code: "activation", detail: problem });
      return;
    }
    this.registered = result.registrations;
    this.current = "active";
    this.deps.log.log("info", "plugin active", { attributes: { pid: supervisor.pid, registrations: result.registrations.length } });
    this.deps.onSettled(this);
    // Controllers stay suspended until the binding is active (MGR-01).
    const controllers = result.registrations.filter((r): r is ControllerRegistrationWire => r.type === "controller");
    const presenting = controllers.filter((c) => c.present);
    if (presenting.length > 0) this.startBoard(supervisor, store, presenting);
    if (controllers.length > 0 && this.current === "active") await this.startControllers(supervisor, store, controllers);
  }

  /** The Board cache: presents in the background, tells the manager when its items changed. */
  private startBoard(supervisor: RunnerSupervisor, store: ResourceStore, controllers: readonly ControllerRegistrationWire[]): void {
    const presenter = new BoardPresenter({
      pluginInstanceId: this.instance.pluginInstanceId,
      pluginId: this.pluginId,
      store,
      controllers,
      present: (controllerId, resource) => supervisor.call("controller/present", { controllerId, resource: resource as never }),
      log: this.deps.log,
      changed: () => {
        if (this.current === "active") this.deps.onBoard?.(this);
      },
    });
    this.presenter = presenter;
    void presenter.start().catch((error: unknown) => this.deps.log.log("error", `the Board could not start: ${describeError(error)}`));
  }

  private async startControllers(supervisor: RunnerSupervisor, store: ResourceStore, controllers: readonly ControllerRegistrationWire[]): Promise<void> {
    const manifest = this.deps.install?.checked.manifest;
    const host = new ControllerHost({
      owner: this.instance.pluginInstanceId,
      store,
      controllers,
      capacity: this.deps.capacity ?? new FairCapacity(1),
      clock: this.deps.clock ?? systemClock,
      log: this.deps.log,
      reconcileTimeoutMs: manifest?.limits.reconcileTimeoutMs ?? 30_000,
      port: {
        reconcile: (params, deadlineMs) => supervisor.call("controller/reconcile", params as never, { deadlineMs }),
        mapWatch: (params) => supervisor.call("watch/map", params as never),
        snapshot: () => this.deps.snapshot?.() ?? {},
        interactions: (resource) => this.deps.interactions?.(this, resource) ?? [],
        publish: (controllerId, resource, output) => this.deps.publish?.(this, controllerId, resource, output),
        failed: (resource, detail) => this.deps.onToast(this, `Plugin reconcile failed for ${resource.kind}/${resource.name}: ${detail}`.slice(0, 500), "error"),
        startSource: (params) => supervisor.call("source/start", params),
        sourceFailed: (sourceId, detail) => this.deps.onToast(this, `Plugin source ${sourceId} failed: ${detail}`.slice(0, 500), "error"),
      },
      cronFile: path.join(this.deps.session.sessionDir, "plugins", this.instance.pluginInstanceId, "cron.json"),
    });
    this.controllers = host;
    try {
      await host.start();
    } catch (error) {
      this.deps.log.log("error", `controllers could not start: ${describeError(error)}`);
    }
  }

  /** Reconcile a resource again (a plugin question about it was answered). */
  wake(ref: { readonly apiVersion: string; readonly kind: string; readonly name: string }): void {
    if (this.current === "active") this.controllers?.wake(ref);
  }

  /** A turn ended: its Turn resource wakes the controllers and watches of Turns. */
  turnEnded(turn: ResourceObject): void {
    if (this.current === "active") this.store?.announce(turn);
  }

  /** Run one of its commands (rejects unless active; a deadline cancels the call, the binding lives on). */
  async execute(commandId: string, argument: string, call: CommandCall = {}): Promise<CommandResultWire> {
    const supervisor = this.supervisor;
    if (this.current !== "active" || supervisor === undefined) throw new BatonError("plugin_failed", `${this.pluginId} is not active (${this.current})`);
    if (!this.registered.some((r) => r.type === "command" && r.commandId === commandId)) throw new BatonError("usage", `${this.pluginId} has no command ${commandId}`);
    // A remote search is answered within 3 s (CMD-01) or dropped; a run or a choice gets the row's 30 s.
    return supervisor.call("command/execute", { commandId, argument, ...call }, call.searchQuery === undefined ? {} : { deadlineMs: SEARCH_DEADLINE_MS });
  }

  /** `@` candidates of one of its context providers (the plugin's own kind); 3 s, [] on any failure. */
  async contextSearch(kind: string, query: string, limit: number): Promise<ResultOf<"context/search">> {
    const supervisor = this.activeSupervisor();
    return supervisor.call("context/search", { providerKind: kind, query, limit }, { deadlineMs: SEARCH_DEADLINE_MS });
  }

  /** The text a reference names (only after submit, CTXP-01), or null when the id names nothing. */
  async contextProvide(kind: string, id: string, maxChars: number): Promise<ResultOf<"context/provide">> {
    return this.activeSupervisor().call("context/provide", { providerKind: kind, id, maxChars });
  }

  private activeSupervisor(): RunnerSupervisor {
    const supervisor = this.supervisor;
    if (this.current !== "active" || supervisor === undefined) throw new BatonError("plugin_failed", `${this.pluginId} is not active (${this.current})`);
    return supervisor;
  }

  /** Close (idempotent): withdraw registrations, stop the runner, report `closed` unless it had failed. */
  close(reason: BindingReason): Promise<void> {
    this.closing ??= this.shutdown(reason);
    return this.closing;
  }

  private async shutdown(reason: BindingReason): Promise<void> {
    const wasFailed = this.current === "failed";
    const wasPending = this.current === "pending";
    if (!wasFailed) this.current = "closing";
    // Stop the controllers first (no new reconcile), close the runner (pending calls rejected), then let
    // the running reconciles settle: no promise outlives the binding.
    const controllers = this.controllers?.close();
    const board = this.presenter?.close();
    await this.supervisor?.close();
    await controllers;
    await board;
    if (wasFailed) return;
    this.current = "closed";
    this.why = reason;
    this.registered = [];
    if (!wasPending) this.deps.onSettled(this);
  }

  private failWith(reason: BindingReason): void {
    if (this.current === "failed" || this.current === "closed" || this.current === "closing") return;
    this.current = "failed";
    this.why = reason;
    this.registered = [];
    void this.controllers?.close();
    void this.presenter?.close();
    this.deps.log.log("error", `plugin stopped: ${reason.code}${reason.detail === undefined ? "" : ` (${reason.detail})`}`);
    // A failure found by the binding (activation) still has to stop the runner; reaped in the background.
    if (this.supervisor !== undefined && this.supervisor.failed === undefined) void this.supervisor.close();
    this.deps.onSettled(this);
  }

  private notification(method: RunnerNotification, params: unknown): void {
    if (method === "log/write") {
      const record = params as NotificationOf<"log/write">;
      this.deps.log.log(record.level, record.message, {
        ...(record.error === undefined ? {} : { error: record.error }),
        attributes: { ...(record.attributes ?? {}), ...(record.component === undefined ? {} : { pluginComponent: record.component }) },
      });
      return;
    }
    if (method === "toast/show") {
      const toast = params as NotificationOf<"toast/show">;
      if (this.current === "active") this.deps.onToast(this, toast.text, toast.tone ?? "info");
      return;
    }
    const failure = params as NotificationOf<"source/error">;
    this.controllers?.sourceError(failure.sourceRunId, failure.error.message);
  }
}
