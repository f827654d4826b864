/**
 * Self-heal repairs (seed kernel §4): when a turn closes, whatever it left open is settled with Baton's own
 * events through the normal append path — never claimed as completed. A later fact from the harness (a late
 * `completed`) still wins, as any upsert does.
 */
import { selectOpenToolCalls, type ProjectionState } from "../projection/index.ts";
import type { TargetId, TurnId } from "../shared/ids.ts";
import type { AppendFn } from "./pipeline.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

/** Close the turn's tool cards that are still pending or running as `interrupted`; returns how many. */
export function repairOpenTools(state: ProjectionState, append: AppendFn, turnId: TurnId, harnessTargetId: TargetId | null): number {
  const open = selectOpenToolCalls(state, turnId);
  for (const tool of open) {
    append({
      kind: "tool_call_update",
      payload: { toolCallId: tool.toolCallId, status: "interrupted" },
      source: BATON_SOURCE,
      turnId,
      ...(harnessTargetId === null ? {} : { harnessTargetId }),
    });
  }
  return open.length;
}
