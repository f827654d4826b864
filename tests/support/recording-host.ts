/**
 * Small host-side test doubles for driving an adapter directly: a sink that records every
 * draft and identity, and a scripted InteractionHandler.
 */
import type { AdapterDraft } from "../../src/event/envelope.ts";
import type { DraftPayloadOf, EventKind } from "../../src/event/kinds.ts";
import type { InteractionDraft, InteractionResolution } from "../../src/event/interaction-types.ts";
import type {
  BindingSink,
  EventSink,
  HarnessIdentity,
  InteractionContext,
  InteractionHandler,
} from "../../src/harness/contract.ts";

export type DraftOfKind<K extends EventKind> = Extract<AdapterDraft, { kind: K }> & { payload: DraftPayloadOf<K> };

export class RecordingSink implements EventSink, BindingSink {
  readonly drafts: AdapterDraft[] = [];
  readonly identities: HarnessIdentity[] = [];
  readonly emittedAt: number[] = [];
  private waiters: { predicate: (d: AdapterDraft) => boolean; resolve: (d: AdapterDraft) => void }[] = [];

  emit(draft: AdapterDraft): void {
    this.drafts.push(draft);
    this.emittedAt.push(Date.now());
    for (const waiter of [...this.waiters]) {
      if (waiter.predicate(draft)) {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.resolve(draft);
      }
    }
  }

  publishIdentity(identity: HarnessIdentity): void {
    this.identities.push(identity);
  }

  of<K extends EventKind>(kind: K, turnId?: string): DraftOfKind<K>[] {
    return this.drafts.filter((d) => d.kind === kind && (turnId === undefined || d.turnId === turnId)) as DraftOfKind<K>[];
  }

  /** The idle state updates (terminals) for a turn. */
  terminals(turnId: string): DraftOfKind<"state_update">[] {
    return this.of("state_update", turnId).filter((d) => d.payload.state === "idle");
  }

  /** Resolves with the first draft (already recorded or future) matching the predicate. */
  waitFor(predicate: (d: AdapterDraft) => boolean, timeoutMs = 10_000, what = "draft"): Promise<AdapterDraft> {
    const existing = this.drafts.find(predicate);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; kinds so far: ${this.drafts.map((d) => d.kind).join(", ")}`));
      }, timeoutMs);
      const done = (d: AdapterDraft) => {
        clearTimeout(timer);
        resolve(d);
      };
      this.waiters.push({ predicate, resolve: done });
    });
  }

  /** Wait for the idle terminal of a turn; returns its stop reason. */
  async waitForIdle(turnId: string, timeoutMs = 10_000): Promise<string | undefined> {
    const d = await this.waitFor(
      (x) => x.kind === "state_update" && x.turnId === turnId && x.payload.state === "idle",
      timeoutMs,
      `idle of ${turnId}`,
    );
    return (d.payload as DraftPayloadOf<"state_update">).stopReason;
  }

  /** Concatenated agent text chunks of a turn. */
  chunkText(turnId: string): string {
    return this.of("agent_message_chunk", turnId)
      .map((d) => String((d.payload.content as { text?: unknown }).text ?? ""))
      .join("");
  }
}

export interface RecordedInteraction {
  readonly draft: InteractionDraft;
  readonly context: InteractionContext;
  resolution?: InteractionResolution;
}

export type InteractionAnswer = (draft: InteractionDraft, context: InteractionContext) => InteractionResolution | Promise<InteractionResolution>;

/** Answers interactions from a queue of answers (then the fallback); records every request. */
export class ScriptedInteractions implements InteractionHandler {
  readonly requests: RecordedInteraction[] = [];
  private readonly queue: InteractionAnswer[];
  private readonly fallback: InteractionAnswer;

  constructor(answers: InteractionAnswer[] = [], fallback: InteractionAnswer = () => ({ outcome: "cancelled", reason: "non-interactive" })) {
    this.queue = [...answers];
    this.fallback = fallback;
  }

  push(answer: InteractionAnswer): void {
    this.queue.push(answer);
  }

  async request(draft: InteractionDraft, context: InteractionContext): Promise<InteractionResolution> {
    const record: RecordedInteraction = { draft, context };
    this.requests.push(record);
    const answer = this.queue.shift() ?? this.fallback;
    const resolution = await answer(draft, context);
    record.resolution = resolution;
    return resolution;
  }
}

/** Pick the first permission option with the given polarity (and lifetime, if given). */
export function choose(polarity: "allow" | "reject", lifetime?: "once" | "session" | "persistent"): InteractionAnswer {
  return (draft) => {
    if (draft.type !== "permission") return { outcome: "cancelled", reason: "user" };
    const option = draft.options.find((o) => o.polarity === polarity && (lifetime === undefined || o.lifetime === lifetime));
    if (option === undefined) throw new Error(`no ${polarity} option among ${draft.options.map((o) => o.optionId).join(", ")}`);
    return { outcome: "selected", optionId: option.optionId };
  };
}
