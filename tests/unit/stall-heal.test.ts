/**
 * The stall watch and self-heal (TURN-08, seed kernel §4), given/when/then with a manual clock against the fake
 * adapter: notices are not activity and back off; output withdraws them; the probe refines them; a turn Baton
 * closes (L2 idle, cancel grace, recovery) gets its dangling tool cards closed as interrupted, never completed.
 */
import { describe, expect, test } from "bun:test";
import { STALL_NOTICE_CAP_MS } from "../../src/controller/stall-watch.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { SUPPORTED } from "../../src/harness/capabilities.ts";
import { tableGet } from "../../src/projection/table.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { fakeDefinition, type FakeAction } from "../support/fake-adapter.ts";
import { kindsOf, ledgerOf, testSessions, waitFor } from "../support/session-host.ts";

const text = (value: string) => [{ type: "text" as const, text: value }];
const runningTool: FakeAction = { type: "emit", draft: { kind: "tool_call_update", payload: { toolCallId: "call-1", title: "sleep 30", kind: "execute", status: "in_progress" } } };
const sessions = testSessions();

function open(definition: ReturnType<typeof fakeDefinition>, clock: ManualClock, stallNoticeMs: number, extra: { reuse?: boolean; id?: string; graceMs?: number } = {}) {
  return sessions.open(
    {
      definitions: [definition],
      clock,
      settings: { stallNoticeMs, ...(extra.graceMs === undefined ? {} : { cancelGraceMs: extra.graceMs }) },
      ...(extra.id === undefined ? {} : { choice: { kind: "id", id: extra.id } }),
    },
    extra.reuse === true,
  );
}

const stallNotices = (events: readonly AnyEvent[]) => events.filter((e) => e.kind === "_baton_stall_notice").map((e) => e.payload as { silentMs: number; level: string; verdict?: string });

/** Advance the manual clock one second at a time, letting the controller's async work run in between. */
async function tick(clock: ManualClock, seconds: number): Promise<void> {
  for (let i = 0; i < seconds; i++) {
    clock.advance(1000);
    await Bun.sleep(0);
  }
}

describe("stall notices back off (#12.13)", () => {
  test("given a silent turn and a 5 s silence, when 90 s pass, then notices come at 5, 15, 35 and 75 s, not every 5 s", async () => {
    const clock = new ManualClock();
    const s = await open(fakeDefinition({ capabilities: {}, turns: [[{ type: "hang" }]] }), clock, 5000);
    void s.controller.submit("fake", text("quiet"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("attempt:accepted"));
    await tick(clock, 90);
    expect(stallNotices(ledgerOf(s)).map((n) => n.silentMs / 1000)).toEqual([5, 15, 35, 75]);
  });

  test("when the silence lasts for hours, then the interval doubles up to the cap and stays there", async () => {
    const clock = new ManualClock();
    const s = await open(fakeDefinition({ capabilities: {}, turns: [[{ type: "hang" }]] }), clock, 60_000);
    void s.controller.submit("fake", text("quiet"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("attempt:accepted"));
    for (let minute = 0; minute < 180; minute++) {
      clock.advance(60_000);
      await Bun.sleep(0);
    }
    const at = stallNotices(ledgerOf(s)).map((n) => n.silentMs);
    const gaps = at.slice(1).map((value, index) => value - (at[index] as number));
    expect(gaps.slice(0, 3)).toEqual([120_000, 240_000, 480_000]);
    expect(gaps.slice(3).every((gap) => gap === STALL_NOTICE_CAP_MS)).toBe(true);
    expect(gaps.length).toBeGreaterThan(5);
  });
});

describe("stall notices are withdrawn or refined (#12.4)", () => {
  test("given a stall notice, when output resumes, then the notice is withdrawn once and the next silence starts over", async () => {
    const clock = new ManualClock();
    const fake = fakeDefinition({ capabilities: {}, turns: [[{ type: "text", text: "first" }, { type: "gate", name: "resume" }, { type: "text", text: "second" }, { type: "hang" }]] });
    const s = await open(fake, clock, 5000);
    void s.controller.submit("fake", text("go"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("agent_message"));
    await tick(clock, 6);
    const noticeId = tableGet(s.controller.state.stallNotices, Object.keys(s.controller.state.activeTurns)[0] ?? "");
    expect(noticeId).toBeDefined();
    expect(tableGet(s.controller.state.notices, noticeId as string)?.stall?.state).toBe("open");

    fake.adapters[0]?.release("resume");
    await waitFor(() => ledgerOf(s).some((e) => e.kind === "_baton_stall_cleared"));
    expect(ledgerOf(s).filter((e) => e.kind === "_baton_stall_cleared").map((e) => e.payload)).toEqual([{ silentMs: 6000 }]);
    expect(tableGet(s.controller.state.notices, noticeId as string)?.stall?.state).toBe("cleared");

    await tick(clock, 5);
    expect(stallNotices(ledgerOf(s)).map((n) => n.silentMs)).toEqual([5000, 5000]);
  });

  test("given a silent turn, when the agent reports it is still working, then the notice is refined and the turn keeps running", async () => {
    const clock = new ManualClock();
    const s = await open(fakeDefinition({ reconcile: "active", capabilities: { reconcile: SUPPORTED }, turns: [[{ type: "hang" }]] }), clock, 5000);
    void s.controller.submit("fake", text("quiet"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("attempt:accepted"));
    await tick(clock, 6);
    await waitFor(() => stallNotices(ledgerOf(s)).length === 2);
    expect(stallNotices(ledgerOf(s)).map((n) => `${n.level}:${n.verdict ?? ""}`)).toEqual(["L1:", "L2:active"]);
    const notices = ledgerOf(s).filter((e) => e.kind === "_baton_stall_notice").map((e) => tableGet(s.controller.state.notices, `n_${e.seq}`));
    expect(notices.map((n) => n?.stall?.state)).toEqual(["superseded", "open"]);
    expect(notices[1]).toMatchObject({ level: "info", title: "No output for 5s, but the agent reports it is still working" });
    expect(s.controller.state.runState).toBe("running");
  });
});

describe("a turn Baton closes leaves nothing running (#12.4, #11.15)", () => {
  test("given a running tool card, when the probe finds the agent idle, then the turn closes and the card is interrupted, never completed", async () => {
    const clock = new ManualClock();
    const s = await open(fakeDefinition({ reconcile: "idle", capabilities: { reconcile: SUPPORTED }, turns: [[runningTool, { type: "hang" }]] }), clock, 5000);
    const done = s.controller.submit("fake", text("sleep"));
    await waitFor(() => ledgerOf(s).some((e) => e.kind === "tool_call_update"));
    await tick(clock, 6);
    expect(await done).toBe("failed");
    const tail = kindsOf(ledgerOf(s)).slice(-6);
    expect(tail).toEqual(["_baton_stall_notice", "_baton_stall_notice", "state:idle(unknown)", "attempt:uncertain", "tool_call_update", "_baton_turn_summary"]);
    const repair = ledgerOf(s).filter((e) => e.kind === "tool_call_update").at(-1);
    expect(repair).toMatchObject({ source: { type: "baton" }, payload: { toolCallId: "call-1", status: "interrupted" } });
    expect(tableGet(s.controller.state.toolCalls, "call-1")?.status).toBe("interrupted");
    expect(ledgerOf(s).at(-1)?.payload).toMatchObject({ stopReason: "unknown", toolCalls: [{ toolCallId: "call-1", status: "interrupted" }] });
  });

  test("given a running tool card and a harness that ignores interrupt, when the grace expires, then the card is interrupted", async () => {
    const clock = new ManualClock();
    const s = await open(fakeDefinition({ capabilities: {}, ignoreCancel: true, turns: [[runningTool, { type: "hang" }]] }), clock, 60_000, { graceMs: 2000 });
    const done = s.controller.submit("fake", text("sleep"));
    await waitFor(() => ledgerOf(s).some((e) => e.kind === "tool_call_update"));
    s.controller.interrupt();
    await tick(clock, 3);
    expect(await done).toBe("interrupted");
    expect(tableGet(s.controller.state.toolCalls, "call-1")?.status).toBe("interrupted");
  });

  test("given Baton died with a tool card running, when the session is reopened, then the card is interrupted, not Running forever", async () => {
    const clock = new ManualClock();
    const first = await open(fakeDefinition({ capabilities: {}, turns: [[runningTool, { type: "waitForCancel" }]] }), clock, 60_000);
    void first.controller.submit("fake", text("sleep"));
    await waitFor(() => ledgerOf(first).some((e) => e.kind === "tool_call_update"));
    // kill -9: the lock goes, nothing is shut down cleanly
    first.lock.release();
    sessions.forget(first);
    const reopened = await open(fakeDefinition({ turns: [] }), clock, 60_000, { reuse: true, id: first.ref.batonSessionId });
    expect(tableGet(reopened.controller.state.toolCalls, "call-1")?.status).toBe("interrupted");
    const tail = kindsOf(ledgerOf(reopened)).slice(-4);
    expect(tail).toEqual(["_baton_notice", "state:idle(unknown)", "tool_call_update", "_baton_turn_summary"]);
  });
});
