/**
 * Limit failover (#20.3): when a driven turn fails because its agent's usage is used up (`quota_exhausted`, mapped
 * at the adapter boundary), Baton proposes — never does — continuing the interrupted prompt on another agent:
 * a non-blocking `proposed_input` requested by `baton`. Accepting it is an ordinary prompt to that target, so the
 * target gets the session's history through the usual relay. `rate_limited` and every other error propose
 * nothing; `failover: { <target>: off }` turns it off for that target. One proposal per failed turn (its dedupeKey).
 */
import type { AnyEvent } from "../event/envelope.ts";
import { isKind } from "../event/envelope.ts";
import type { LimitCode } from "../event/limit-codes.ts";
import { outcomeOfStopReason } from "../event/stop-reasons.ts";
import type { HarnessRegistry } from "../harness/registry.ts";
import { summaryTexts, type ProjectionState } from "../projection/index.ts";
import type { Logger } from "../shared/log.ts";
import type { Proposals } from "./proposals.ts";
import type { TargetId, TurnId } from "../shared/ids.ts";

const QUOTA: LimitCode = "quota_exhausted";

export interface FailoverDeps {
  readonly proposals: Proposals;
  readonly registry: HarnessRegistry;
  readonly state: () => ProjectionState;
  readonly policy: Readonly<Record<string, "ask" | "off">> | undefined;
  readonly label: (targetId: TargetId) => string;
  readonly log: Logger;
}

/** The other agent to continue on: one of another harness used in this session, else of another harness, else any other target. */
export function failoverTarget(registry: HarnessRegistry, state: ProjectionState, failing: TargetId): TargetId | undefined {
  const targets = registry.listTargets().filter((target) => target.id !== failing);
  const harness = registry.hasTarget(failing) ? registry.target(failing).harness : undefined;
  const other = targets.filter((target) => target.harness !== harness);
  const used = other.find((target) => Object.hasOwn(state.perTarget, target.id));
  return (used ?? other[0] ?? targets[0])?.id;
}

export class Failover {
  /** Turns that reported quota_exhausted, until their summary says how they ended. */
  private readonly exhausted = new Map<TurnId, TargetId>();

  constructor(private readonly deps: FailoverDeps) {}

  readonly onEvent = (event: AnyEvent): void => {
    if (isKind(event, "_baton_error_update")) {
      if (event.payload.code === QUOTA && event.turnId !== undefined && event.harnessTargetId !== undefined && event.payload.willRetry !== true) {
        this.exhausted.set(event.turnId, event.harnessTargetId);
      }
      return;
    }
    if (!isKind(event, "_baton_turn_summary")) return;
    const failing = this.exhausted.get(event.payload.turnId);
    if (failing === undefined) return;
    this.exhausted.delete(event.payload.turnId);
    const summary = event.payload;
    if (summary.role === "observed" || outcomeOfStopReason(summary.stopReason) !== "failed") return;
    const texts = summaryTexts(this.deps.state(), summary);
    const text = [texts.userText, ...texts.steers].filter((part) => part.trim() !== "").join("\n\n");
    if (text === "" || (this.deps.policy?.[failing] ?? "ask") === "off") return;
    const target = failoverTarget(this.deps.registry, this.deps.state(), failing);
    if (target === undefined) return;
    try {
      this.deps.proposals.open(
        { type: "baton" },
        {
          text,
          targetId: target,
          title: `${this.deps.label(failing)} hit its usage limit. Continue this task on ${this.deps.label(target)}?`,
          dedupeKey: `failover:${summary.turnId}`,
        },
      );
    } catch (error) {
      this.deps.log.log("warn", "could not propose a failover", { error, attributes: { turnId: summary.turnId } });
    }
  };
}
