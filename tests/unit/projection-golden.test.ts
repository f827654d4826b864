/**
 * Golden ledgers: each `tests/fixtures/ledgers/<name>.jsonl` is replayed and its projection compared with
 * the reviewed `<name>.expected.json` next to it. `UPDATE_GOLDENS=1` rewrites the expected files (review
 * the diff before committing). The summaries inside the ledgers must be what `buildTurnSummary` builds (a wave-1
 * summary, which copied its texts, must name messages that resolve to those same texts).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { decodeEnvelope, isKind, validatePayload, type AnyEvent } from "../../src/event/envelope.ts";
import {
  buildTurnSummary,
  createTranscriptSelector,
  initialState,
  plainState,
  reduce,
  selectActivity,
  selectFooter,
  summaryTexts,
  tableValues,
  type ProjectionState,
} from "../../src/projection/index.ts";

const DIR = path.join(import.meta.dir, "..", "fixtures", "ledgers");
const UPDATE = process.env["UPDATE_GOLDENS"] === "1";

function readLedger(file: string): AnyEvent[] {
  const lines = readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "");
  return lines.map((line, i) => {
    const decoded = decodeEnvelope(JSON.parse(line));
    if (!decoded.ok) throw new Error(`${path.basename(file)} line ${i + 1}: ${decoded.reason}`);
    const problem = validatePayload(decoded.event.kind, decoded.event.payload);
    if (problem !== undefined) throw new Error(`${path.basename(file)} line ${i + 1}: ${problem}`);
    return decoded.event;
  });
}

/** What a reviewer checks: the plain state plus what each surface selects from it. */
function view(state: ProjectionState): unknown {
  const transcript = createTranscriptSelector()(state).map((entry) => `${entry.type}:${entry.id}`);
  const unsummarized = tableValues(state.turnData)
    .map((data) => data.turnId)
    .sort()
    .map((turnId) => buildTurnSummary(state, turnId, undefined, undefined));
  const value = { transcript, activity: selectActivity(state), footer: selectFooter(state), unsummarized, state: plainState(state) };
  return JSON.parse(JSON.stringify(value));
}

const names = readdirSync(DIR)
  .filter((file) => file.endsWith(".jsonl"))
  .map((file) => file.slice(0, -".jsonl".length))
  .sort();

describe("golden ledgers", () => {
  test("there are golden ledgers to check", () => {
    expect(names.length).toBeGreaterThanOrEqual(6);
  });

  for (const name of names) {
    test(name, () => {
      const events = readLedger(path.join(DIR, `${name}.jsonl`));
      let state = initialState();
      for (const event of events) {
        if (isKind(event, "_baton_turn_summary")) {
          const { turnId, stopReason, endedAt } = event.payload;
          const built = buildTurnSummary(state, turnId, stopReason, endedAt);
          const { userText, steers, agentText, ...stored } = event.payload;
          if (userText === undefined && steers === undefined && agentText === undefined) {
            expect(built).toEqual(event.payload);
          } else {
            // A wave-1 summary carries copies of its texts; today's names the same messages instead.
            const { userMessageId: _user, steerMessageIds: _steers, agentMessageIds: _agent, ...rest } = built;
            expect(rest).toEqual(stored);
            const texts = { userText: userText ?? "", steers: steers ?? [], agentText: agentText ?? "" };
            expect(summaryTexts(state, built)).toEqual(texts);
            expect(summaryTexts(state, event.payload)).toEqual(texts);
          }
        }
        state = reduce(state, event);
      }
      const actual = view(state);
      const expectedFile = path.join(DIR, `${name}.expected.json`);
      if (UPDATE || !existsSync(expectedFile)) {
        if (!UPDATE) throw new Error(`${name}.expected.json is missing; run with UPDATE_GOLDENS=1 and review it`);
        writeFileSync(expectedFile, `${JSON.stringify(actual, null, 2)}\n`);
      }
      expect(actual).toEqual(JSON.parse(readFileSync(expectedFile, "utf8")));
    });
  }
});
