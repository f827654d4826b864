/**
 * The background work a turn leaves (issue #18): the turn-end hook bumps meta.json's updatedAt and starts a
 * checkpoint, both off the turn's path. `backgroundSettled()` resolves only once that work is on disk — what the
 * overhead benchmarks charge to the turn that caused it, instead of to whatever runs next.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { checkpointPathFor } from "../../src/store/checkpoint.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { ledgerOf, testSessions } from "../support/session-host.ts";

const sessions = testSessions();

test("backgroundSettled waits for the turn-end meta.json write and the checkpoint it starts", async () => {
  const opened = await sessions.open({ definitions: [fakeDefinition({ turns: [[{ type: "text", text: "hello" }, { type: "end" }]] })] });
  const checkpoint = checkpointPathFor(opened.ledger.path);
  expect(await opened.controller.submit("fake", [{ type: "text", text: "hi" }])).toBe("completed");
  const summary = ledgerOf(opened).find((event) => event.kind === "_baton_turn_summary");
  expect(summary).toBeDefined();
  // The hook runs after the turn settled: nothing of it is on disk yet when submit resolves.
  const metaFile = path.join(opened.ref.paths.dir, "meta.json");
  expect((JSON.parse(readFileSync(metaFile, "utf8")) as { updatedAt?: string }).updatedAt).not.toBe(summary!.ts);
  expect(existsSync(checkpoint)).toBe(false);
  await opened.backgroundSettled();
  expect((JSON.parse(readFileSync(metaFile, "utf8")) as { updatedAt?: string }).updatedAt).toBe(summary!.ts);
  expect(existsSync(checkpoint)).toBe(true);
  // Nothing new since: it resolves at once, and again after a second turn's work.
  await opened.backgroundSettled();
});
