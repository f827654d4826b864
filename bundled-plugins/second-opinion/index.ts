/**
 * baton/second-opinion: after one agent's editing turn, suggest that another target reviews that turn's
 * diff; after the review, suggest sending the findings back. Every step waits for the user. See README.md.
 */
import { definePlugin } from "baton-plugin";
import { TURN_TYPE } from "./src/loop-api.ts";
import { REVIEW_TYPE, TRACKER_REF, TRACKER_TYPE } from "./src/review-state.ts";
import { readSettings, SecondOpinion } from "./src/reviewer.ts";

export default definePlugin({
  pluginId: "baton/second-opinion",
  version: "0.1.0",
  activate(ctx) {
    const { settings, problems } = readSettings(ctx.instance.config);
    for (const problem of problems) ctx.logger.warn(`plugin.yaml ${ctx.instance.key}: ${problem}`);
    const loop = new SecondOpinion(ctx, settings);
    ctx.registerController({
      resourceType: TRACKER_TYPE,
      watches: [{ resourceType: TURN_TYPE, create: () => [{ name: TRACKER_REF.name }] }],
      reconcile: (baton, tracker) => loop.reconcileTracker(baton, tracker),
      present: (tracker) => {
        const problem = (tracker.status as { problem?: string }).problem;
        return problem === undefined ? undefined : { title: "Second opinion", status: "no diffs", detail: problem, tone: "warning" };
      },
    });
    ctx.registerController({ resourceType: REVIEW_TYPE, reconcile: (_baton, review) => loop.reconcileReview(review), present: (review) => loop.presentReview(review) });
    void loop.ensureTracker().catch((error: unknown) => ctx.logger.error("could not create the Tracker resource", { error }));
  },
});
