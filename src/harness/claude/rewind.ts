/**
 * A failed prompt is never sent again (#12.9). Claude Code keeps a prompt whose API request failed (500, 529,
 * 401, 400…) in its own transcript and merges it into the next user message, so one prompt that makes the API
 * fail would fail every later turn. After such a failure the next run therefore resumes the native session at
 * the last transcript entry of the last turn that did not fail (the SDK's `resumeSessionAt`; measured with
 * Claude Code 2.1.332: same session id, the failed prompt gone from every later request, and a plain resume
 * afterwards follows the new branch). When nothing before the failed prompt survives, a fresh native session
 * starts and Baton delivers the history.
 */
import type { TurnId } from "../../shared/ids.ts";
import type { BindingSink, ResumeState } from "../contract.ts";
import { locateTranscript, readTranscript } from "./transcript.ts";

export const DROPPED_PROMPT_NOTICE = "Claude will not see this prompt again: its conversation goes on from before this turn. Send the prompt again to retry.";
const FRESH_REASON = "its only prompt failed; a fresh Claude session starts without it";

/** What the next run must do so the failed prompt is left behind. */
export type RewindPlan =
  | { readonly kind: "resume_at"; readonly at: string }
  /** The last good entry is not known in this process (the session was resumed): find it in the transcript. */
  | { readonly kind: "find"; readonly prompt: string }
  | { readonly kind: "fresh" };

class RewindBook {
  private lastGood: string | undefined;
  private tail: string | undefined;
  private plan: RewindPlan | undefined;

  /** `hadHistory`: the native session existed before this process (so it has entries this book never saw). */
  constructor(private hadHistory: boolean, stored?: RewindPlan) {
    this.plan = stored;
  }

  /** A main-chain transcript entry (assistant or user message) of the current turn. */
  see(uuid: unknown): void {
    if (typeof uuid === "string" && uuid !== "") this.tail = uuid;
  }

  /** A turn ended without failing (answered, cancelled, observed): it stays in the conversation. */
  kept(): void {
    if (this.tail !== undefined) this.lastGood = this.tail;
    this.tail = undefined;
    this.hadHistory = true;
  }

  /** A turn's request failed: plan to leave it (and what it did) behind; `prompt` is its first pushed uuid. */
  failed(prompt: string | undefined): RewindPlan {
    this.tail = undefined;
    this.plan = this.lastGood !== undefined ? { kind: "resume_at", at: this.lastGood } : this.hadHistory && prompt !== undefined ? { kind: "find", prompt } : { kind: "fresh" };
    return this.plan;
  }

  /** The plan for the next run, once. */
  take(): RewindPlan | undefined {
    const plan = this.plan;
    this.plan = undefined;
    return plan;
  }

  /** A run that resumed at `at` started: that entry is where the conversation now ends. */
  resumedAt(at: string): void {
    this.lastGood = at;
    this.hadHistory = true;
  }
}

/** The plan stored in a resume state (so a Baton restarted between the failure and the next turn still rewinds). */
function storedPlan(data: Readonly<Record<string, unknown>>): RewindPlan | undefined {
  if (typeof data["resumeAt"] === "string") return { kind: "resume_at", at: data["resumeAt"] };
  if (typeof data["dropPrompt"] === "string") return { kind: "find", prompt: data["dropPrompt"] };
  return undefined;
}

function planData(plan: RewindPlan): Record<string, string> {
  if (plan.kind === "resume_at") return { resumeAt: plan.at };
  if (plan.kind === "find") return { dropPrompt: plan.prompt };
  return {};
}

/**
 * The last assistant or user entry before the prompt `prompt` in the session's transcript: what to resume at.
 * Walks the prompt's parentUuid chain past the attachments that precede a prompt. Undefined when the prompt
 * starts the conversation or cannot be found.
 */
export function entryBefore(sessionId: string, prompt: string, env: Readonly<Record<string, string>>, cwd: string): string | undefined {
  const file = locateTranscript(sessionId, env, cwd);
  if (file === undefined) return undefined;
  const byUuid = new Map<string, { type?: unknown; parentUuid?: unknown }>();
  for (const entry of readTranscript(file)) {
    const uuid = (entry as { uuid?: unknown }).uuid;
    if (typeof uuid === "string") byUuid.set(uuid, entry as { type?: unknown; parentUuid?: unknown });
  }
  let parent = byUuid.get(prompt)?.parentUuid;
  for (let steps = 0; typeof parent === "string" && steps < 10_000; steps++) {
    const entry = byUuid.get(parent);
    if (entry === undefined) return undefined;
    if (entry.type === "assistant" || entry.type === "user") return parent;
    parent = entry.parentUuid;
  }
  return undefined;
}

export interface ContinuityDeps {
  readonly binding: BindingSink;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly notice: (turnId: TurnId, title: string) => void;
  readonly warn: (message: string, error?: unknown) => void;
}

/** Which native session a Claude session continues, the identity the host keeps, and the failed prompts it leaves behind. */
export class ClaudeContinuity {
  /** The native session the next run resumes; undefined starts a new one. */
  sessionId: string | undefined;
  private readonly book: RewindBook;
  private publishedKey: string | undefined;
  private resumeAt: string | undefined;

  constructor(
    private readonly deps: ContinuityDeps,
    resumeState: ResumeState | undefined,
  ) {
    const id = resumeState?.version === 1 ? resumeState.data["sessionId"] : undefined;
    if (typeof id === "string" && id.length > 0 && !id.startsWith("hs_")) this.sessionId = id;
    this.book = new RewindBook(this.sessionId !== undefined, this.sessionId === undefined ? undefined : storedPlan(resumeState?.data ?? {}));
  }

  see(uuid: unknown): void {
    this.book.see(uuid);
  }

  kept(): void {
    this.book.kept();
  }

  /** The API refused this turn: say so on it, and make the next run leave it behind (kept in the resume state until then). */
  failed(turnId: TurnId, prompt: string | undefined): void {
    const plan = this.book.failed(prompt);
    this.deps.notice(turnId, DROPPED_PROMPT_NOTICE);
    if (plan.kind === "fresh") this.deps.binding.markFresh?.(FRESH_REASON);
    else if (this.sessionId !== undefined) this.publish(this.sessionId, planData(plan), false);
  }

  /** A failed prompt waits to be left behind: the next turn needs a new run. Decides where that run resumes. */
  leaveBehind(): boolean {
    const plan = this.book.take();
    if (plan === undefined) return false;
    let at = plan.kind === "resume_at" ? plan.at : undefined;
    if (plan.kind === "find" && this.sessionId !== undefined) {
      try {
        at = entryBefore(this.sessionId, plan.prompt, this.deps.env, this.deps.cwd);
      } catch (error) {
        this.deps.warn("could not read the Claude transcript to leave a failed prompt behind", error);
      }
    }
    if (at === undefined && plan.kind !== "fresh") this.deps.binding.markFresh?.(FRESH_REASON);
    if (at === undefined) this.sessionId = undefined;
    this.resumeAt = at;
    return true;
  }

  /** What a new run resumes (a pending resume point is used once). */
  nextRun(): { readonly sessionId: string; readonly at: string | undefined } | undefined {
    const at = this.resumeAt;
    this.resumeAt = undefined;
    return this.sessionId === undefined ? undefined : { sessionId: this.sessionId, at };
  }

  /** A run's `system/init`: the session it runs, published to the host (a stored plan is dropped once used). */
  initialized(id: string, resumed: { readonly sessionId: string; readonly at: string | undefined } | undefined): void {
    this.sessionId = id;
    if (resumed?.at !== undefined && resumed.sessionId === id) this.book.resumedAt(resumed.at);
    this.publish(id, {}, resumed?.sessionId !== id);
  }

  private publish(id: string, extra: Record<string, string>, fresh: boolean): void {
    const key = JSON.stringify([id, extra]);
    if (key === this.publishedKey) return;
    this.publishedKey = key;
    this.deps.binding.publishIdentity({ harnessSessionId: id, resumeState: { version: 1, data: { sessionId: id, ...extra } }, fresh });
  }
}
