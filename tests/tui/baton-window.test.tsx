/**
 * The real screen on a long session opened from its checkpoint (#18): the first frame maps only the tail, so the
 * old turns stay on disk (lazy checkpoint nodes); PageUp at the top and ↑ past the oldest prompt read them on
 * demand, after the key, until the whole transcript and the whole prompt history are there.
 */
import { expect, test } from "bun:test";
import type { EventDraft } from "../../src/event/envelope.ts";
import { Stub } from "../../src/projection/lazy.ts";
import type { TurnId } from "../../src/shared/ids.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { openTestSession } from "../support/session-host.ts";
import { batonScreens, type BatonMounted } from "./baton-setup.tsx";

const screens = batonScreens();

const TURNS = 20;
const h = { source: { type: "harness", harnessTargetId: "fake" }, harness: "fake", harnessTargetId: "fake" } as const;

function* turn(n: number): Generator<EventDraft> {
  const turnId = `t_${String(n).padStart(4, "0")}` as TurnId;
  yield { kind: "user_message", source: { type: "user" }, turnId, harnessTargetId: "fake", payload: { messageId: `m_u_${n}`, content: [{ type: "text", text: `ask ${n} about the build` }], delivery: "prompt" } };
  yield { kind: "state_update", ...h, turnId, payload: { state: "running" } };
  // Enough entries that the timeline has full pages (256 entries each) long before the tail.
  for (let i = 0; i < 25; i++) yield { kind: "tool_call_update", ...h, turnId, payload: { toolCallId: `read_${n}_${i}`, title: `Read file ${n}.${i}`, kind: "read", status: "completed" } };
  yield { kind: "agent_message", ...h, turnId, payload: { messageId: `m_a_${n}`, content: [{ type: "text", text: `answer ${n} is done` }] } };
  yield { kind: "state_update", ...h, turnId, payload: { state: "idle", stopReason: "end_turn" } };
}

/** A session of TURNS turns, closed (so it has a checkpoint), then shown by the real screen opened as the TUI opens it. */
async function mountLong(): Promise<BatonMounted> {
  const home = screens.home();
  const session = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] }, "fake")] });
  for (let n = 0; n < TURNS; n++) for (const draft of turn(n)) session.controller.pipeline.append(draft as never);
  const id = session.ref.batonSessionId;
  await session.close();
  return screens.mount({ home, choice: { kind: "id", id }, verifyCheckpoint: "deferred", timelineWindow: 40, height: 30 });
}

const unread = (node: unknown): boolean => node instanceof Stub && !node.loaded;

test("the first frame maps only the tail: old turns stay on disk; PageUp at the top reads them until the transcript starts", async () => {
  const mounted = await mountLong();
  expect(mounted.opened[0]!.loaded.fromCheckpoint).toBe(true);
  const state = mounted.host.controller.state;
  expect(state.timeline.pages.length).toBeGreaterThanOrEqual(2);
  // Neither the transcript nor the ↑ history read the first page of the timeline, or the first turn's prompt.
  expect(unread(state.timeline.pages[0])).toBe(true);
  const items = mounted.host.store.get("timeline").items;
  expect(items.length).toBeLessThan(60);
  expect(items.at(-1)).toMatchObject({ kind: "agent", text: "answer 19 is done" });
  expect(mounted.host.store.get("timeline").older).toBeGreaterThan(400);

  const markers = new Set<string>();
  for (let i = 0; i < 400 && !mounted.frame().includes("ask 0 about the build"); i++) {
    await mounted.keys((k) => k.pressKey("\x1b[5~"));
    const marker = /↑ .* \(PageUp to load more\)/.exec(mounted.frame())?.[0];
    if (marker !== undefined) markers.add(marker.replace(/\d+/g, "N"));
  }
  // At the top of what is mapped, the marker says what is not shown and what is not read yet.
  expect([...markers]).toContain("↑ N older entries (PageUp to load more)");
  const frame = mounted.frame();
  expect(frame).toContain("ask 0 about the build");
  expect(frame).toContain(`baton · session ${mounted.host.session.sessionId}`);
  expect(frame).not.toContain("PageUp to load more");
  expect(mounted.host.store.get("timeline").older).toBeUndefined();
  // The whole transcript, in order: every prompt, every tool call and every answer once.
  const all = mounted.host.store.get("timeline").items;
  expect(all.filter((item) => item.kind === "user").map((item) => (item as { text: string }).text)).toEqual(Array.from({ length: TURNS }, (_, n) => `ask ${n} about the build`));
  expect(all.filter((item) => item.kind === "tool")).toHaveLength(TURNS * 25);
  expect(all.filter((item) => item.kind === "agent")).toHaveLength(TURNS);
});

test("↑ walks back past the prompts of the window: older prompts are read on demand, down to the first one", async () => {
  const mounted = await mountLong();
  expect(mounted.host.store.get("composer").history?.length).toBeLessThan(TURNS);
  const seen: string[] = [];
  for (let i = 0; i < TURNS + 5; i++) {
    await mounted.keys((k) => k.pressArrow("up"));
    await mounted.render();
    if (seen.at(-1) !== mounted.draft()) seen.push(mounted.draft());
  }
  expect(seen).toEqual(Array.from({ length: TURNS }, (_, n) => `ask ${TURNS - 1 - n} about the build`));
  expect(mounted.host.store.get("composer").history).toHaveLength(TURNS);
  // ↓ walks forward again through the same prompts.
  await mounted.keys((k) => k.pressArrow("down"));
  expect(mounted.draft()).toBe("ask 1 about the build");
});
