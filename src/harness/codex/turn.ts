/** One Baton turn bound to (at most) one Codex turn: ids, pending cancel, open items, terminal-once. */
import type { TurnId } from "../../shared/ids.ts";
import type { TimerHandle } from "../../shared/clock.ts";
import type { TurnRole } from "../../event/kinds.ts";

/** Baton's turn roles, and `control`: a turn Baton runs for itself on the native session (compaction). */
export type CodexTurnRole = TurnRole | "control";

export class CodexTurn {
  readonly turnId: TurnId;
  readonly role: CodexTurnRole;
  /** The Codex turn id, once the start response or `turn/started` told us. */
  nativeTurnId: string | undefined;
  finished = false;
  /** `turn/started` arrived (the turn can be interrupted). */
  started = false;
  /** Cancel requested before the native id was known; flushed when it arrives. */
  pendingCancel = false;
  /** Anything the user would see was produced (for the empty-turn notice). */
  visible = false;
  /** Open agent messages / thoughts (id → text so far) and tool calls, closed at turn end. */
  readonly openMessages = new Map<string, string>();
  readonly openThoughts = new Map<string, string>();
  readonly openTools = new Set<string>();
  /** Item ids Baton was asked about, and ids a harness-side reviewer decided (IX-10). */
  readonly asked = new Set<string>();
  readonly reviewed = new Set<string>();
  /** A fatal (`willRetry:false`) error was reported; the terminal is then `failed`. */
  fatalError: string | undefined;
  errorShown = false;
  fallbackTimer: TimerHandle | undefined;
  /** Pending interactions, aborted when the turn ends. */
  readonly interactions = new Set<AbortController>();

  constructor(turnId: TurnId, role: CodexTurnRole) {
    this.turnId = turnId;
    this.role = role;
  }
}
