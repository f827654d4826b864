/**
 * The footer's toast: one at a time, gone after its time, and a toast about a turn (such as "steering …")
 * gone as soon as that turn ends, so it never outlives what it describes (#11.15).
 */
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { Toast, Tone } from "chat-tui";

export const TOAST_MS: Readonly<Record<Tone, number>> = { info: 3000, success: 3000, warning: 6000, error: 8000 };

export class Toasts {
  private value: Toast | undefined;
  private timer: TimerHandle | undefined;
  private turnId: string | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly changed: () => void,
  ) {}

  get current(): Toast | undefined {
    return this.value;
  }

  /** Shows `text` for `ms`; with `turnId`, at most until that turn ends. */
  show(text: string, tone: Tone = "info", ms: number = TOAST_MS[tone], turnId?: string): void {
    this.value = { text, tone };
    this.turnId = turnId;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => this.clear(), ms);
    this.changed();
  }

  /** A turn ended: its toast goes with it. */
  turnEnded(turnId: string): void {
    if (this.turnId === turnId) this.clear();
  }

  dispose(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private clear(): void {
    this.dispose();
    this.value = undefined;
    this.turnId = undefined;
    this.changed();
  }
}
