/**
 * Notifications when an agent waits for you (#20.1): a turn's pending interaction (approval, question) older than
 * `afterMs` raises a terminal notification — OSC 9 and OSC 777, plus BEL — repeated with backoff 30 s → 2 min →
 * 10 min (then every 10 min) while it stays pending; a turn that ends while the terminal is unfocused notifies once.
 * Nothing goes into the composer or the transcript: the sequences go straight to the terminal. Reads the
 * projection only; one timer at a time.
 */
import { isKind, selectPendingInteractions, type AnyEvent, type ProjectionState } from "../projection/index.ts";
import type { Clock, TimerHandle } from "../shared/clock.ts";
import { sanitizeTitle } from "./terminal-title.ts";
import type { TargetId } from "../shared/ids.ts";

/** Delays between repeats of one waiting interaction's notification. */
export const REPEAT_BACKOFF_MS: readonly number[] = [30_000, 120_000, 600_000];

export interface AttentionOptions {
  readonly clock: Clock;
  /** Writes escape sequences to the terminal (never through the renderer's frame). */
  readonly write: (sequence: string) => void;
  readonly enabled: boolean;
  /** How long a turn's interaction waits before the first notification. */
  readonly afterMs: number;
  /** A label for a target id (its harness definition's label). */
  readonly label: (targetId: string | null) => string;
}

/** OSC 9 (iTerm2, WezTerm, Windows Terminal…), OSC 777 (urxvt, foot, Ghostty…) and BEL, for one message. */
export function notificationSequence(text: string): string {
  const safe = sanitizeTitle(text).replace(/;/g, ",");
  return `\u001b]9;${safe}\u0007\u001b]777;notify;Baton;${safe}\u0007\u0007`;
}

interface Waiting {
  readonly interactionId: string;
  readonly text: string;
  /** Notifications sent so far. */
  sent: number;
  timer: TimerHandle | undefined;
}

export class AttentionNotifier {
  private waiting: Waiting | undefined;
  private focused = true;
  private readonly endedSeen = new Set<string>();

  constructor(private readonly options: AttentionOptions) {}

  /** Terminal focus reports (DECSET 1004 focus in/out). Unknown counts as focused. */
  setFocused(focused: boolean): void {
    this.focused = focused;
  }

  /** Look at the projection after it changed. */
  update(state: ProjectionState): void {
    if (!this.options.enabled) return;
    const first = selectPendingInteractions(state).find((item) => item.turnId !== null);
    if (first?.interactionId === this.waiting?.interactionId) return;
    this.stopWaiting();
    if (first === undefined) return;
    const what = first.draft.type === "question" ? "has a question for you" : "is waiting for your approval";
    const waiting: Waiting = { interactionId: first.interactionId, text: `${this.options.label(first.harnessTargetId)} ${what}`, sent: 0, timer: undefined };
    this.waiting = waiting;
    const openedAt = Date.parse(first.openedAt);
    const age = Number.isFinite(openedAt) ? Math.max(0, this.options.clock.now() - openedAt) : 0;
    this.schedule(waiting, Math.max(0, this.options.afterMs - age));
  }

  /** A turn ended (its summary): say so once when the terminal is not focused. */
  turnEnded(turnId: string, targetId: TargetId | null): void {
    if (!this.options.enabled || this.focused || this.endedSeen.has(turnId)) return;
    this.endedSeen.add(turnId);
    this.options.write(notificationSequence(`${this.options.label(targetId)} finished its turn`));
  }

  /** Every appended event of the session on screen (the host forwards them). */
  onEvent(event: AnyEvent, state: ProjectionState): void {
    if (event.kind === "interaction.opened" || event.kind === "interaction.resolved" || event.kind === "state_update") this.update(state);
    if (isKind(event, "_baton_turn_summary")) this.turnEnded(event.payload.turnId, event.harnessTargetId ?? null);
  }

  dispose(): void {
    this.stopWaiting();
  }

  private schedule(waiting: Waiting, ms: number): void {
    waiting.timer = this.options.clock.setTimeout(() => {
      if (this.waiting !== waiting) return;
      this.options.write(notificationSequence(waiting.text));
      const delay = REPEAT_BACKOFF_MS[Math.min(waiting.sent, REPEAT_BACKOFF_MS.length - 1)] ?? 600_000;
      waiting.sent++;
      this.schedule(waiting, delay);
    }, ms);
  }

  private stopWaiting(): void {
    if (this.waiting?.timer !== undefined) this.options.clock.clearTimeout(this.waiting.timer);
    this.waiting = undefined;
  }
}
