/**
 * baton/test-watch: after a turn that edits files, run the project's tests; when they newly fail, suggest
 * "fix the failing tests" to the agent that made the edit, with the output as context. See README.md.
 */
import { definePlugin } from "baton-plugin";
import { TURN_TYPE } from "./src/loop-api.ts";
import { readSettings } from "./src/settings.ts";
import { FAILURE_TYPE, presentWatch, asWatchStatus, WATCH_NAME, WATCH_TYPE } from "./src/watch-state.ts";
import { TestWatcher } from "./src/watcher.ts";

export const PLUGIN_ID = "baton/test-watch";
export const VERSION = "0.1.0";

export default definePlugin({
  pluginId: PLUGIN_ID,
  version: VERSION,
  activate(ctx) {
    const { settings, problems } = readSettings(ctx.instance.config);
    for (const problem of problems) ctx.logger.warn(`plugin.yaml ${ctx.instance.key}: ${problem}`);
    const watcher = new TestWatcher(ctx, settings, problems);
    // The command the Board shows before the first run (settings, package.json or the answer).
    let known: string | undefined;
    ctx.registerCommand({
      name: "tests",
      description: "Show the last test run's output; /tests run runs the tests now",
      execute: async ({ argument }) => ({ kind: "message", text: await watcher.commandText(argument) }),
    });
    ctx.registerController({
      resourceType: WATCH_TYPE,
      // Every finished turn wakes the one TestWatch; its reconcile decides whether the turn edited files.
      watches: [{ resourceType: TURN_TYPE, create: () => [{ name: WATCH_NAME }] }],
      reconcile: async (baton, watch) => {
        const result = await watcher.reconcileWatch(baton, watch);
        known = (await watcher.command(asWatchStatus(watch.status)))?.command;
        return result;
      },
      present: (watch) => presentWatch(asWatchStatus(watch.status), known ?? settings.command, problems),
    });
    ctx.registerController({ resourceType: FAILURE_TYPE, reconcile: (_baton, failure) => watcher.reconcileFailure(failure) });
    ctx.onClose(() => watcher.stop());
    // Not awaited: activation stays short; the controllers' start picks the resource up either way.
    void watcher.ensureWatch().catch((error: unknown) => ctx.logger.error("could not create the TestWatch resource", { error }));
  },
});
