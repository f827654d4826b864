/**
 * TUI-12: high-frequency events are reduced at once but published at most every 100 ms; any other event
 * publishes at the end of its task (#18: a burst of events in one task, as a turn's start and end are, makes
 * one composition and one publication, not one each), and so flushes whatever chunks were pending.
 */
import { kindsStreaming } from "../projection/index.ts";
import type { Clock, TimerHandle } from "../shared/clock.ts";

/** Streamed content and frequent counters, as the event registry classes them. */
export const STREAM_KINDS = kindsStreaming("content", "tick");

export const STREAM_PUBLISH_INTERVAL_MS = 100;

/** Runs `fn` once the current task and its microtasks are done (setImmediate; tests pass their own). */
export type Defer = (fn: () => void) => void;

export class PublishThrottle {
  private timer: TimerHandle | undefined;
  /** A publication at the end of this task is scheduled. */
  private deferred = false;
  private last = Number.NEGATIVE_INFINITY;
  private disposed = false;

  constructor(
    private readonly publish: () => void,
    private readonly clock: Clock,
    private readonly intervalMs: number = STREAM_PUBLISH_INTERVAL_MS,
    private readonly defer: Defer = (fn) => void setImmediate(fn),
  ) {}

  /** One appended event of `kind` was reduced. */
  onEvent(kind: string): void {
    if (this.disposed || this.deferred) return;
    if (!STREAM_KINDS.has(kind)) {
      this.deferred = true;
      this.defer(() => void (this.deferred && this.flush()));
      return;
    }
    if (this.timer !== undefined) return;
    const wait = this.last + this.intervalMs - this.clock.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Publish now (and cancel a pending publication). */
  flush(): void {
    if (this.disposed) return;
    this.published();
    this.publish();
  }

  /** The host published by itself: what was pending is in that publication. */
  published(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.deferred = false;
    this.last = this.clock.now();
  }

  dispose(): void {
    this.disposed = true;
    this.deferred = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
