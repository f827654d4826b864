/**
 * #18: the events a turn appends in one task (its start, its end) reach the view as one composition and one
 * publication, and that publication shows every one of them (TuiHost over a real session, fake harness). It comes
 * after the timers that fell due while the task ran, not in the same stretch of the main thread.
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

/** After the task and the publication it scheduled (a 0 ms timer, scheduled after the host's). */
const afterTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

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
  await afterTask();
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
  await afterTask();
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
  await afterTask();
  expect(commits).toHaveLength(1);
});

test("the publication waits for the timers that fell due while the task ran", async () => {
  const { session, host } = await hostOnSession();
  await afterTask();
  const order: string[] = [];
  const commit = host.store.commit.bind(host.store);
  host.store.commit = (patch) => {
    order.push("publication");
    commit(patch);
  };
  setTimeout(() => order.push("timer"), 1);
  const turnId = "t_due" as never;
  session.controller.pipeline.append({ kind: "user_message", source: { type: "user" }, turnId, targetId: "fake", payload: { messageId: "m_d", content: [{ type: "text", text: "a question" }], delivery: "prompt" } } as never);
  // The task goes on past the timer's time (a prompt's admission and dispatch on a cold process take 10-20 ms).
  const until = performance.now() + 5;
  while (performance.now() < until);
  await new Promise((resolve) => setTimeout(resolve, 5));
  expect(order).toEqual(["timer", "publication"]);
});
