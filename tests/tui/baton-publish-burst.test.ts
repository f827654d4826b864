/**
 * #18: the events a turn appends in one task (its start, its end) reach the view as one composition and one
 * publication, and that publication shows every one of them (TuiHost over a real session, fake harness).
 */
import { afterEach, expect, test } from "bun:test";
import { TuiHost } from "../../src/tui/index.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { brand } from "../support/ids.ts";
import { makeTestHome, openTestSession } from "../support/session-host.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const endOfTask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function hostOnSession() {
  const home = makeTestHome();
  const session = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] }, "fake")], settings: { generateTitles: false } });
  const host = new TuiHost({
    session: { sessionId: session.ref.batonSessionId, cwd: home.cwd, controller: session.controller, recovered: false, title: () => "t" },
    sessions: { list: async () => [], open: () => Promise.reject(new Error("no")), close: async () => undefined },
    initialTarget: brand.target("fake"),
    showThoughts: true,
    clock: systemClock,
  });
  cleanups.push(home.cleanup, () => session.close(), () => host.dispose());
  return { session, host };
}

test("a burst of events in one task publishes once, and the publication shows every event", async () => {
  const { session, host } = await hostOnSession();
  await endOfTask();
  const commits: string[][] = [];
  const commit = host.store.commit.bind(host.store);
  host.store.commit = (patch) => {
    commits.push(Object.keys(patch));
    commit(patch);
  };
  const append = session.controller.pipeline.append;
  const turnId = "t_burst" as never;
  append({ kind: "user_message", source: { type: "user" }, turnId, targetId: "fake", payload: { messageId: "m_u", content: [{ type: "text", text: "first question" }], delivery: "prompt" } } as never);
  append({ kind: "state_update", source: { type: "baton" }, turnId, targetId: "fake", payload: { state: "running" } } as never);
  append({ kind: "agent_message_chunk", source: { type: "harness" }, turnId, targetId: "fake", payload: { messageId: "m_a", content: { type: "text", text: "the answer" } } } as never);
  append({ kind: "state_update", source: { type: "baton" }, turnId, targetId: "fake", payload: { state: "idle", stopReason: "end_turn" } } as never);
  expect(commits).toHaveLength(0);
  await endOfTask();
  expect(commits).toHaveLength(1);
  const items = host.store.get("timeline").items.map((item) => ({ kind: item.kind, text: (item as { text?: string }).text }));
  expect(items).toEqual([
    { kind: "user", text: "first question" },
    { kind: "agent", text: "the answer" },
  ]);
  expect(host.store.get("composer").busy).not.toBe(true);
  // What was published is what a fresh composition of the same state shows.
  const fresh = new TuiHost({ ...(host as unknown as { options: ConstructorParameters<typeof TuiHost>[0] }).options });
  cleanups.push(() => fresh.dispose());
  expect(fresh.store.get("timeline").items).toEqual(host.store.get("timeline").items);
  expect(fresh.store.get("footer")).toEqual(host.store.get("footer"));
  await endOfTask();
  expect(commits).toHaveLength(1);
});
