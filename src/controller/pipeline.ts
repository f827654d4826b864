/**
 * The single channel of truth (invariant 1): append → reduce → broadcast, and the session's one
 * broadcaster (the ledger only writes). The line is written before anyone hears of it; listeners are told
 * in append order (an event a listener appends is delivered after the current one), and a failing listener
 * never fails a write or starves the others.
 */
import type { AnyEvent, EventDraft } from "../event/envelope.ts";
import type { Logger } from "../shared/log.ts";
import type { LedgerPort } from "./ports.ts";

export type AppendFn = (draft: EventDraft) => AnyEvent;
export type Reducer<S> = (state: S, event: AnyEvent) => S;
export type PipelineListener<S> = (event: AnyEvent, state: S) => void;

export class SessionPipeline<S> {
  private current: S;
  private readonly listeners = new Set<PipelineListener<S>>();
  private readonly pending: AnyEvent[] = [];
  private notifying = false;

  constructor(
    private readonly ledger: LedgerPort,
    initial: S,
    private readonly reduce: Reducer<S>,
    private readonly log: Logger,
  ) {
    this.current = initial;
  }

  get state(): S {
    return this.current;
  }

  readonly append: AppendFn = (draft) => {
    const event = this.ledger.append(draft);
    this.current = this.reduce(this.current, event);
    this.pending.push(event);
    this.flush();
    return event;
  };

  /** Replace the state with `state`, a fold of the same ledger (a full replay that replaces a stale checkpoint). */
  reset(state: S): void {
    this.current = state;
  }

  sync(): Promise<void> {
    return this.ledger.sync();
  }

  subscribe(listener: PipelineListener<S>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private flush(): void {
    if (this.notifying) return;
    this.notifying = true;
    try {
      for (let event = this.pending.shift(); event !== undefined; event = this.pending.shift()) {
        for (const listener of [...this.listeners]) {
          try {
            listener(event, this.current);
          } catch (error) {
            this.log.log("error", "an event listener threw; the event is stored regardless", { error, attributes: { kind: event.kind, seq: event.seq } });
          }
        }
      }
    } finally {
      this.notifying = false;
    }
  }
}
