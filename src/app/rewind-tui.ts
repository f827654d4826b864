/** The TUI's `/rewind` port over an open session (the TUI never imports the git room or the store). */
import type { SessionStore } from "../store/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdSource } from "../shared/ids.ts";
import type { TuiRewind } from "../tui/index.ts";
import type { OpenedSession } from "./open-session.ts";
import { describePoint, performRewind, planRewind, rewindPoints, rewindSessionOf, type RewindPlan } from "./rewind.ts";

export function tuiRewindOf(opened: OpenedSession, deps: { readonly store: SessionStore; readonly ids: IdSource; readonly clock: Clock; readonly env: Readonly<Record<string, string | undefined>> }): TuiRewind {
  const session = rewindSessionOf(opened, deps);
  const plans = new Map<string, RewindPlan>();
  return {
    points: () =>
      rewindPoints(session).map((point) => ({
        id: point.id,
        label: describePoint(point),
        detail: `${point.ts.slice(0, 16).replace("T", " ")}${point.harnessTargetId === null ? "" : ` · ${point.harnessTargetId}`} · ${point.id}`,
      })),
    async preview(pointId) {
      const plan = await planRewind(session, pointId);
      plans.set(pointId, plan);
      return { pointId, label: plan.label, files: plan.files, ...(plan.refused ? { refused: plan.refused.message } : {}) };
    },
    async perform(preview) {
      const plan = plans.get(preview.pointId);
      if (plan === undefined) throw new Error(`no preview of ${preview.pointId} to perform`);
      const done = await performRewind(session, plan);
      const files = done.restored.written.length + done.restored.deleted.length;
      return {
        newSessionId: done.newSessionId,
        summary: `Rewound ${plan.label}: ${files} file${files === 1 ? "" : "s"} restored. Now in ${done.newSessionId}; ${opened.ref.batonSessionId} is kept (/rewind → undo goes back).`,
      };
    },
  };
}
