/**
 * A minimal host for driving a HarnessAdapter directly in tests: records every draft and published identity,
 * answers interactions from a script (honouring the adapter's abort signal), and waits for events.
 */
import fs from "node:fs";
import type { AdapterDraft } from "../../src/event/envelope.ts";
import type { InteractionDraft, InteractionResolution } from "../../src/event/interaction-types.ts";
import type {
  BindingSink,
  EventSink,
  HarnessIdentity,
  HarnessOpenOptions,
  InteractionContext,
  InteractionHandler,
  ResumeState,
} from "../../src/harness/contract.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { createUlidSource, type IdSource, type MessageId, type TurnId } from "../../src/shared/ids.ts";
import type { Logger, LogLevel } from "../../src/shared/log.ts";

export interface RecordedInteraction {
  readonly draft: InteractionDraft;
  readonly context: InteractionContext;
  resolution?: InteractionResolution;
  readonly at: number;
}

export type InteractionScript = (draft: InteractionDraft, context: InteractionContext) => InteractionResolution | Promise<InteractionResolution>;

export interface LogLine {
  readonly level: LogLevel;
  readonly message: string;
  readonly error?: unknown;
}

export class ClaudeHost {
  readonly events: AdapterDraft[] = [];
  readonly identities: HarnessIdentity[] = [];
  readonly interactions: RecordedInteraction[] = [];
  readonly logs: LogLine[] = [];
  readonly ids: IdSource = createUlidSource();
  /** How interactions are answered; default: cancelled (as a non-interactive host would). */
  respond: InteractionScript = () => ({ outcome: "cancelled", reason: "non-interactive" });
  private readonly waiters = new Set<() => void>();

  readonly sink: EventSink = {
    emit: (draft) => {
      this.events.push(draft);
      for (const wake of [...this.waiters]) wake();
    },
  };

  /** Reasons the adapter gave for starting a fresh native session (BindingSink.markFresh). */
  readonly fresh: string[] = [];

  readonly binding: BindingSink = {
    publishIdentity: (identity) => {
      this.identities.push(identity);
    },
    markFresh: (reason) => {
      this.fresh.push(reason);
    },
  };

  readonly interactionHandler: InteractionHandler = {
    request: (draft, context) => {
      const record: RecordedInteraction = { draft, context, at: Date.now() };
      this.interactions.push(record);
      for (const wake of [...this.waiters]) wake();
      return new Promise<InteractionResolution>((resolve) => {
        const settle = (resolution: InteractionResolution): void => {
          if (record.resolution) return;
          record.resolution = resolution;
          resolve(resolution);
        };
        if (context.signal?.aborted) return settle({ outcome: "cancelled", reason: "requester" });
        context.signal?.addEventListener("abort", () => settle({ outcome: "cancelled", reason: "requester" }), { once: true });
        Promise.resolve(this.respond(draft, context)).then(settle, () => settle({ outcome: "cancelled", reason: "user" }));
      });
    },
  };

  readonly log: Logger = {
    log: (level, message, fields) => {
      this.logs.push({ level, message, ...(fields?.error !== undefined ? { error: fields.error } : {}) });
    },
    child: () => this.log,
  };

  openOptions(cwd: string, env: Record<string, string>, extra: { resumeState?: ResumeState; model?: string; effort?: string; mode?: string } = {}): HarnessOpenOptions {
    return { targetId: "claude", cwd, env, interactions: this.interactionHandler, ids: this.ids, clock: systemClock, log: this.log, ...extra };
  }

  prompt(text: string, turnId: TurnId = this.ids.mint("turn")): { turnId: TurnId; messageId: MessageId; blocks: { type: "text"; text: string }[] } {
    return { turnId, messageId: this.ids.mint("message"), blocks: [{ type: "text", text }] };
  }

  ofTurn(turnId: TurnId): AdapterDraft[] {
    return this.events.filter((event) => event.turnId === turnId);
  }

  kinds(turnId?: TurnId): string[] {
    return (turnId === undefined ? this.events : this.ofTurn(turnId)).map((event) => event.kind);
  }

  /** Resolves with the first recorded draft (from `from` on) matching `predicate`. */
  waitFor(predicate: (draft: AdapterDraft) => boolean, timeoutMs = 20_000, from = 0): Promise<AdapterDraft> {
    return this.waitUntil(() => this.events.slice(from).find(predicate), timeoutMs, "event");
  }

  waitForIdle(turnId: TurnId, timeoutMs = 20_000): Promise<AdapterDraft> {
    return this.waitFor((e) => e.turnId === turnId && e.kind === "state_update" && e.payload.state === "idle", timeoutMs);
  }

  waitForInteraction(timeoutMs = 20_000, index = this.interactions.length): Promise<RecordedInteraction> {
    return this.waitUntil(() => this.interactions[index], timeoutMs, "interaction");
  }

  idles(turnId: TurnId): AdapterDraft[] {
    return this.ofTurn(turnId).filter((e) => e.kind === "state_update" && e.payload.state === "idle");
  }

  private waitUntil<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const found = check();
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<T>((resolve, reject) => {
      const wake = (): void => {
        const value = check();
        if (value === undefined) return;
        cleanup();
        resolve(value);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; events: ${this.kinds().join(", ")}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
      };
      this.waiters.add(wake);
    });
  }
}

/** Text of the agent_message drafts of a turn, joined. */
export function agentText(host: ClaudeHost, turnId: TurnId): string {
  return host
    .ofTurn(turnId)
    .filter((e) => e.kind === "agent_message")
    .map((e) => (e.payload.content ?? []).map((b) => (b.type === "text" ? String(b["text"]) : "")).join(""))
    .join("\n");
}

/** PIDs of Claude Code processes that are children of this test process. */
export function claudeChildren(): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid) continue;
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmd.includes("claude-agent-sdk")) out.push(Number(entry));
    } catch {
      // the process went away while we looked
    }
  }
  return out;
}
