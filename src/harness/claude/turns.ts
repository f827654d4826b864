/**
 * Which Baton turn an SDK message belongs to (CLA-03/04/06). Every pushed user message carries a uuid; Claude Code
 * echoes the uuids a turn consumed on its `result` (`user_message_uuids`). A Baton turn ends when every message
 * it pushed (prompt + steers) has been answered, or on cancel. A result naming only other uuids, or none while a
 * driven turn waits, is stale and can never close the current turn.
 */
import type { TurnId } from "../../shared/ids.ts";

import type { TurnRole } from "../../event/kinds.ts";
export type { TurnRole };

export interface ClaudeTurn {
  readonly turnId: TurnId;
  readonly role: TurnRole;
  /** uuids pushed for this turn and not yet answered by a result. */
  readonly pending: Set<string>;
  /** The uuid of the first message pushed for it (its prompt). */
  prompt: string | undefined;
  cancelRequested: boolean;
  finalized: boolean;
  /** A result of this turn already reported an error (a steer's result may still follow). */
  failed: boolean;
}

export class TurnBook {
  private current: ClaudeTurn | undefined;
  private readonly byUuid = new Map<string, ClaudeTurn>();

  /** The unfinished turn, if any. */
  active(): ClaudeTurn | undefined {
    return this.current && !this.current.finalized ? this.current : undefined;
  }

  begin(turnId: TurnId, role: TurnRole): ClaudeTurn {
    const turn: ClaudeTurn = { turnId, role, pending: new Set(), prompt: undefined, cancelRequested: false, finalized: false, failed: false };
    this.current = turn;
    return turn;
  }

  attach(turn: ClaudeTurn, uuid: string): void {
    turn.prompt ??= uuid;
    turn.pending.add(uuid);
    this.byUuid.set(uuid, turn);
  }

  /** Forget a uuid that never reached Claude Code (the push failed). */
  detach(turn: ClaudeTurn, uuid: string): void {
    turn.pending.delete(uuid);
    this.byUuid.delete(uuid);
  }

  /**
   * The turn a `result` answers, or undefined when it is stale. With uuids: the turn that pushed one of them.
   * Without uuids (harness-initiated work): only an open observed turn.
   */
  ownerOf(uuids: readonly string[]): ClaudeTurn | undefined {
    if (uuids.length > 0) {
      for (const uuid of uuids) {
        const owner = this.byUuid.get(uuid);
        if (owner) return owner.finalized ? undefined : owner;
      }
      const active = this.active();
      return active?.role === "observed" ? active : undefined;
    }
    const active = this.active();
    return active?.role === "observed" ? active : undefined;
  }

  /** Mark uuids answered; true when the turn has nothing left pending. */
  settle(turn: ClaudeTurn, uuids: readonly string[]): boolean {
    for (const uuid of uuids) {
      turn.pending.delete(uuid);
      this.byUuid.delete(uuid);
    }
    return turn.pending.size === 0;
  }

  /** Close a turn once; false when it was already closed. */
  finalize(turn: ClaudeTurn): boolean {
    if (turn.finalized) return false;
    turn.finalized = true;
    for (const uuid of turn.pending) this.byUuid.delete(uuid);
    turn.pending.clear();
    return true;
  }
}
