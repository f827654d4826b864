/**
 * Property (issue 19): for random sessions — turns of the fake harness writing and deleting files, the user
 * editing files between turns — a rewind to any turn either is refused, naming only files the user changed
 * after that point, or leaves the worktree exactly as it was before that turn and a fork whose projection
 * (without its closing rewind checkpoint) equals the projection of the source's prefix through the fork point,
 * up to event ids: a fork's events are new events (same seq, new eventId, parent links remapped), so the
 * provenance the projection exposes (an attempt's admissionEventId, #12.6) points into the fork — the event of
 * the same seq — and never back into the source.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { listToArray, plainState, replay, selectRewindPoints } from "../../src/projection/index.ts";
import { performRewind, planRewind, rewindSessionOf } from "../../src/app/rewind.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { createUlidSource } from "../../src/shared/ids.ts";
import { readLedgerFile } from "../../src/store/index.ts";
import { fakeDefinition, type FakeAction } from "../support/fake-adapter.ts";
import { filesOf, gitEnv, initRepo, writeFiles } from "../support/git-repo.ts";
import { makeTestHome, openTestSession, waitFor } from "../support/session-host.ts";

const file = fc.constantFrom("a.txt", "b.txt", "dir/c.txt");
const content = fc.constantFrom("1\n", "2\n", "three\n", null);
const turnArb = fc.record({
  writes: fc.array(fc.record({ path: file, content }), { minLength: 0, maxLength: 3 }),
  userEdits: fc.array(fc.record({ path: fc.constantFrom("a.txt", "notes.md"), content: fc.constantFrom("user 1\n", "user 2\n") }), { maxLength: 1 }),
});
const scenario = fc.record({ turns: fc.array(turnArb, { minLength: 1, maxLength: 3 }), pick: fc.nat(10), editAfterLast: fc.boolean() });

/** The projection as data, without the session id (a fork has its own). */
function projectionOf(events: readonly AnyEvent[]): unknown {
  const { batonSessionId: _, ...rest } = plainState(replay(events));
  return JSON.parse(JSON.stringify(rest));
}

/** `value` with every string (key or value) that `rename` maps replaced by its image. */
function renamed(value: unknown, rename: ReadonlyMap<string, string>): unknown {
  if (typeof value === "string") return rename.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => renamed(item, rename));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [rename.get(key) ?? key, renamed(item, rename)]));
  }
  return value;
}

/** Every string (key or value) in `value`. */
function stringsOf(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === "string") into.add(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, into);
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      stringsOf(item, into);
    }
  }
  return into;
}

/**
 * The fork's events are the prefix's, seq for seq, each with its own new eventId; the fork's projection is
 * the prefix's with each source event id read as the fork's event of the same seq, and names no source event.
 */
function expectForkProjectsAsPrefix(fork: readonly AnyEvent[], prefix: readonly AnyEvent[]): void {
  expect(fork.map((event) => event.seq)).toEqual(prefix.map((event) => event.seq));
  const rename = new Map(prefix.map((event, index) => [event.eventId as string, fork[index]!.eventId as string]));
  for (const [from, to] of rename) expect(to).not.toBe(from);
  const forkProjection = projectionOf(fork);
  expect(forkProjection).toEqual(renamed(projectionOf(prefix), rename));
  const named = stringsOf(forkProjection);
  expect(prefix.filter((event) => named.has(event.eventId)).map((event) => event.eventId)).toEqual([]);
}

describe("rewind property", () => {
  test("refused only over the user's own later edits; otherwise the files are the checkpoint's and the fork's projection is the prefix projection (its ids the fork's own)", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ turns, pick, editAfterLast }) => {
        const home = makeTestHome();
        try {
          initRepo(home.cwd, { "a.txt": "0\n", "notes.md": "notes\n" });
          const queue: FakeAction[][] = turns.map((t) => t.writes.map((w) => ({ type: "write" as const, path: w.path, content: w.content })));
          const s = await openTestSession(home, { definitions: [fakeDefinition({ turns: queue })], fileCheckpoints: true, env: gitEnv() });
          const beforeTurn: Record<string, string>[] = [];
          const editedBefore: Set<string>[] = [];
          try {
            for (const [index, turn] of turns.entries()) {
              if (index > 0) for (const edit of turn.userEdits) writeFiles(home.cwd, { [edit.path]: edit.content });
              editedBefore.push(new Set(index > 0 ? turn.userEdits.map((e) => e.path) : []));
              beforeTurn.push(filesOf(home.cwd));
              await s.controller.submit("fake", [{ type: "text", text: `turn ${index}` }]);
              await waitFor(() => listToArray(s.controller.state.fileCheckpoints).filter((c) => c.boundary === "after").length === index + 1, 10_000, "the after-turn checkpoint");
            }
            if (editAfterLast) writeFiles(home.cwd, { "notes.md": "edited after the last turn\n" });
            const session = rewindSessionOf(s, { store: home.store, ids: createUlidSource(), clock: systemClock, env: {} });
            const points = selectRewindPoints(s.controller.state).reverse();
            expect(points.length).toBe(turns.length);
            const chosen = pick % points.length;
            const point = points[chosen]!;
            const userEditedSince = new Set([...editedBefore.slice(chosen + 1).flatMap((set) => [...set]), ...(editAfterLast ? ["notes.md"] : [])]);
            const plan = await planRewind(session, point.id);
            if (userEditedSince.size === 0) expect(plan.refused).toBeUndefined();
            if (plan.refused) {
              expect(plan.refused.paths.length).toBeGreaterThan(0);
              for (const p of plan.refused.paths) expect(userEditedSince.has(p)).toBe(true);
              return;
            }
            const done = await performRewind(session, plan);
            expect(filesOf(home.cwd)).toEqual(beforeTurn[chosen]!);
            const source = readLedgerFile(s.ref.paths.ledger);
            const fork = readLedgerFile(home.store.findSession(done.newSessionId).paths.ledger);
            expect(fork.at(-1)?.kind).toBe("_baton_checkpoint");
            expectForkProjectsAsPrefix(fork.slice(0, -1), source.filter((e) => e.seq <= point.fork.throughSeq));
          } finally {
            await s.close();
          }
        } finally {
          home.cleanup();
        }
      }),
      { numRuns: 12 },
    );
  }, 180_000);
});
