/**
 * The driven-input queue (IN-02, IN-04, IN-06): FIFO across targets, recall of the latest not-yet-started
 * input only. Terminal inputs are dropped from memory. Inputs restored after Baton stopped (a crash, a
 * quit with a full queue) wait apart, paused: they block nothing and run only when `resumePaused` is called.
 */
import type { PromptInputRecord, SubmitOutcome } from "./input.ts";
import type { TargetId } from "../shared/ids.ts";

interface Waiter {
  resolve(outcome: SubmitOutcome): void;
  reject(error: Error): void;
}

export interface QueuedView {
  readonly messageId: string;
  readonly turnId: string;
  readonly targetId: TargetId;
  readonly text: string;
  /** Restored after Baton stopped: waits for the user (send, edit or drop), never sent by itself. */
  readonly paused: boolean;
}

export class InputQueue {
  private readonly queued: PromptInputRecord[] = [];
  private readonly paused: PromptInputRecord[] = [];
  private readonly live = new Map<string, PromptInputRecord>();
  private readonly waiters = new Map<string, Waiter>();

  /** Enqueue and return a promise settled when the input reaches a terminal state. */
  enqueue(record: PromptInputRecord): Promise<SubmitOutcome> {
    record.state = "queued";
    this.queued.push(record);
    this.live.set(record.messageId, record);
    return this.waitFor(record);
  }

  /** Track an input that skipped the queue (an accepted steer); its promise settles with its turn. */
  attach(record: PromptInputRecord): Promise<SubmitOutcome> {
    this.live.set(record.messageId, record);
    return this.waitFor(record);
  }

  /** Inputs a previous process left queued, in their order: paused, nobody waits on them yet. */
  restorePaused(records: readonly PromptInputRecord[]): void {
    for (const record of records) {
      if (this.live.has(record.messageId)) continue;
      record.state = "paused";
      this.paused.push(record);
      this.live.set(record.messageId, record);
    }
  }

  /** The user sends the paused inputs: they go first (they were typed first); one promise per input. */
  resumePaused(): Promise<SubmitOutcome>[] {
    const resumed = this.paused.splice(0);
    for (const record of resumed) record.state = "queued";
    this.queued.unshift(...resumed);
    return resumed.map((record) => this.waitFor(record));
  }

  /** Inputs waiting for the slot (paused ones do not count: they wait for the user). */
  get length(): number {
    return this.queued.length;
  }

  get pausedCount(): number {
    return this.paused.length;
  }

  peek(): PromptInputRecord | undefined {
    return this.queued[0];
  }

  /** Pop the next input and mark it admitted. */
  admitNext(): PromptInputRecord | undefined {
    const next = this.queued.shift();
    if (next) next.state = "admitted";
    return next;
  }

  /** IN-06: only the latest not-yet-started input can be recalled (a waiting one, else the latest paused). */
  recallLatest(): PromptInputRecord | undefined {
    const latest = this.queued.pop() ?? this.paused.pop();
    if (!latest) return undefined;
    latest.state = "recalled";
    this.settle(latest, "recalled");
    return latest;
  }

  /** Esc on a paused queue: the latest paused input is dropped. */
  dropLatestPaused(): PromptInputRecord | undefined {
    const latest = this.paused.pop();
    if (!latest) return undefined;
    latest.state = "dropped";
    this.settle(latest, "recalled");
    return latest;
  }

  /** Finish an admitted or steered input. */
  finish(messageId: string, state: "finalized" | "interrupted", outcome: SubmitOutcome): void {
    const record = this.live.get(messageId);
    if (!record) return;
    record.state = state;
    this.settle(record, outcome);
  }

  fail(messageId: string, error: Error): void {
    const record = this.live.get(messageId);
    if (!record) return;
    record.state = "finalized";
    this.live.delete(messageId);
    const index = this.queued.indexOf(record);
    if (index >= 0) this.queued.splice(index, 1);
    const waiter = this.waiters.get(messageId);
    this.waiters.delete(messageId);
    waiter?.reject(error);
  }

  /** A failure no input can outlive (the session stopped recording): every queued input is rejected with it. */
  failAll(errorFor: (record: PromptInputRecord) => Error): void {
    for (const record of [...this.queued]) this.fail(record.messageId, errorFor(record));
  }

  /** Inputs still in memory (never terminal ones: IN-02). */
  snapshot(): readonly PromptInputRecord[] {
    return [...this.live.values()];
  }

  /** Paused inputs first (they are older), then the waiting ones, oldest first. */
  queuedView(): QueuedView[] {
    return [...this.paused, ...this.queued].map((record) => ({
      messageId: record.messageId,
      turnId: record.turnId,
      targetId: record.submission.targetId,
      text: record.submission.displayText,
      paused: record.state === "paused",
    }));
  }

  /** Shutdown: everything still waiting settles as interrupted (its queueing stays on record: paused next time). */
  drainAll(): void {
    for (const record of [...this.live.values()]) this.settle(record, "interrupted");
    this.queued.length = 0;
    this.paused.length = 0;
  }

  private waitFor(record: PromptInputRecord): Promise<SubmitOutcome> {
    return new Promise<SubmitOutcome>((resolve, reject) => this.waiters.set(record.messageId, { resolve, reject }));
  }

  private settle(record: PromptInputRecord, outcome: SubmitOutcome): void {
    this.live.delete(record.messageId);
    const waiter = this.waiters.get(record.messageId);
    this.waiters.delete(record.messageId);
    waiter?.resolve(outcome);
  }
}
