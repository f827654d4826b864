/**
 * The background work a turn leaves (issue #18): the turn-end hook bumps meta.json's updatedAt and starts a
 * checkpoint, both off the turn's path. `backgroundSettled()` resolves only once that work is on disk — what the
 * overhead benchmarks charge to the turn that caused it, instead of to whatever runs next. The checkpoint is written
 * once the tail since the last one is worth it (`checkpointTailBytes`), not after every short turn; open and close only
 * past CHECKPOINT_MIN_TAIL_BYTES.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { CHECKPOINT_MIN_TAIL_BYTES } from "../../src/app/open-session.ts";
import { allSummaries } from "../../src/projection/index.ts";
import { checkpointPathFor } from "../../src/store/checkpoint.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { ledgerOf, testSessions } from "../support/session-host.ts";

const sessions = testSessions();

test("backgroundSettled waits for the turn-end meta.json write and the checkpoint it starts", async () => {
  const opened = await sessions.open({ definitions: [fakeDefinition({ turns: [[{ type: "text", text: "hello" }, { type: "end" }]] })], checkpointTailBytes: 0 });
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

test("a turn end writes a checkpoint only once the ledger grew by checkpointTailBytes since the last one; a crash replays the tail", async () => {
  const long = "word ".repeat(3000); // ≈ 15 KB of answer: one turn crosses the 8 KiB tail
  const turns = [[{ type: "text" as const, text: "short" }, { type: "end" as const }], [{ type: "text" as const, text: long }, { type: "end" as const }], [{ type: "text" as const, text: "short again" }, { type: "end" as const }]];
  const definitions = [fakeDefinition({ turns })];
  const opened = await sessions.open({ definitions, checkpointTailBytes: 8192 });
  const checkpoint = checkpointPathFor(opened.ledger.path);
  const headerSeq = () => (JSON.parse(readFileSync(checkpoint, "utf8").split("\n")[0]!) as { seq: number }).seq;
  const metaFile = path.join(opened.ref.paths.dir, "meta.json");
  const updatedAt = () => (JSON.parse(readFileSync(metaFile, "utf8")) as { updatedAt?: string }).updatedAt;

  expect(await opened.controller.submit("fake", [{ type: "text", text: "one" }])).toBe("completed");
  await opened.backgroundSettled();
  // A short turn: meta.json's activity is recorded, no checkpoint is written for a tail of a few KB.
  expect(updatedAt()).toBe(ledgerOf(opened).findLast((event) => event.kind === "_baton_turn_summary")!.ts);
  expect(existsSync(checkpoint)).toBe(false);

  expect(await opened.controller.submit("fake", [{ type: "text", text: "two" }])).toBe("completed");
  await opened.backgroundSettled();
  expect(existsSync(checkpoint)).toBe(true);
  const afterLong = headerSeq();
  expect(afterLong).toBe(ledgerOf(opened).findLast((event) => event.kind === "_baton_turn_summary")!.seq);

  expect(await opened.controller.submit("fake", [{ type: "text", text: "three" }])).toBe("completed");
  await opened.backgroundSettled();
  expect(headerSeq()).toBe(afterLong); // the short turn after it adds to the tail only
  const events = ledgerOf(opened);

  // kill -9 (no close, so no checkpoint at close): the next open replays the short turn's tail from the checkpoint.
  opened.lock.release();
  sessions.forget(opened);
  const again = await sessions.open({ definitions, choice: { kind: "id", id: opened.ref.batonSessionId } }, true);
  expect(again.loaded.fromCheckpoint).toBe(true);
  expect(again.loaded.replayed).toBe(events.filter((event) => event.seq > afterLong).length);
  expect(again.loaded.position.seq).toBe(events.at(-1)!.seq);
  expect(allSummaries(again.controller.state).map((summary) => summary.seq)).toEqual(events.filter((event) => event.kind === "_baton_turn_summary").map((event) => event.seq));
});

test("open and close write a checkpoint only past CHECKPOINT_MIN_TAIL_BYTES of tail; the next open replays a shorter one", async () => {
  const long = "word ".repeat(Math.ceil(CHECKPOINT_MIN_TAIL_BYTES / 5)); // one answer longer than the limit
  const answering = (text: string) => [fakeDefinition({ turns: [[{ type: "text", text }, { type: "end" }]] })];
  const opened = await sessions.open({ definitions: answering("short") });
  const checkpoint = checkpointPathFor(opened.ledger.path);
  const id = opened.ref.batonSessionId;
  expect(await opened.controller.submit("fake", [{ type: "text", text: "one" }])).toBe("completed");
  await opened.close();
  expect(opened.ledger.byteLength).toBeLessThan(CHECKPOINT_MIN_TAIL_BYTES);
  expect(existsSync(checkpoint)).toBe(false);

  // Opened without one, and the short ledger is not worth one either: the open writes none in the background.
  const again = await sessions.open({ definitions: answering(long), choice: { kind: "id", id } }, true);
  expect(again.loaded.fromCheckpoint).toBe(false);
  await again.backgroundSettled();
  expect(existsSync(checkpoint)).toBe(false);
  expect(allSummaries(again.controller.state)).toHaveLength(1);
  expect(await again.controller.submit("fake", [{ type: "text", text: "two" }])).toBe("completed");
  await again.close();
  const header = JSON.parse(readFileSync(checkpoint, "utf8").split("\n")[0]!) as { seq: number };
  expect(header.seq).toBe(ledgerOf(again).at(-1)!.seq);

  const third = await sessions.open({ definitions: answering("short"), choice: { kind: "id", id } }, true);
  expect(third.loaded.fromCheckpoint).toBe(true);
  expect(third.loaded.replayed).toBe(0);
  expect(allSummaries(third.controller.state)).toHaveLength(2);
});

test("meta.json's updatedAt is written at the first turn end, then at most once per metaTouchMs (a later one when its time comes), and at close", async () => {
  const clock = new ManualClock();
  const said = (text: string) => [{ type: "text" as const, text }, { type: "end" as const }];
  const opened = await sessions.open({ definitions: [fakeDefinition({ turns: [said("one"), said("two"), said("three")] })], clock, metaTouchMs: 10_000 });
  const metaFile = path.join(opened.ref.paths.dir, "meta.json");
  const onDisk = () => (JSON.parse(readFileSync(metaFile, "utf8")) as { updatedAt?: string }).updatedAt;
  const lastSummary = () => ledgerOf(opened).findLast((event) => event.kind === "_baton_turn_summary")!.ts;
  const turn = async (text: string) => {
    expect(await opened.controller.submit("fake", [{ type: "text", text }])).toBe("completed");
    await opened.backgroundSettled();
  };

  await turn("first");
  const first = lastSummary();
  expect(onDisk()).toBe(first); // the first turn end's at once
  clock.advance(1_000);
  await turn("second");
  const second = lastSummary();
  expect(second > first).toBe(true);
  expect(onDisk()).toBe(first); // held back: written 10 s after the last write
  expect(opened.meta().updatedAt).toBe(first);
  clock.advance(9_000);
  await opened.backgroundSettled();
  expect(onDisk()).toBe(second);
  clock.advance(1_000);
  await turn("third");
  const third = lastSummary();
  expect(onDisk()).toBe(second);
  await opened.close();
  expect(onDisk()).toBe(third); // close writes the last
  clock.advance(60_000); // nothing left armed to write after close
  expect(onDisk()).toBe(third);
});
