/**
 * A test's literal ids, branded the way config, the command line and the ledger brand theirs: a test is its
 * own door. `brand.turn("t_1")` is a `TurnId`, `brand.target("fake")` a `TargetId`, and so on.
 */
import { targetIdOf, type AttemptId, type BatonSessionId, type EpochId, type EventId, type InteractionId, type MessageId, type PluginInstanceId, type SnapshotId, type TurnId } from "../../src/shared/ids.ts";

export const brand = {
  target: targetIdOf,
  turn: (id: string): TurnId => id as TurnId,
  message: (id: string): MessageId => id as MessageId,
  interaction: (id: string): InteractionId => id as InteractionId,
  attempt: (id: string): AttemptId => id as AttemptId,
  snapshot: (id: string): SnapshotId => id as SnapshotId,
  epoch: (id: string): EpochId => id as EpochId,
  event: (id: string): EventId => id as EventId,
  session: (id: string): BatonSessionId => id as BatonSessionId,
  plugin: (id: string): PluginInstanceId => id as PluginInstanceId,
};
