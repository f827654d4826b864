/**
 * What the notification and server-request tables may do to a live Codex session. `CodexSession`
 * implements it; the tables see only this port, so they neither import the session (no session ↔ table
 * circle) nor write its fields: every change to the session's state is one of these methods.
 */
import type { InteractionDraft, InteractionResolution } from "../../event/interaction-types.ts";
import type { StopReason } from "../../event/stop-reasons.ts";
import type { IdSource } from "../../shared/ids.ts";
import type { Logger } from "../../shared/log.ts";
import type { RpcId } from "../../rpc/jsonrpc.ts";
import type { FailedTurns } from "./failed-turns.ts";
import type { DraftPart } from "../drafts.ts";
import type { CodexTurn } from "./turn.ts";
import type { FileUpdateChange } from "./protocol/v2/FileUpdateChange";
import type { TokenUsageBreakdown } from "./protocol/v2/TokenUsageBreakdown";

export interface CodexSessionPort {
  /** The thread this session is bound to ("" before thread/start answered). */
  readonly threadId: string;
  /** The model the thread runs, as thread/start|resume reported it. */
  readonly model: string | undefined;
  /** Failed driven turns to take out of the thread (undefined until the thread is known). */
  readonly failedTurns: FailedTurns | undefined;
  /** The turn now running (or just finished), if any. */
  readonly active: CodexTurn | undefined;
  readonly log: Logger;
  readonly ids: IdSource;

  /** The turn a Codex turn id belongs to; `openOrBind` (turn/started only) binds or opens one. */
  turnFor(nativeTurnId: string | null | undefined, openOrBind?: boolean): CodexTurn | undefined;
  /** Send turn/interrupt for a turn whose cancel waited for its native id. */
  interrupt(turn: CodexTurn): Promise<void>;
  emit(turn: CodexTurn | undefined, draft: DraftPart, raw?: unknown): void;
  emitError(turn: CodexTurn | undefined, message: string, code: string | { readonly code?: string; readonly nativeCode?: string } | undefined, willRetry: boolean, raw?: unknown): void;
  /** A fatal error: the turn fails unless its own terminal follows soon. */
  noteFatal(turn: CodexTurn, message: string): void;
  /** Close a turn exactly once. */
  finish(turn: CodexTurn, stopReason: StopReason, raw?: unknown): void;

  /** Record the thread's running token total; returns the previous one (per-turn usage is the difference). */
  swapUsageTotal(total: TokenUsageBreakdown): TokenUsageBreakdown | undefined;
  /** A fileChange item's changes (with Codex's diffs), kept from item/started for its approval card. */
  rememberFileChanges(itemId: string, changes: readonly FileUpdateChange[]): void;
  forgetFileChanges(itemId: string): void;
  fileChanges(itemId: string): readonly FileUpdateChange[];
  /** Codex resolved a server request itself (serverRequest/resolved): its pending card is withdrawn. */
  serverRequestResolved(requestId: string): void;

  /** Ask the host (an interaction) on behalf of a server request. */
  ask(draft: InteractionDraft, nativeTurnId: string | null, itemId: string, requestId: RpcId, raw: unknown): Promise<InteractionResolution>;
  /** One warning per unrecognized approval-decision shape per thread. */
  warnShape(shape: string): void;
}
