/**
 * A plugin host on a temp BATON_HOME: the fixture plugin of plugins.md §8 (or a variant copied from it),
 * the real install pipeline (npm pack / npm install --offline), a PluginManager whose host port records
 * binding facts in memory, and cleanup that closes every runner and removes the temp tree.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PluginBindingPayload } from "../../src/event/kinds.ts";
import { PluginCatalog, type ConsentRequest } from "../../src/plugin/catalog.ts";
import { PluginManager, type PluginHostPort, type PluginOutput } from "../../src/plugin/manager.ts";
import { batonSnapshot } from "../../src/plugin/resources/snapshot.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { loopPort } from "../../src/app/plugin-loops.ts";
import type { SupervisorTimings } from "../../src/plugin/supervisor.ts";
import { initialState, reduce, type PluginBindingItem } from "../../src/projection/index.ts";
import { systemClock, type Clock } from "../../src/shared/clock.ts";
import { createSessionLog } from "../../src/store/session-log.ts";

export const FIXTURE_DIR = path.resolve(import.meta.dir, "../fixtures/plugins/fixture");
export const FIXTURE_ID = "baton-test/fixture";
/** The fixture for plugin loops: resources (and controllers, proposals, questions, Board as they land). */
export const LOOPS_DIR = path.resolve(import.meta.dir, "../fixtures/plugins/loops");
/** The fixture for the Board, plugin commands with pickers, a context provider and plugin questions. */
export const BOARD_DIR = path.resolve(import.meta.dir, "../fixtures/plugins/board");
export const BATON_VERSION = "0.1.0";

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The environment npm runs with in tests: PATH plus a temp HOME (its cache), nothing from the real home. */
export function npmEnv(home: string): Record<string, string> {
  return { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home, npm_config_update_notifier: "false", npm_config_loglevel: "error" };
}

/** Copy the fixture into `dir` and apply edits (manifest patch, extra files, index.js replacement). */
export function fixtureVariant(
  dir: string,
  edit: { manifest?: (m: Record<string, unknown>) => void; files?: Record<string, string>; version?: string } = {},
): string {
  cpSync(FIXTURE_DIR, dir, { recursive: true });
  const manifestFile = path.join(dir, ".baton-plugin", "plugin.json");
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, unknown>;
  if (edit.version !== undefined) {
    manifest["version"] = edit.version;
    const pkgFile = path.join(dir, "package.json");
    const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as Record<string, unknown>;
    pkg["version"] = edit.version;
    writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
    const index = path.join(dir, "index.js");
    writeFileSync(index, readFileSync(index, "utf8").replace('version: "0.1.0"', `version: "${edit.version}"`));
  }
  edit.manifest?.(manifest);
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  for (const [name, text] of Object.entries(edit.files ?? {})) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/**
 * Install the plugin in `dir` into the Baton home `batonHome` (npm's cache in a temp HOME under `npmHome`), give it
 * `config`, and enable it (consent granted), as `baton plugin install` + settings + enable would before Baton
 * starts. Returns its settings key (`<pluginId>@<marketplace>`).
 */
export async function installPlugin(options: { readonly batonHome: string; readonly npmHome: string; readonly dir: string; readonly config?: unknown }): Promise<string> {
  const catalog = new PluginCatalog({ home: options.batonHome, batonVersion: BATON_VERSION, npm: { env: npmEnv(options.npmHome) } });
  const installed = await catalog.install(options.dir);
  const key = `${installed.receipt.pluginId}@${installed.receipt.marketplace}`;
  if (options.config !== undefined) await catalog.settings.upsert(key, { enabled: false, version: installed.receipt.version, config: options.config });
  await catalog.enable({ pluginId: installed.receipt.pluginId }, async () => true);
  return key;
}

export interface PluginRig {
  readonly root: string;
  readonly home: string;
  readonly cwd: string;
  readonly catalog: PluginCatalog;
  readonly manager: PluginManager;
  /** Binding facts recorded so far, in order. */
  readonly updates: PluginBindingPayload[];
  readonly toasts: { text: string; tone: string; pluginId: string }[];
  readonly consents: ConsentRequest[];
  /** Reconcile outputs published so far. */
  readonly outputs: PluginOutput[];
  /** What the next consent question answers. */
  consentAnswer: boolean;
  projected(): Readonly<Record<string, PluginBindingItem>>;
  /** Put a binding fact into the projection as if a previous process had recorded it. */
  inject(update: PluginBindingPayload): void;
  /** Reduce any event into the rig's projection (e.g. a turn summary for the snapshot). */
  injectEvent(kind: string, payload: unknown, harnessTargetId?: string): void;
  /** Install the fixture (or a variant directory) and enable it; returns the instance key. */
  installAndEnable(source?: string, config?: unknown): Promise<string>;
  close(): Promise<void>;
}

export interface RigOptions {
  readonly env?: Record<string, string>;
  readonly timings?: Partial<SupervisorTimings>;
  readonly reserved?: readonly string[];
  /** The Manager's clock (controller timers, backoff, timestamps); the supervisor keeps the real one. */
  readonly clock?: Clock;
  /**
   * A real session to host the plugins in: binding facts go to its ledger, reconcile outputs through the
   * app's loop port (proposals as `proposed_input`, Turn resources from its summaries). Without it the rig
   * keeps binding facts in memory and only collects outputs.
   */
  readonly session?: OpenedSession;
}

export function createPluginRig(options: RigOptions = {}): PluginRig {
  const root = tempDir("baton-plugins-");
  const home = path.join(root, "home");
  const session = options.session;
  const cwd = session?.ref.meta.cwd ?? path.join(root, "project");
  const sessionDir = session?.ref.paths.dir ?? path.join(root, "session");
  for (const dir of [home, cwd, sessionDir]) mkdirSync(dir, { recursive: true });
  const catalog = new PluginCatalog({ home, batonVersion: BATON_VERSION, npm: { env: npmEnv(root) } });
  const updates: PluginBindingPayload[] = [];
  let state = initialState("bs_test");
  let seq = 0;
  const log = createSessionLog({ path: path.join(sessionDir, "session.log"), batonSessionId: "bs_test", clock: systemClock, minLevel: "debug" });
  const rig: PluginRig = {
    root,
    home,
    cwd,
    catalog,
    updates,
    toasts: [],
    consents: [],
    outputs: [],
    consentAnswer: true,
    projected: () => host.projected(),
    inject: (update) => host.record(update),
    injectEvent: (kind, payload, harnessTargetId) => {
      state = reduce(state, {
        v: 3,
        eventId: `ev_${++seq}` as never,
        seq,
        ts: new Date().toISOString(),
        scope: { type: "session", batonSessionId: "bs_test" as never },
        source: { type: "baton" },
        ...(harnessTargetId === undefined ? {} : { harnessTargetId }),
        kind,
        payload,
      } as never);
    },
    manager: undefined as unknown as PluginManager,
    async installAndEnable(source = FIXTURE_DIR, config?: unknown) {
      const installed = await catalog.install(source);
      const key = `${installed.receipt.pluginId}@${installed.receipt.marketplace}`;
      if (config !== undefined) await catalog.settings.upsert(key, { enabled: false, version: installed.receipt.version, config });
      await rig.manager.enable(installed.receipt.pluginId);
      return key;
    },
    async close() {
      await rig.manager.close();
      await log.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
  const host: PluginHostPort = {
    record(update) {
      updates.push(update);
      state = reduce(state, {
        v: 3,
        eventId: `ev_${++seq}` as never,
        seq,
        ts: new Date().toISOString(),
        scope: { type: "session", batonSessionId: "bs_test" as never },
        source: { type: "baton" },
        kind: "_baton_plugin_binding_update",
        payload: update,
      });
    },
    projected: () => state.plugins,
    toast: (text, tone, pluginId) => rig.toasts.push({ text, tone, pluginId }),
    askConsent: async (request) => {
      rig.consents.push(request);
      return rig.consentAnswer;
    },
    // No Controller here, so no configured targets (a rig with a session uses the session's loop port).
    snapshot: () => batonSnapshot(state, cwd, []),
    publish: (output) => void rig.outputs.push(output),
  };
  if (session !== undefined) {
    const controller = session.controller;
    const loops = loopPort(controller, { batonSessionId: session.ref.batonSessionId, cwd }, log);
    Object.assign(host, {
      ...loops,
      record: (update: PluginBindingPayload) => {
        updates.push(update);
        controller.pipeline.append({ kind: "_baton_plugin_binding_update", payload: update, source: { type: "baton" } });
      },
      projected: () => controller.state.plugins,
      publish: (output: PluginOutput) => {
        rig.outputs.push(output);
        return loops.publish(output);
      },
    });
  }
  (rig as { manager: PluginManager }).manager = new PluginManager({
    catalog,
    session: { batonSessionId: "bs_test", cwd, projectDir: path.join(root, "projectdir"), sessionDir },
    host,
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: root, ...options.env },
    log,
    reservedCommands: new Set(options.reserved ?? ["model", "exit", "plugins"]),
    ...(options.timings === undefined ? {} : { timings: options.timings }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return rig;
}
