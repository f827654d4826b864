/** The clock port: production reads the wall clock; tests pass a manual one. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export interface TimerHandle {
  readonly id: unknown;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const id = setTimeout(callback, ms);
    if (typeof id === "object" && id !== null && "unref" in id) (id as { unref(): void }).unref();
    return { id };
  },
  clearTimeout(handle) {
    clearTimeout(handle.id as ReturnType<typeof setTimeout>);
  },
};

/** A clock that only moves when told to; timers fire in due order on `advance`. */
export class ManualClock implements Clock {
  private current: number;
  private timers = new Map<number, { due: number; callback: () => void }>();
  private nextId = 1;

  constructor(start = Date.parse("2026-01-01T00:00:00.000Z")) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { due: this.current + Math.max(0, ms), callback });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle.id as number);
  }

  /** Move time forward, firing every timer that falls due, oldest first. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      let nextId: number | undefined;
      let nextDue = Infinity;
      for (const [id, timer] of this.timers) {
        if (timer.due <= target && timer.due < nextDue) {
          nextDue = timer.due;
          nextId = id;
        }
      }
      if (nextId === undefined) break;
      const timer = this.timers.get(nextId);
      this.timers.delete(nextId);
      this.current = nextDue;
      timer?.callback();
    }
    this.current = target;
  }

  pendingTimers(): number {
    return this.timers.size;
  }
}
