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
import type { BindingSink, EventSink, ResumeState } from "../contract.ts";

const REVERT_FAILED_TITLE = "Codex could not take the failed prompt of an earlier turn out of the thread; it will see it again";

export const DROPPED_TURN_NOTICE = "Codex will not see this prompt again: the failed turn is taken out of the thread. Send the prompt again to retry.";

export interface FailedTurnDeps {
  /** `thread/revert` on this session's thread. */
  revert(beforeTurnId: string): Promise<unknown>;
  /** Publish the resume state, with the revert still to do (or none). */
  publish(revertBefore: string | undefined): void;
  warn(message: string, error: unknown): void;
  /** Tell the user, on the turn about to start, why the failed prompt is still in the thread. */
  notice(turnId: TurnId, detail: string): void;
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

  /** Before a new turn: a failed turn is out of the thread, or the user is told (on the new turn) that it is not. */
  async leaveBehind(turnId: TurnId): Promise<void> {
    const problem = await this.settle();
    if (problem !== undefined) this.deps.notice(turnId, problem);
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

export interface FailedTurnsOpen {
  /** The thread thread/start|resume answered with. */
  readonly threadId: string;
  /** `thread/revert {threadId, beforeTurnId}` on the session's connection. */
  readonly revert: (beforeTurnId: string) => Promise<unknown>;
  readonly binding: BindingSink;
  /** Where the notice of a revert that could not be done goes (on the new turn). */
  readonly sink: EventSink;
  readonly version: number;
  readonly fresh: boolean;
  readonly stored: ResumeState | undefined;
  readonly log: Logger;
}

/**
 * Publish the thread's identity (with a revert a previous process recorded and may not have done) and make the
 * thread's FailedTurns: reverts go to its thread, pending ones into the resume state (`revertBefore`).
 */
export function trackFailedTurns(open: FailedTurnsOpen): FailedTurns {
  const { threadId, binding } = open;
  const value = open.fresh || open.stored?.version !== open.version ? undefined : open.stored.data["revertBefore"];
  const stored = typeof value === "string" && value !== "" ? value : undefined;
  const resumeState = (revertBefore: string | undefined): ResumeState => ({ version: open.version, data: { threadId, ...(revertBefore === undefined ? {} : { revertBefore }) } });
  binding.publishIdentity({ harnessSessionId: threadId, resumeState: resumeState(stored), fresh: open.fresh });
  return new FailedTurns(
    {
      revert: open.revert,
      publish: (revertBefore) => binding.publishIdentity({ harnessSessionId: threadId, resumeState: resumeState(revertBefore), fresh: false }),
      warn: (message, error) => open.log.log("warn", message, { error }),
      notice: (turnId, detail) => open.sink.emit({ kind: "_baton_notice", payload: { level: "warning", title: REVERT_FAILED_TITLE, detail }, turnId }),
    },
    stored,
  );
}
