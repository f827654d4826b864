/**
 * The terminal decision (TURN-02/03, ATT-03) as given/when/then rows: given the turn's record (or none) and
 * whether an attempt waits as uncertain, when a terminal arrives from the harness or from Baton, then the
 * attempt phases appended, whether a late terminal may still settle it, and the notice.
 */
import { describe, expect, test } from "bun:test";
import { decideTerminal, type TerminalDecision, type TerminalFacts } from "../../src/controller/terminal-decision.ts";

const driven = (attemptPhase: NonNullable<TerminalFacts["open"]>["attemptPhase"], compact = false) => ({ role: "driven" as const, compact, attemptPhase });
const close = (attempt: Extract<TerminalDecision, { kind: "close" }>["attempt"], notice: "interrupted" | "compaction" | null = null, awaitLate = false): TerminalDecision => ({
  kind: "close",
  attempt,
  awaitLate,
  notice,
});

const rows: ReadonlyArray<readonly [string, TerminalFacts, TerminalDecision]> = [
  ["given no open turn, when Baton closes it again, then nothing", { fromHarness: false, stopReason: "cancelled", uncertain: false }, { kind: "inert" }],
  ["given no open turn and no uncertain attempt, when the harness ends it late, then nothing", { fromHarness: true, stopReason: "end_turn", uncertain: false }, { kind: "inert" }],
  [
    "given a closed turn whose attempt is uncertain, when the harness ends it late, then the attempt is finalized with the harness's outcome",
    { fromHarness: true, stopReason: "end_turn", uncertain: true },
    { kind: "settle_late", step: { phase: "finalized", outcome: "completed", detail: "late harness terminal" } },
  ],
  [
    "given a closed turn whose attempt is uncertain, when Baton closes it again, then nothing (only the harness settles it)",
    { fromHarness: false, stopReason: "failed", uncertain: true },
    { kind: "inert" },
  ],
  [
    "given a dispatching attempt, when the harness ends the turn, then accepted and finalized",
    { fromHarness: true, stopReason: "end_turn", open: driven("dispatching"), uncertain: false },
    close([{ phase: "accepted" }, { phase: "finalized", outcome: "completed" }]),
  ],
  [
    "given an accepted attempt, when the harness ends the turn failed, then finalized failed",
    { fromHarness: true, stopReason: "failed", open: driven("accepted"), uncertain: false },
    close([{ phase: "finalized", outcome: "failed" }]),
  ],
  [
    "given an unknown stop reason, when the harness ends the turn, then the attempt is not called a success",
    { fromHarness: true, stopReason: undefined, open: driven("accepted"), uncertain: false },
    close([{ phase: "finalized", outcome: "failed" }]),
  ],
  [
    "given a prepared attempt, when Baton closes the turn, then finalized not_accepted (closed before dispatch)",
    { fromHarness: false, stopReason: "error", open: driven("prepared"), uncertain: false },
    close([{ phase: "finalized", outcome: "not_accepted", detail: "closed before dispatch" }]),
  ],
  [
    "given an accepted attempt, when Baton closes the turn, then uncertain, awaiting a late harness terminal",
    { fromHarness: false, stopReason: "failed", open: driven("accepted"), uncertain: false },
    close([{ phase: "uncertain", detail: "Baton closed the turn (failed) without a harness terminal" }], null, true),
  ],
  [
    "given an attempt already uncertain, when Baton closes the turn, then no new phase, still awaiting",
    { fromHarness: false, stopReason: "failed", open: driven("uncertain"), uncertain: false },
    close([], null, true),
  ],
  [
    "given a finalized attempt, when the harness ends the turn, then no phase",
    { fromHarness: true, stopReason: "end_turn", open: driven("finalized"), uncertain: false },
    close([]),
  ],
  [
    "given a turn without an attempt, when the harness ends it cancelled, then only the interrupted notice",
    { fromHarness: true, stopReason: "cancelled", open: driven(undefined), uncertain: false },
    close([], "interrupted"),
  ],
  [
    "given a driven turn, when the harness ends it cancelled, then the attempt is finalized cancelled and the interrupted notice",
    { fromHarness: true, stopReason: "cancelled", open: driven("accepted"), uncertain: false },
    close([{ phase: "finalized", outcome: "cancelled" }], "interrupted"),
  ],
  [
    "given an observed turn, when it ends cancelled, then no notice",
    { fromHarness: true, stopReason: "cancelled", open: { role: "observed", compact: false, attemptPhase: undefined }, uncertain: false },
    close([]),
  ],
  [
    "given a compaction, when it ends cancelled, then the compaction notice, not the interrupted one",
    { fromHarness: true, stopReason: "cancelled", open: driven("accepted", true), uncertain: false },
    close([{ phase: "finalized", outcome: "cancelled" }], "compaction"),
  ],
  [
    "given a compaction, when it ends, then the compaction notice",
    { fromHarness: true, stopReason: "end_turn", open: driven(undefined, true), uncertain: false },
    close([], "compaction"),
  ],
];

describe("decideTerminal", () => {
  for (const [name, facts, expected] of rows) test(name, () => expect(decideTerminal(facts)).toEqual(expected));
});
