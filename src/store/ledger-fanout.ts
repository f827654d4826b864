/**
 * Ordered fan-out of appended events to the ledger's listeners. A listener that appends (re-entrantly)
 * has its event delivered after the current one, so every listener hears events in seq order; a
 * listener that throws is logged and never fails the write or starves the others.
 */
import type { AnyEvent } from "../event/envelope.ts";
import type { Logger } from "../shared/log.ts";

export class LedgerFanout<P> {
  private readonly listeners = new Set<(event: AnyEvent, position: P) => void>();
  private readonly pending: Array<{ event: AnyEvent; position: P }> = [];
  private delivering = false;

  constructor(private readonly log: () => Logger) {}

  /** True when someone would hear an event (the caller skips building positions otherwise). */
  get wanted(): boolean {
    return this.listeners.size > 0 || this.pending.length > 0;
  }

  subscribe(listener: (event: AnyEvent, position: P) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  clear(): void {
    this.listeners.clear();
  }

  deliver(event: AnyEvent, position: P): void {
    this.pending.push({ event, position });
    if (this.delivering) return; // a listener appended: deliver after the current event, in order
    this.delivering = true;
    try {
      for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) {
        for (const listener of this.listeners) {
          try {
            listener(next.event, next.position);
          } catch (error) {
            this.log().log("error", "ledger listener threw; the event is stored regardless", {
              error,
              attributes: { kind: next.event.kind, seq: next.event.seq },
            });
          }
        }
      }
    } finally {
      this.delivering = false;
    }
  }
}
