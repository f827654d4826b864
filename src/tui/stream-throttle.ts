/**
 * TUI-12: high-frequency events are reduced at once but published at most every 100 ms; any other event
 * publishes after its task, and so flushes whatever chunks were pending. A burst of events in one task, as a turn's
 * start and end are, makes one composition and one publication, not one each (#18).
 *
 * "After its task" is a 0 ms timer, not `setImmediate`: the publication then comes after the event loop has read
 * input and run the timers that fell due while the task ran. A prompt's task (admission and dispatch) and its
 * publication (the first React render of the new turn) were one stretch of the main thread, 20-25 ms in a process
 * whose code is still cold (bench/stall.ts, first turns); apart, a key waits for the longer one only. The cost is
 * the timer's ≈ 1 ms before the frame.
 */
import { kindsStreaming } from "../projection/index.ts";
import type { Clock, TimerHandle } from "../shared/clock.ts";

/** Streamed content and frequent counters, as the event registry classes them. */
export const STREAM_KINDS = kindsStreaming("content", "tick");

export const STREAM_PUBLISH_INTERVAL_MS = 100;

/** Runs `fn` after the current task, once input and due timers had their turn (a 0 ms timer; tests pass their own). */
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
    private readonly defer: Defer = (fn) => void setTimeout(fn, 0),
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
