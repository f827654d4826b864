/**
 * The harness contract (HAR-05): what every adapter implements and what the host gives it.
 * Adapters draft events; the host stamps source/harness/target from the binding (EV-02).
 */
import type { AdapterDraft } from "../event/envelope.ts";
import type { PromptBlock, PromptBlockType } from "../event/content.ts";
import type { InteractionDraft, InteractionResolution } from "../event/interaction-types.ts";
import type { HandleId, IdSource, MessageId, TurnId } from "../shared/ids.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/log.ts";
import type { Capabilities } from "./capabilities.ts";

/** Adapter-owned opaque resume state, persisted by the host in meta and handed back on open. */
export interface ResumeState {
  readonly version: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Where adapter output goes. The host stamps source/harness/harnessTargetId, overriding the draft. */
export interface EventSink {
  emit(draft: AdapterDraft): void;
}

/** The native session identity, published by the adapter once it knows it (Codex thread id, Claude session id). */
export interface HarnessIdentity {
  readonly harnessSessionId: string;
  readonly resumeState: ResumeState;
  /** True when a new native session was started (the old one was missing or there was none). */
  readonly fresh: boolean;
}

export interface BindingSink {
  publishIdentity(identity: HarnessIdentity): void;
  /**
   * The stored native session cannot be resumed (e.g. deleted); a fresh one will be started. Call it
   * before the first turn when the adapter can tell at open, so the host delivers the whole history.
   */
  markFresh?(reason: string): void;
}

/** Adapters submit interaction drafts here and await the one resolution. Cancellation is a resolution too. */
export interface InteractionHandler {
  request(draft: InteractionDraft, context: InteractionContext): Promise<InteractionResolution>;
}

export interface InteractionContext {
  readonly turnId: TurnId;
  readonly harnessSessionId?: string;
  /** Aborted when the harness withdraws the request (e.g. the SDK's abort signal); resolves `cancelled/requester`. */
  readonly signal?: AbortSignal;
  readonly raw?: unknown;
}

export interface HarnessOpenOptions {
  readonly targetId: string;
  readonly cwd: string;
  /** The full environment for the child: inherited from the user, plus target overrides. Never edited otherwise. */
  readonly env: Readonly<Record<string, string>>;
  readonly resumeState?: ResumeState;
  readonly model?: string;
  readonly effort?: string;
  readonly mode?: string;
  readonly interactions: InteractionHandler;
  readonly ids: IdSource;
  readonly clock: Clock;
  readonly log: Logger;
  /** The turn whose cold start this open is (IX-02): setup interactions (hook trust) and notices carry it. */
  readonly turnId?: TurnId;
}

export interface HarnessHandle {
  readonly id: HandleId;
}

export interface PromptInput {
  readonly turnId: TurnId;
  readonly messageId: MessageId;
  readonly blocks: readonly PromptBlock[];
}

export type SendTurnResult =
  | { readonly accepted: true; readonly effective: "new_turn" | "steer" }
  | { readonly accepted: false; readonly effective: "rejected"; readonly reason?: string };

/**
 * Rules every adapter keeps (pinned by tests/contract/harness.contract.ts):
 * - `open` may throw (nothing accepted yet); it must kill whatever it started when it fails.
 * - `sendTurn` throws only before accepting; `rejected` emits no events; a prompt block type the
 *   adapter does not declare fails with BatonError("prompt_unsupported") naming the type.
 * - Every accepted turn ends with exactly one `state_update{state:"idle", stopReason}` carrying its turnId,
 *   on normal end, wire error, process exit and transport close (close synthesizes one).
 * - Events of a driven turn carry the Baton turnId from PromptInput; a harness-initiated turn gets a fresh
 *   `t_` id from `ids` and starts with `state_update{state:"running"}`.
 */
export interface HarnessAdapter {
  readonly capabilities: Capabilities;
  open(options: HarnessOpenOptions, sink: EventSink, binding: BindingSink): Promise<HarnessHandle>;
  sendTurn(handle: HarnessHandle, input: PromptInput): Promise<SendTurnResult>;
  /** Ask the harness to stop the turn; the terminal arrives as an event (or the host synthesizes one after grace). */
  cancel(handle: HarnessHandle, turnId: TurnId): Promise<void>;
  close(handle: HarnessHandle): Promise<void>;
}

export function unsupportedBlocks(blocks: readonly PromptBlock[], supported: ReadonlySet<PromptBlockType>): PromptBlockType[] {
  const out = new Set<PromptBlockType>();
  for (const block of blocks) if (!supported.has(block.type)) out.add(block.type);
  return [...out];
}
