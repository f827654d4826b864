/**
 * The id fields of the event registry. Each parses to its branded id (`.brand()`, zod's brand is the one in
 * shared/ids.ts), so a stored event carries `TurnId`, `MessageId`, `TargetId`, … with no cast: the store
 * validates every draft on append and the ledger reads only what it wrote. Drafts take plain strings (zod's
 * input side); `satisfies` holds each brand name to its type.
 */
import type { z } from "zod";
import { lazySchema } from "../shared/lazy-schema.ts";
import type { AttemptId, BatonSessionId, EpochId, InteractionId, MessageId, PluginInstanceId, ReviewId, SnapshotId, TargetId, TurnId } from "../shared/ids.ts";

export const turnIdField = lazySchema((z) => z.string().min(1).brand<"TurnId">()) satisfies z.core.$ZodType<TurnId, string>;
export const messageIdField = lazySchema((z) => z.string().min(1).brand<"MessageId">()) satisfies z.core.$ZodType<MessageId, string>;
/** A message id in a turn summary's lists (read as stored: no length check, as before brands). */
export const messageRefField = lazySchema((z) => z.string().brand<"MessageId">()) satisfies z.core.$ZodType<MessageId, string>;
export const interactionIdField = lazySchema((z) => z.string().min(1).brand<"InteractionId">()) satisfies z.core.$ZodType<InteractionId, string>;
export const reviewIdField = lazySchema((z) => z.string().min(1).brand<"ReviewId">()) satisfies z.core.$ZodType<ReviewId, string>;
export const snapshotIdField = lazySchema((z) => z.string().min(1).brand<"SnapshotId">()) satisfies z.core.$ZodType<SnapshotId, string>;
export const epochIdField = lazySchema((z) => z.string().min(1).brand<"EpochId">()) satisfies z.core.$ZodType<EpochId, string>;
export const attemptIdField = lazySchema((z) => z.string().min(1).brand<"AttemptId">()) satisfies z.core.$ZodType<AttemptId, string>;
export const sessionIdField = lazySchema((z) => z.string().min(1).brand<"BatonSessionId">()) satisfies z.core.$ZodType<BatonSessionId, string>;
export const pluginInstanceIdField = lazySchema((z) => z.string().regex(/^pi_[0-9A-Za-z]+$/).brand<"PluginInstanceId">()) satisfies z.core.$ZodType<PluginInstanceId, string>;
export const targetIdField = lazySchema((z) => z.string().min(1).brand<"TargetId">()) satisfies z.core.$ZodType<TargetId, string>;
/** An optional target named in a payload (read as stored: no length check, as before brands). */
export const targetRefField = lazySchema((z) => z.string().brand<"TargetId">()) satisfies z.core.$ZodType<TargetId, string>;
