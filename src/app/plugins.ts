/**
 * Plugins wired into the app: the catalog over `$BATON_HOME` (CLI), and per TUI session a Plugin Manager
 * whose host port is the Controller (binding facts appended through its pipeline, consent asked as a
 * Baton question card), closed after the harnesses and before the session is flushed.
 */
import path from "node:path";
import type { InteractionDraft, InteractionResolution } from "../event/interaction-types.ts";
import { PluginCatalog, type ConsentRequest } from "../plugin/catalog.ts";
import { PluginManager, type PluginHostPort } from "../plugin/manager.ts";
// The one TUI helper plugins need, by file: the TUI's index loads React and OpenTUI, which exec and repl never use.
import { pluginStoppedToast } from "../tui/plugins-view.ts";
import type { PluginTone, TuiPlugins } from "../tui/index.ts";
import type { AppContext } from "./app-context.ts";
import { packageVersion } from "./commands/help.ts";
import { syncContextProviders } from "./plugin-context.ts";
import type { OpenedSession } from "./open-session.ts";
import { loopPort } from "./plugin-loops.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

export const BUNDLED_PLUGINS_DIR = path.resolve(import.meta.dir, "../../bundled-plugins");
export const CONSENT_ENABLE = "Enable";
export const CONSENT_DECLINE = "Keep it disabled";

export function createCatalog(ctx: Pick<AppContext, "home" | "childEnv">, options: { bundledDir?: string } = {}): PluginCatalog {
  return new PluginCatalog({
    home: ctx.home,
    batonVersion: packageVersion(),
    npm: { env: ctx.childEnv, ...(ctx.childEnv["BATON_NPM"] ? { command: ctx.childEnv["BATON_NPM"] } : {}) },
    bundledDir: options.bundledDir ?? BUNDLED_PLUGINS_DIR,
  });
}

/** The consent card: a Baton question listing the permissions, saying plainly it is not a sandbox. */
export function consentDraft(request: ConsentRequest): InteractionDraft {
  const listed = request.growth === undefined ? request.lines : request.growth;
  const intro = request.growth === undefined ? "It asks to:" : "Its permissions grew since you enabled it:";
  return {
    type: "question",
    questions: [
      {
        questionId: "consent",
        header: `Enable plugin ${request.pluginId} ${request.version} (${request.marketplace})?`,
        question: [intro, ...listed.map((line) => `  • ${line}`), "", request.warning].join("\n"),
        options: [
          { label: CONSENT_ENABLE, description: "Start it in this session and remember the answer for this package" },
          { label: CONSENT_DECLINE, role: "reject" },
        ],
        allowOther: false,
      },
    ],
    pluginConsent: { key: request.key, pluginId: request.pluginId, version: request.version, treeDigest: request.treeDigest, permissions: request.permissions },
  } as InteractionDraft;
}

export function consentGiven(resolution: InteractionResolution): boolean {
  return resolution.outcome === "answered" && (resolution.answers["consent"] ?? []).includes(CONSENT_ENABLE);
}

/**
 * The Plugin Manager of an opened session, hosted by its Controller: binding facts go through the pipeline, the
 * projection answers what is bound, the loop port carries reconcile outputs. The surface (TUI, exec/repl) brings
 * how toasts show, how consent is asked and which command names are taken.
 */
export function sessionManager(
  ctx: Pick<AppContext, "home" | "childEnv">,
  opened: OpenedSession,
  surface: Pick<PluginHostPort, "toast" | "askConsent"> & { readonly reservedCommands: ReadonlySet<string> },
): PluginManager {
  const controller = opened.controller;
  return new PluginManager({
    catalog: createCatalog(ctx),
    session: { batonSessionId: opened.ref.batonSessionId, cwd: opened.ref.meta.cwd, projectDir: opened.ref.projectDir, sessionDir: opened.ref.paths.dir },
    host: {
      record: (update) => void controller.pipeline.append({ kind: "_baton_plugin_binding_update", payload: update, source: BATON_SOURCE }),
      projected: () => controller.state.plugins,
      toast: surface.toast,
      askConsent: surface.askConsent,
      ...loopPort(controller, { batonSessionId: opened.ref.batonSessionId, cwd: opened.ref.meta.cwd }, opened.log),
    },
    env: ctx.childEnv,
    log: opened.log,
    reservedCommands: surface.reservedCommands,
  });
}

/**
 * The session's plugins for the TUI; `start` activates the enabled ones (in the background). They close with
 * the session (after the harnesses), unless `closeWithSession` is false: then the caller runs `close()`.
 */
export function sessionPlugins(
  ctx: AppContext,
  opened: OpenedSession,
  reservedCommands: ReadonlySet<string>,
  options: { readonly closeWithSession?: boolean } = {},
): TuiPlugins & { readonly manager: PluginManager; close(): Promise<void> } {
  const controller = opened.controller;
  const toastListeners = new Set<(text: string, tone: PluginTone) => void>();
  const manager = sessionManager(ctx, opened, {
    toast: (text, tone, pluginId) => {
      for (const listener of [...toastListeners]) listener(`${pluginId}: ${text}`, tone);
    },
    askConsent: async (request) => consentGiven(await controller.askUser(consentDraft(request))),
    reservedCommands,
  });
  const stopProviders = syncContextProviders(manager, opened.contextProviders, opened.log);
  const close = (): Promise<void> => {
    stopProviders();
    return manager.close();
  };
  if (options.closeWithSession !== false) opened.addCloser(close);
  return {
    manager,
    close,
    list: async () =>
      (await manager.list()).map((row) => ({
        pluginId: row.pluginId,
        marketplace: row.marketplace,
        version: row.version,
        enabled: row.enabled,
        pluginInstanceId: row.pluginInstanceId,
        problem: row.problem,
      })),
    enable: async (pluginId) => void (await manager.enable(pluginId)),
    disable: async (pluginId) => void (await manager.disable(pluginId)),
    restart: async (pluginId) => void (await manager.restart(pluginId)),
    execute: (pluginInstanceId, commandId, argument, call) => manager.execute(pluginInstanceId, commandId, argument, call),
    log: (message, attributes) => opened.log.log("warn", message, { attributes }),
    board: () => manager.board,
    onBoard: (listener) => manager.onBoard(() => listener()),
    onToast: (listener) => {
      toastListeners.add(listener);
      const offEvents = controller.subscribe((event) => {
        const stopped = pluginStoppedToast(event);
        if (stopped !== undefined) listener(stopped, "error", 10_000);
      });
      return () => {
        toastListeners.delete(listener);
        offEvents();
      };
    },
  };
}
