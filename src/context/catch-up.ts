/**
 * Catch-up assembly (CTX-02): the history a target's native session has not seen, built from turn
 * summaries, newest first within a character budget. Pure.
 */
import type { TurnSummaryPayload } from "../event/kinds.ts";
import { fenceBlock } from "../shared/context-markers.ts";
import { outcomeOfStopReason } from "../event/stop-reasons.ts";
import type { TargetId } from "../shared/ids.ts";

export interface SummaryRecord {
  readonly seq: number;
  readonly targetId: TargetId | undefined;
  /** Display label of the target that ran the turn (e.g. the target id). */
  readonly label: string;
  readonly summary: TurnSummaryPayload;
  /** The summary's texts, resolved from the messages it names (`summaryTexts`); read only for the turns that are sent. */
  readonly userText: string;
  readonly steers: readonly string[];
  readonly agentText: string;
}

export interface CatchUpRequest {
  /** The session's summaries in order: all of them, or a tail that holds every one after `sinceSeq` (see `firstNumber`). */
  readonly summaries: readonly SummaryRecord[];
  /** How many of the session's summaries come before `summaries[0]` (0: they are all there); turns are numbered in the session. */
  readonly firstNumber?: number;
  /** Summaries with seq > sinceSeq are candidates. */
  readonly sinceSeq: number;
  /** A fresh native session gets everything; a resumed one only other targets' turns. */
  readonly fresh: boolean;
  readonly targetId: TargetId;
  readonly budgetChars: number;
}

export interface CatchUp {
  readonly text: string;
  readonly afterSeq: number;
  readonly throughSeq: number;
  readonly turns: number;
  readonly omitted: number;
}

const TRUNCATE_MARK = "…";

export function assembleCatchUp(request: CatchUpRequest): CatchUp | undefined {
  const before = request.firstNumber ?? 0;
  const candidates = request.summaries.flatMap((record, index) => (record.seq > request.sinceSeq ? [{ record, number: before + index + 1 }] : []));
  if (candidates.length === 0) return undefined;
  const throughSeq = candidates[candidates.length - 1]?.record.seq ?? request.sinceSeq;
  const numbered = candidates.filter(({ record }) => (request.fresh || record.targetId !== request.targetId) && isConversation(record.summary));
  if (numbered.length === 0) return undefined;

  const header = request.fresh
    ? "Baton: this conversation started before this session of yours. Here is what happened so far (oldest first), so you can continue as if you had been there:"
    : "Baton: other agents worked in this conversation since your last turn. Here is what they did (oldest first):";

  const blocks: string[] = [];
  let used = header.length + 64;
  let omitted = 0;
  for (let index = numbered.length - 1; index >= 0; index--) {
    const entry = numbered[index];
    if (!entry) continue;
    const remaining = request.budgetChars - used;
    const block = formatTurn(entry.record, entry.number, Math.max(0, remaining));
    if (block === undefined) {
      omitted = index + 1;
      break;
    }
    blocks.unshift(block);
    used += block.length + 2;
  }
  if (blocks.length === 0) return undefined;
  const omittedLine = omitted > 0 ? [`(${omitted} earlier turn${omitted === 1 ? "" : "s"} omitted for length)`] : [];
  const text = [header, ...omittedLine, ...blocks].join("\n\n");
  return { text, afterSeq: request.sinceSeq, throughSeq, turns: blocks.length, omitted };
}

/**
 * A turn that failed before the agent said or did anything is not part of the conversation (#12.9): its prompt
 * is never relayed, so a prompt that made one agent's API fail does not reach that agent or another one again.
 * What the agent said is in the messages the summary names (`agentMessageIds`, only those with text), or in a
 * wave-1 summary's own `agentText`.
 */
function isConversation(summary: TurnSummaryPayload): boolean {
  const said = (summary.agentMessageIds?.length ?? 0) > 0 || (summary.agentText ?? "") !== "";
  return outcomeOfStopReason(summary.stopReason) !== "failed" || said || summary.toolCalls.length > 0;
}

/** One turn as text within `room` characters, or undefined when even a minimal form does not fit. */
function formatTurn(record: SummaryRecord, number: number, room: number): string | undefined {
  const summary = record.summary;
  const head = `[${record.label}]\n## Turn ${number} (${summary.stopReason ?? "unknown"})`;
  const tools = summary.toolCalls.map((tool) => `- ${tool.title} (${tool.status})`).join("\n");
  const parts = [
    head,
    record.userText ? `user: ${record.userText}` : undefined,
    ...record.steers.map((steer) => `user (steered in): ${steer}`),
    record.agentText ? `agent: ${record.agentText}` : undefined,
    tools ? `tools:\n${tools}` : undefined,
  ].filter((part): part is string => part !== undefined);
  const full = parts.join("\n");
  if (full.length <= room) return full;
  const minimal = head.length + 40;
  if (room < minimal) return undefined;
  return `${full.slice(0, room - TRUNCATE_MARK.length)}${TRUNCATE_MARK}`;
}

/** The catch-up as it travels: a `<baton-sync>` block that relayed text cannot close or forge. */
export function wrapSync(text: string): string {
  return fenceBlock("baton-sync", text);
}
