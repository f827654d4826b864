/**
 * Turn summaries as a reader sees them: each summary with its texts resolved from the messages it names
 * (summaries store each text once, by messageId). For tests that read a ledger's summaries.
 */
import type { AnyEvent } from "../../src/event/envelope.ts";
import type { TurnSummaryPayload } from "../../src/event/kinds.ts";
import { allSummaries, replay, summaryTexts } from "../../src/projection/index.ts";

export type ReadSummary = TurnSummaryPayload & {
  readonly userText: string;
  readonly steers: string[];
  readonly agentText: string;
  readonly harnessTargetId: string | null;
};

export function readSummaries(events: readonly AnyEvent[]): ReadSummary[] {
  const state = replay(events);
  return allSummaries(state).map((entry) => {
    const texts = summaryTexts(state, entry);
    return { ...entry, userText: texts.userText, steers: [...texts.steers], agentText: texts.agentText };
  });
}
