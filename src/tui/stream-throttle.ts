/**
 * TUI-12: high-frequency events are reduced at once but published at most every 100 ms; any other event
 * publishes immediately and so flushes whatever chunks were pending.
 */
import { kindsStreaming } from "../projection/index.ts";
import type { Clock, TimerHandle } from "../shared/clock.ts";

/** Streamed content and frequent counters, as the event registry classes them. */
export const STREAM_KINDS = kindsStreaming("content", "tick");

export const STREAM_PUBLISH_INTERVAL_MS = 100;

export class PublishThrottle {
  private timer: TimerHandle | undefined;
  private last = Number.NEGATIVE_INFINITY;
  private disposed = false;

  constructor(
    private readonly publish: () => void,
    private readonly clock: Clock,
    private readonly intervalMs: number = STREAM_PUBLISH_INTERVAL_MS,
  ) {}

  /** One appended event of `kind` was reduced. */
  onEvent(kind: string): void {
    if (!STREAM_KINDS.has(kind)) {
      this.flush();
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

  /** Publish now (and cancel a pending stream publication). */
  flush(): void {
    if (this.disposed) return;
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.last = this.clock.now();
    this.publish();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
