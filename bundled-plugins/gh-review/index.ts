/**
 * baton/gh-review: the current branch's pull request review threads that are open and were not proposed
 * before become one suggestion (each file:line and reviewer, the threads in full). Read-only `gh` only.
 * See README.md.
 */
import { definePlugin } from "baton-plugin";
import { TURN_TYPE } from "./src/loop-api.ts";
import { BATCH_TYPE, POLL_CRON, presentWatch, pushedTurn, WATCH_REF, WATCH_TYPE, type WatchStatus } from "./src/review-threads.ts";
import { GhReview, readSettings } from "./src/watcher.ts";

export default definePlugin({
  pluginId: "baton/gh-review",
  version: "0.1.0",
  activate(ctx) {
    const { settings, problems } = readSettings(ctx.instance.config);
    for (const problem of problems) ctx.logger.warn(`plugin.yaml ${ctx.instance.key}: ${problem}`);
    const loop = new GhReview(ctx, settings);
    ctx.registerController({
      resourceType: WATCH_TYPE,
      sources: [
        // Baton's timer: every five minutes, persisted, one catch-up tick after Baton was not running.
        { type: "cron", sourceId: "poll", cron: POLL_CRON, timeZone: "UTC" },
        // The one watch the ticks reconcile, created at start (an identical emit only wakes it).
        { type: "resource", sourceId: "seed", start: (source) => source.emit({ name: WATCH_REF.name, spec: {} }) },
      ],
      // A turn that ran `git push` polls at once.
      watches: [{ resourceType: TURN_TYPE, create: (turn) => (pushedTurn(turn.spec) ? [{ name: WATCH_REF.name }] : []) }],
      reconcile: (baton, watch) => loop.reconcileWatch(baton, watch),
      present: (watch) => presentWatch(watch.status as WatchStatus),
    });
    ctx.registerController({ resourceType: BATCH_TYPE, reconcile: (_baton, batch) => loop.reconcileBatch(batch) });
  },
});
