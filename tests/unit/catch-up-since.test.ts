/**
 * Per-turn cost in a long session (issue #18): a turn's catch-up resolves the texts of the turns it may deliver
 * (after the binding's epoch), not of every earlier turn — same catch-up, byte for byte, for every cut.
 */
import { expect, test } from "bun:test";
import { assembleCatchUp } from "../../src/context/catch-up.ts";
import { summaryRecords } from "../../src/controller/context-delivery.ts";
import { targetIdOf } from "../../src/shared/ids.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { testSessions } from "../support/session-host.ts";

const sessions = testSessions();

test("summaryRecords since a seq: texts only after it, and the same catch-up as from every record", async () => {
  const said = (text: string) => [{ type: "text" as const, text }, { type: "end" as const }];
  const opened = await sessions.open({ definitions: [fakeDefinition({ turns: [said("one"), said("two"), said("three"), said("four")] })] });
  for (const prompt of ["first", "second", "third", "fourth"]) expect(await opened.controller.submit("fake", [{ type: "text", text: prompt }])).toBe("completed");
  const state = opened.controller.state;
  const label = (id: string): string => id;
  const full = summaryRecords(state, label);
  expect(full.map((record) => record.userText)).toEqual(["first", "second", "third", "fourth"]);
  for (const sinceSeq of [0, ...full.map((record) => record.seq)]) {
    const since = summaryRecords(state, label, sinceSeq);
    expect(since.filter((record) => record.seq <= sinceSeq).every((record) => record.userText === "" && record.agentText === "")).toBe(true);
    for (const fresh of [true, false]) {
      for (const targetId of [targetIdOf("fake"), targetIdOf("other")]) {
        for (const budgetChars of [100_000, 60, 0]) {
          const request = { sinceSeq, fresh, targetId, budgetChars };
          expect(assembleCatchUp({ ...request, summaries: since })).toEqual(assembleCatchUp({ ...request, summaries: full }));
        }
      }
    }
  }
});
