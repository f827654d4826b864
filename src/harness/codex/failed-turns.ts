/**
 * A failed prompt is never sent again (#12.9, Codex's side). Measured with codex 0.171.0: a turn that failed
 * (HTTP 500, `response.failed`) stays in the thread as an unanswered user message, and every later request
 * carries it — so a prompt that makes the API fail would fail every later turn. After a driven turn fails,
 * Baton takes it out of the thread with `thread/revert {beforeTurnId}` (stable; ~30 ms; a later resume in a new
 * process no longer has it either), before the next turn starts. Until it is done the pending revert rides in
 * the resume state, so a Baton restarted in between still does it.
 */
import { describeError } from "../../shared/errors.ts";
import type { TurnId } from "../../shared/ids.ts";
import type { Logger } from "../../shared/log.ts";
import type { BindingSink, ResumeState } from "../contract.ts";
import type { CodexSession } from "./session.ts";
import { CONTROL_TIMEOUT_MS } from "./wire.ts";

export const DROPPED_TURN_NOTICE = "Codex will not see this prompt again: the failed turn is taken out of the thread. Send the prompt again to retry.";

export interface FailedTurnDeps {
  /** `thread/revert` on this session's thread. */
  revert(beforeTurnId: string): Promise<unknown>;
  /** Publish the resume state, with the revert still to do (or none). */
  publish(revertBefore: string | undefined): void;
  warn(message: string, error: unknown): void;
}

export class FailedTurns {
  private pending: string | undefined;
  private running: Promise<void> | undefined;

  /** `stored`: a revert the previous Baton process recorded but may not have done. */
  constructor(
    private readonly deps: FailedTurnDeps,
    stored?: string,
  ) {
    if (stored !== undefined) {
      this.pending = stored;
      this.running = this.attempt(stored);
    }
  }

  /** A driven Codex turn failed: take it out of the thread now (the next turn waits for it). */
  drop(nativeTurnId: string): void {
    this.pending = nativeTurnId;
    this.deps.publish(nativeTurnId);
    this.running = this.attempt(nativeTurnId);
  }

  /**
   * Before a new turn: the pending revert is done (tried once more if it failed). Returns why the failed
   * prompt is still in the thread, or undefined when it is not.
   */
  async settle(): Promise<string | undefined> {
    if (this.running !== undefined) await this.running;
    const left = this.pending;
    if (left === undefined) return undefined;
    try {
      await this.deps.revert(left);
      this.done(left);
      return undefined;
    } catch (error) {
      if (isGone(error)) {
        this.done(left);
        return undefined;
      }
      this.pending = undefined;
      this.deps.publish(undefined);
      return describeError(error);
    }
  }

  private async attempt(nativeTurnId: string): Promise<void> {
    try {
      await this.deps.revert(nativeTurnId);
      this.done(nativeTurnId);
    } catch (error) {
      if (isGone(error)) this.done(nativeTurnId);
      else this.deps.warn(`thread/revert of failed turn ${nativeTurnId} failed`, error);
    } finally {
      this.running = undefined;
    }
  }

  private done(nativeTurnId: string): void {
    if (this.pending !== nativeTurnId) return;
    this.pending = undefined;
    this.deps.publish(undefined);
  }
}

/** "turn not found": it is no longer in the thread (reverted before, e.g. by the previous process). */
function isGone(error: unknown): boolean {
  return /turn not found/i.test(describeError(error));
}

/**
 * Publish the thread's identity (with a revert a previous process recorded and may not have done) and give the
 * session its FailedTurns: reverts go to its thread, pending ones into the resume state (`revertBefore`).
 */
export function trackFailedTurns(session: CodexSession, binding: BindingSink, open: { readonly version: number; readonly fresh: boolean; readonly stored: ResumeState | undefined }, log: Logger): void {
  const value = open.fresh || open.stored?.version !== open.version ? undefined : open.stored.data["revertBefore"];
  const stored = typeof value === "string" && value !== "" ? value : undefined;
  const resumeState = (revertBefore: string | undefined): ResumeState => ({ version: open.version, data: { threadId: session.threadId, ...(revertBefore === undefined ? {} : { revertBefore }) } });
  binding.publishIdentity({ harnessSessionId: session.threadId, resumeState: resumeState(stored), fresh: open.fresh });
  session.failedTurns = new FailedTurns(
    {
      revert: (beforeTurnId) => session.call("thread/revert", { threadId: session.threadId, beforeTurnId }, CONTROL_TIMEOUT_MS),
      publish: (revertBefore) => binding.publishIdentity({ harnessSessionId: session.threadId, resumeState: resumeState(revertBefore), fresh: false }),
      warn: (message, error) => log.log("warn", message, { error }),
    },
    stored,
  );
}

/** Before a new turn: a failed turn is out of the thread, or the user is told (on the new turn) that it is not. */
export async function leaveFailedTurnsBehind(session: CodexSession, turnId: TurnId): Promise<void> {
  const problem = await session.failedTurns?.settle();
  if (problem === undefined) return;
  const title = "Codex could not take the failed prompt of an earlier turn out of the thread; it will see it again";
  session.deps.sink.emit({ kind: "_baton_notice", payload: { level: "warning", title, detail: problem }, turnId });
}
