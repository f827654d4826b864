/**
 * The interactive open uses a checkpoint before its ledger digest is checked (so the first frame does
 * not wait for a read of the whole prefix) and checks it right after (#12.11). On a mismatch the
 * projection is rebuilt from the whole ledger as soon as no driven turn runs, recovery runs on the true
 * history, and a notice on the timeline says what happened. Until the check has passed, no checkpoint
 * is written from the unverified state.
 */
import fs from "node:fs";
import type { Controller } from "../controller/controller.ts";
import type { ProjectionState } from "../projection/index.ts";
import type { Logger } from "../shared/log.ts";
import { checkpointPathFor, loadState, type Ledger, type LoadedState, type StateFold } from "../store/index.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

export const STALE_CHECKPOINT_NOTICE = "The saved checkpoint did not match the session's ledger; the session was re-read from the ledger";

export interface HistoryCheck {
  /** Run the check (memoized); resolves once it passed or the projection was rebuilt. */
  verify(): Promise<void>;
  /** Resolves when a checkpoint may be written: the check passed, or the projection was rebuilt. */
  readonly writable: Promise<boolean>;
  /** At close: a stale checkpoint that was never replaced is removed, so the next open replays fully. */
  discardIfStale(): void;
  /** The projection was rebuilt: the checkpoint on disk is stale however short the tail, and close replaces it. */
  readonly rebuilt: boolean;
}

export interface HistoryCheckDeps {
  readonly loaded: LoadedState<ProjectionState>;
  readonly ledger: Ledger;
  readonly fold: StateFold<ProjectionState>;
  readonly controller: () => Controller;
  readonly log: Logger;
  readonly closed: () => boolean;
}

export function createHistoryCheck(deps: HistoryCheckDeps): HistoryCheck {
  const pending = deps.loaded.verifyCheckpoint;
  if (pending === undefined) {
    return { verify: () => Promise.resolve(), writable: Promise.resolve(true), discardIfStale: () => undefined, rebuilt: false };
  }
  let allow: (ok: boolean) => void = () => undefined;
  const writable = new Promise<boolean>((resolve) => (allow = resolve));
  let stale = false;
  let rebuilt = false;
  let running: Promise<void> | undefined;
  const rebuild = async (problem: string): Promise<void> => {
    stale = true;
    deps.log.log("warn", "the checkpoint did not match the ledger; rebuilding the projection from the whole ledger", { attributes: { problem } });
    const controller = deps.controller();
    for (;;) {
      if (deps.closed()) return allow(false);
      await controller.whenIdle();
      if (deps.closed()) return allow(false);
      if (controller.busy) continue; // a turn was submitted in between: wait for it
      // The true projection replaces the one the checkpoint gave; recovery then closes what it left open.
      controller.pipeline.reset(loadState(deps.ledger, deps.fold, { useCheckpoint: false }).state);
      controller.recover();
      break;
    }
    stale = false;
    rebuilt = true;
    controller.pipeline.append({ kind: "_baton_notice", source: BATON_SOURCE, payload: { level: "warning", title: STALE_CHECKPOINT_NOTICE, detail: problem } });
    allow(true);
  };
  return {
    writable,
    get rebuilt() {
      return rebuilt;
    },
    verify() {
      running ??= pending().then(
        (problem) => (problem === undefined ? allow(true) : rebuild(problem)),
        (error: unknown) => rebuild(`the check failed: ${String(error)}`),
      );
      return running;
    },
    discardIfStale() {
      if (!stale) return;
      try {
        fs.rmSync(checkpointPathFor(deps.ledger.path), { force: true });
      } catch (error) {
        deps.log.log("warn", "could not remove a stale checkpoint", { error });
      }
    },
  };
}
