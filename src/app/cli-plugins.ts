/**
 * Plugins in `baton exec` and `baton repl`: the session's enabled plugins run as they do in the TUI (their
 * proposals are ledger facts the printer shows as `[suggestion from <plugin>] …` lines), but nothing can be
 * asked interactively — a plugin that needs consent again stays disabled — and a proposal always needs a
 * person: there is no `--accept-proposals`. Toasts are stderr lines.
 *
 * With no `plugin.yaml` no plugin is enabled: unless the session still shows a binding a dead process left
 * active (the manager's start closes it), the plugin host, its catalog and the YAML and cron libraries are not
 * loaded at all — a one-shot `exec` pays nothing for plugins it does not have.
 */
import fs from "node:fs";
import { pluginPaths } from "../plugin/paths.ts";
import { describeError } from "../shared/errors.ts";
import type { AppContext } from "./app-context.ts";
import type { CliIo } from "./io.ts";
import type { OpenedSession } from "./open-session.ts";

export interface CliPlugins {
  /** Whether any plugin runs for this session (false: nothing but the controller reads its turns). */
  readonly active: boolean;
  /** Wait (at most `timeoutMs`) until no reconcile is pending or running, e.g. the one after the last turn. */
  settle(timeoutMs: number): Promise<void>;
}

/** Whether this session may have a plugin to start or a binding to close: else the plugin host is not loaded. */
export function mayHavePlugins(home: string, opened: OpenedSession): boolean {
  if (fs.existsSync(pluginPaths(home).settings)) return true;
  return Object.values(opened.controller.state.plugins).some((item) => item.state === "active");
}

export async function startCliPlugins(ctx: AppContext, opened: OpenedSession, io: CliIo): Promise<CliPlugins> {
  const controller = opened.controller;
  if (!mayHavePlugins(ctx.home, opened)) return { active: false, settle: () => controller.pipeline.sync() };
  const { sessionManager } = await import("./plugins.ts");
  const manager = sessionManager(ctx, opened, {
    toast: (text, tone, pluginId) => io.stderr.write(`[plugin ${pluginId}] ${tone === "info" ? "" : `${tone}: `}${text}\n`),
    askConsent: async () => false,
    reservedCommands: new Set(),
  });
  opened.addCloser(() => manager.close());
  try {
    const report = await manager.start();
    for (const failure of report.failures) io.stderr.write(`baton: plugin ${failure.key} did not start: ${failure.detail}\n`);
  } catch (error) {
    io.stderr.write(`baton: plugins did not start: ${describeError(error)}\n`);
  }
  return {
    active: true,
    settle: async (timeoutMs) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      await Promise.race([manager.idle(), limit]);
      clearTimeout(timer);
      await controller.pipeline.sync();
    },
  };
}
