/**
 * The keyed work queue of one controller (REC-02): a key is pending at most once; a trigger while its key
 * runs marks it dirty and yields exactly one follow-up run; at most `concurrency` keys run at once, each
 * also holding a slot of the Manager-wide `FairCapacity` (round-robin across owners, so one busy plugin
 * starves none). One failure never stops the draining; closing drops what is pending, refuses new work
 * and lets running work settle. Pure scheduling: no I/O, no timers.
 */

/**
 * A counting semaphore whose waiters are served by owner, least recently served first: an owner that just
 * got a slot waits behind every other owner that is waiting, however many waiters it queued.
 */
export class FairCapacity {
  private used = 0;
  private tick = 0;
  private readonly waiting = new Map<string, { resolve: (release: () => void) => void; reject: (error: Error) => void }[]>();
  private readonly served = new Map<string, number>();

  constructor(private max: number) {}

  get limit(): number {
    return this.max;
  }

  /** Change the number of slots (the Manager uses min(4, 1 + active bindings)). */
  setLimit(limit: number): void {
    this.max = Math.max(1, limit);
    this.drain();
  }

  acquire(owner: string): Promise<() => void> {
    return new Promise((resolve, reject) => {
      this.waiting.set(owner, [...(this.waiting.get(owner) ?? []), { resolve, reject }]);
      this.drain();
    });
  }

  /** Reject every waiter of `owner` (its queue closed). */
  cancel(owner: string): void {
    for (const waiter of this.waiting.get(owner) ?? []) waiter.reject(new Error("closed"));
    this.waiting.delete(owner);
    this.served.delete(owner);
  }

  private drain(): void {
    while (this.used < this.max) {
      let owner: string | undefined;
      for (const candidate of this.waiting.keys()) {
        if (owner === undefined || (this.served.get(candidate) ?? 0) < (this.served.get(owner) ?? 0)) owner = candidate;
      }
      if (owner === undefined) return;
      const queue = this.waiting.get(owner) ?? [];
      const waiter = queue.shift();
      if (queue.length === 0) this.waiting.delete(owner);
      if (waiter === undefined) continue;
      this.served.set(owner, ++this.tick);
      this.used++;
      let released = false;
      waiter.resolve(() => {
        if (released) return;
        released = true;
        this.used--;
        this.drain();
      });
    }
  }
}

export interface KeyedQueueOptions {
  /** Names this queue at the capacity (round-robin unit). */
  readonly owner: string;
  readonly concurrency: number;
  readonly capacity?: FairCapacity;
  readonly run: (key: string) => Promise<void>;
  readonly onError: (key: string, error: unknown) => void;
}

export class KeyedQueue {
  private readonly pending: string[] = [];
  private readonly pendingSet = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private settled: Promise<void>[] = [];

  constructor(private readonly options: KeyedQueueOptions) {}

  /** Queue `key` (deduplicated); while it runs, one follow-up is remembered. False once closed. */
  enqueue(key: string): boolean {
    if (this.closed) return false;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return true;
    }
    if (this.pendingSet.has(key)) return true;
    this.pending.push(key);
    this.pendingSet.add(key);
    this.pump();
    return true;
  }

  get size(): number {
    return this.pending.length + this.running.size;
  }

  isBusy(key: string): boolean {
    return this.running.has(key) || this.pendingSet.has(key);
  }

  /** Resolves when nothing is pending or running. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drop pending work, refuse new work, wait for running work to settle. */
  async close(): Promise<void> {
    this.closed = true;
    this.pending.length = 0;
    this.pendingSet.clear();
    this.dirty.clear();
    this.options.capacity?.cancel(this.options.owner);
    await Promise.all(this.settled);
    this.notifyIdle();
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.options.concurrency && this.pending.length > 0) {
      const key = this.pending.shift() as string;
      this.pendingSet.delete(key);
      this.running.add(key);
      const done = this.execute(key);
      this.settled.push(done);
      void done.then(() => (this.settled = this.settled.filter((p) => p !== done)));
    }
  }

  private async execute(key: string): Promise<void> {
    let release: (() => void) | undefined;
    try {
      if (this.options.capacity !== undefined) release = await this.options.capacity.acquire(this.options.owner);
      if (!this.closed) await this.options.run(key);
    } catch (error) {
      if (!this.closed) {
        try {
          this.options.onError(key, error);
        } catch {
          // the error handler must not stop the queue
        }
      }
    } finally {
      release?.();
      this.running.delete(key);
      if (this.dirty.delete(key)) this.enqueue(key);
      this.pump();
      if (this.size === 0) this.notifyIdle();
    }
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
