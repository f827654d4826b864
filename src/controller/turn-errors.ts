/** How a turn's failure reads: the error, what to do about it, and (for the submitter) which session and target. */
import { BatonError, describeError } from "../shared/errors.ts";
import type { TargetId } from "../shared/ids.ts";

/** The error's message and, for a BatonError that has one, its hint. */
export function withHint(error: unknown): string {
  const hint = error instanceof BatonError ? error.hint : undefined;
  return hint ? `${describeError(error)}. ${hint}` : describeError(error);
}

/** IN-08: `BatonSession <id> · <target>: <detail>`, keeping the BatonError code. */
export function sessionError(sessionId: string, targetId: TargetId, error: unknown): Error {
  const message = `BatonSession ${sessionId} · ${targetId}: ${withHint(error)}`;
  return error instanceof BatonError ? new BatonError(error.code, message, { cause: error }) : new Error(message, { cause: error });
}
