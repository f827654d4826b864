/** What the projection keeps per HarnessTarget (the targets projection, `perTarget`). */
import type { ApprovalRoute, PayloadOf } from "../event/kinds.ts";
import type { EpochId, TargetId } from "../shared/ids.ts";

export type ContextUsage = PayloadOf<"context_usage_update">;
export type AvailableCommand = PayloadOf<"available_commands_update">["commands"][number];
export type ConfigOption = PayloadOf<"config_option_update">["options"][number];

/** Everything keyed by a concrete HarnessTarget id (never by harness name). */
export interface TargetState {
  readonly harnessTargetId: TargetId;
  readonly harness: string | null;
  readonly contextUsage: ContextUsage | null;
  readonly commands: readonly AvailableCommand[] | null;
  readonly configOptions: readonly ConfigOption[] | null;
  readonly lastPlanId: string | null;
  /** The epoch of the last receipted context delivery to this target. */
  readonly contextEpochId: EpochId | null;
  /** Who answers this target's approvals, as its harness last reported it; absent until it reports (IX-08). */
  readonly approvalRoute?: ApprovalRoute | null;
}
