/** Steering, interactions, context delivery, recovery, stall watch and compaction against the fake adapter. */
import { describe, expect, test } from "bun:test";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { kindsOf, ledgerOf, testSessions, waitFor, type HostOptions } from "../support/session-host.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { SUPPORTED } from "../../src/harness/capabilities.ts";
import { RECOVERY_NOTICE } from "../../src/controller/recovery.ts";
import { readSummaries } from "../support/summaries.ts";

const text = (value: string) => [{ type: "text" as const, text: value }];
const sessions = testSessions();
const open = (definitions: HostOptions["definitions"], extra: Partial<HostOptions> = {}, reuseHome = false) => sessions.open({ definitions, ...extra }, reuseHome);

describe("steer", () => {
  test("a second prompt during a turn of the same target becomes a steer on the active turn", async () => {
    const fake = fakeDefinition({ steer: "steer", turns: [[{ type: "text", text: "a" }, { type: "wait", ms: 80 }, { type: "text", text: "b" }]] });
    const s = await open([fake]);
    const first = s.controller.submit("fake", text("start"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("agent_message"));
    const steer = s.controller.submit("fake", text("also do this"));
    expect(await first).toBe("completed");
    expect(await steer).toBe("completed");
    const events = ledgerOf(s);
    const users = events.filter((e) => e.kind === "user_message");
    expect(users.map((e) => (e.payload as { delivery?: string }).delivery)).toEqual(["prompt", "steer"]);
    expect(users[1]?.turnId).toBe(users[0]?.turnId);
    expect(kindsOf(events).filter((k) => k === "state:running").length).toBe(1);
  });

  test("a steer the harness accepts just as its turn ends shares the turn's fate instead of waiting forever", async () => {
    const fake = fakeDefinition({ steer: "steer", steerDelayMs: 80, turns: [[{ type: "text", text: "a" }, { type: "wait", ms: 20 }]] });
    const s = await open([fake]);
    const first = s.controller.submit("fake", text("start"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("agent_message"));
    const steer = s.controller.submit("fake", text("too late"));
    expect(await first).toBe("completed");
    expect(await steer).toBe("interrupted");
    expect(s.controller.busy).toBe(false);
  });

  test("a rejected steer degrades to exactly one queued follow-up", async () => {
    const fake = fakeDefinition({ steer: "reject", turns: [[{ type: "text", text: "a" }, { type: "wait", ms: 60 }], [{ type: "text", text: "follow" }]] });
    const s = await open([fake]);
    const notices: string[] = [];
    s.controller.onNotice((n) => notices.push(n.text));
    const first = s.controller.submit("fake", text("start"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("agent_message"));
    const second = s.controller.submit("fake", text("more"));
    await Promise.all([first, second]);
    const users = ledgerOf(s).filter((e) => e.kind === "user_message");
    expect(users.map((e) => (e.payload as { delivery?: string }).delivery)).toEqual(["prompt", "follow_up"]);
    expect(users[1]?.turnId).not.toBe(users[0]?.turnId);
    expect(notices.some((n) => n.startsWith("queued as a follow-up"))).toBe(true);
  });
});

describe("interactions", () => {
  test("permission: opened then exactly one resolved; a stale answer writes nothing", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "permission", title: "rm -rf build" }, { type: "text", text: "done" }]] });
    const s = await open([fake]);
    const done = s.controller.submit("fake", text("clean"));
    await waitFor(() => s.controller.pendingInteractions().length === 1);
    expect(s.controller.state.runState).toBe("requires_action");
    const [pending] = s.controller.pendingInteractions();
    await s.controller.resolveInteraction(pending!.interactionId, { outcome: "selected", optionId: "allow" });
    await done;
    const before = ledgerOf(s).length;
    await expect(s.controller.resolveInteraction(pending!.interactionId, { outcome: "selected", optionId: "deny" })).rejects.toThrow(/no longer pending/);
    expect(ledgerOf(s).length).toBe(before);
    expect(fake.adapters[0]?.record.answers).toEqual([{ outcome: "selected", optionId: "allow" }]);
    const kinds = kindsOf(ledgerOf(s));
    expect(kinds.filter((k) => k === "interaction.opened").length).toBe(1);
    expect(kinds.filter((k) => k.startsWith("resolved:")).length).toBe(1);
  });

  test("Esc on a pending permission cancels it and interrupts the turn (no dangling requires_action)", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "permission", title: "deploy" }, { type: "waitForCancel" }]] });
    const s = await open([fake]);
    const done = s.controller.submit("fake", text("ship it"));
    await waitFor(() => s.controller.pendingInteractions().length === 1);
    const [pending] = s.controller.pendingInteractions();
    await s.controller.resolveInteraction(pending!.interactionId, { outcome: "cancelled", reason: "user" });
    expect(await done).toBe("interrupted");
    expect(s.controller.state.runState).toBe("idle");
    expect(kindsOf(ledgerOf(s))).toContain("resolved:cancelled/user");
  });

  test("a non-interactive policy answers without a person and the resolution says so", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "permission", title: "touch x" }]] });
    const s = await open([fake]);
    s.controller.setInteractionPolicy(() => ({ outcome: "selected", optionId: "deny", answeredBy: "cli-policy:deny" }));
    await s.controller.submit("fake", text("go"));
    const resolved = ledgerOf(s).find((e) => e.kind === "interaction.resolved");
    expect(resolved?.payload).toMatchObject({ resolution: { outcome: "selected", optionId: "deny", answeredBy: "cli-policy:deny" } });
    const tool = ledgerOf(s).filter((e) => e.kind === "tool_call_update").at(-1);
    expect((tool?.payload as { status?: string }).status).toBe("declined");
  });
});

describe("context delivery", () => {
  test("switching target delivers the other agent's turns by sync_context: history first, receipt, then the clean prompt", async () => {
    const a = fakeDefinition({ turns: [[{ type: "text", text: "answer from alpha" }]] }, "alpha");
    const b = fakeDefinition({ turns: [[{ type: "text", text: "beta here" }], [{ type: "text", text: "again" }]] }, "beta");
    const s = await open([a, b]);
    await s.controller.submit("alpha", text("question one"));
    await s.controller.submit("beta", text("question two"));
    const synced = b.adapters[0]?.record.synced ?? [];
    expect(synced).toHaveLength(1);
    expect(synced[0]).toStartWith("<baton-sync>");
    expect(synced[0]).toContain("question one");
    expect(synced[0]).toContain("answer from alpha");
    expect(b.adapters[0]?.record.prompts[0]?.blocks).toEqual(text("question two"));
    const events = ledgerOf(s);
    const kinds = kindsOf(events);
    // Facts before effects: the snapshot, then the attempt, then the receipt (the history is in), then acceptance.
    expect(kinds.indexOf("_baton_context_snapshot")).toBeLessThan(kinds.lastIndexOf("attempt:dispatching"));
    expect(kinds.lastIndexOf("attempt:dispatching")).toBeLessThan(kinds.indexOf("_baton_context_delivery_receipt"));
    expect(kinds.indexOf("_baton_context_delivery_receipt")).toBeLessThan(kinds.lastIndexOf("attempt:accepted"));
    expect(events.find((e) => e.kind === "_baton_context_delivery_receipt")?.payload).toMatchObject({ transport: "sync_context", accepted: true });
    for (const user of events.filter((e) => e.kind === "user_message")) expect(JSON.stringify(user.payload)).not.toContain("baton-sync");
    // a second beta turn: nothing new from others → no snapshot, nothing synced
    await s.controller.submit("beta", text("question three"));
    expect(b.adapters[0]?.record.synced).toHaveLength(1);
    expect(kindsOf(ledgerOf(s)).filter((k) => k === "_baton_context_snapshot").length).toBe(1);
  });

  test("sync_context that fails: no receipt, the turn is not sent, and the next turn delivers the same range again", async () => {
    const a = fakeDefinition({ turns: [[{ type: "text", text: "alpha said" }]] }, "alpha");
    const b = fakeDefinition({ syncError: "history refused", turns: [] }, "beta");
    const s = await open([a, b]);
    await s.controller.submit("alpha", text("hi"));
    await expect(s.controller.submit("beta", text("switch"))).rejects.toThrow(/history refused/);
    expect(b.adapters[0]?.record.prompts).toHaveLength(0);
    expect(kindsOf(ledgerOf(s))).not.toContain("_baton_context_delivery_receipt");
    expect(kindsOf(ledgerOf(s))).toContain("attempt:finalized(not_accepted)");
    await expect(s.controller.submit("beta", text("again"))).rejects.toThrow(/history refused/);
    const snapshots = ledgerOf(s).filter((e) => e.kind === "_baton_context_snapshot").map((e) => e.payload as { afterSeq: number; throughSeq: number });
    expect(snapshots).toHaveLength(2);
    expect(snapshots[1]?.afterSeq).toBe(snapshots[0]?.afterSeq as number);
  });

  test("switching back sends only the turns the target has not seen; prompt_prepend without the syncContext capability", async () => {
    const a = fakeDefinition({ capabilities: {}, turns: [[{ type: "text", text: "A1" }], [{ type: "text", text: "A2" }]] }, "alpha");
    const b = fakeDefinition({ capabilities: {}, turns: [[{ type: "text", text: "B1" }]] }, "beta");
    const s = await open([a, b]);
    await s.controller.submit("alpha", text("first"));
    await s.controller.submit("beta", text("second"));
    await s.controller.submit("alpha", text("third"));
    const back = a.adapters[0]?.record.prompts[1]?.blocks[0];
    const prepended = back?.type === "text" ? back.text : "";
    expect(prepended).toContain("<baton-sync>");
    expect(prepended).toContain("B1");
    expect(prepended).not.toContain("A1");
    expect(a.adapters[0]?.record.prompts[1]?.blocks[1]).toEqual({ type: "text", text: "third" });
  });

  test("a prepended snapshot without a receipt (the turn was refused) is delivered again on the next turn", async () => {
    const a = fakeDefinition({ turns: [[{ type: "text", text: "alpha said" }]] }, "alpha");
    const b = fakeDefinition({ capabilities: {}, sendError: "refused", turns: [] }, "beta");
    const s = await open([a, b]);
    await s.controller.submit("alpha", text("hi"));
    await expect(s.controller.submit("beta", text("switch"))).rejects.toThrow(/refused/);
    expect(kindsOf(ledgerOf(s))).not.toContain("_baton_context_delivery_receipt");
    const firstSnapshot = ledgerOf(s).find((e) => e.kind === "_baton_context_snapshot")?.payload as { afterSeq: number; throughSeq: number };
    await expect(s.controller.submit("beta", text("switch again"))).rejects.toThrow(/refused/);
    const snapshots = ledgerOf(s).filter((e) => e.kind === "_baton_context_snapshot").map((e) => e.payload as { afterSeq: number; throughSeq: number });
    expect(snapshots.length).toBe(2);
    expect(snapshots[1]?.afterSeq).toBe(firstSnapshot.afterSeq);
  });

  test("observed (harness-initiated) turns are summarized and never touch the queue", async () => {
    const fake = fakeDefinition({ observedAfterTurn: [{ type: "text", text: "background result" }], turns: [[{ type: "text", text: "main" }]] });
    const s = await open([fake]);
    await s.controller.submit("fake", text("kick off"));
    await waitFor(() => ledgerOf(s).filter((e) => e.kind === "_baton_turn_summary").length === 2);
    const running = ledgerOf(s).filter((e) => e.kind === "state_update" && (e.payload as { state: string }).state === "running");
    expect(running.map((e) => e.source.type)).toEqual(["baton", "harness"]);
    expect(readSummaries(ledgerOf(s))[1]?.agentText).toBe("background result");
    expect(s.controller.busy).toBe(false);
  });

  test("an observed turn is included in the next delivery to another target (TURN-09, CTX-05)", async () => {
    const alpha = fakeDefinition({ observedAfterTurn: [{ type: "text", text: "background result" }], turns: [[{ type: "text", text: "main" }]] }, "alpha");
    const beta = fakeDefinition({ turns: [[{ type: "text", text: "beta" }]] }, "beta");
    const s = await open([alpha, beta]);
    await s.controller.submit("alpha", text("kick off"));
    await waitFor(() => ledgerOf(s).filter((e) => e.kind === "_baton_turn_summary").length === 2);
    await s.controller.submit("beta", text("what happened?"));
    expect(beta.adapters[0]?.record.synced[0]).toContain("background result");
  });
});

describe("recovery", () => {
  test("a turn left running by a dead process is closed on reopen; the attempt is uncertain; a pending card is cancelled", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "permission", title: "risky" }]] });
    const first = await open([fake]);
    void first.controller.submit("fake", text("interrupted by a crash"));
    await waitFor(() => first.controller.pendingInteractions().length === 1);
    // Simulate kill -9: drop the lock and open again without a clean shutdown.
    first.lock.release();
    sessions.forget(first);
    const reopened = await open([fakeDefinition({ turns: [[{ type: "text", text: "fine" }]] })], { choice: { kind: "id", id: first.ref.batonSessionId } }, true);
    expect(reopened.recovery).toEqual({ turnsClosed: 1, attemptsSettled: 1, interactionsCancelled: 1 });
    const kinds = kindsOf(ledgerOf(reopened));
    expect(kinds).toContain("resolved:cancelled/recovery");
    expect(kinds).toContain("attempt:uncertain");
    // The pending card's tool row is closed too (#11.15), as interrupted.
    expect(kinds.slice(-4)).toEqual(["_baton_notice", "state:idle(unknown)", "tool_call_update", "_baton_turn_summary"]);
    expect(ledgerOf(reopened).at(-2)?.payload).toMatchObject({ status: "interrupted" });
    const notice = ledgerOf(reopened).filter((e) => e.kind === "_baton_notice").at(-1);
    expect((notice?.payload as { title: string }).title).toBe(RECOVERY_NOTICE);
    expect(reopened.controller.state.runState).toBe("idle");
    expect(await reopened.controller.submit("fake", text("next"))).toBe("completed");
    // Never re-sent by itself: the new adapter saw only the new prompt.
    expect(reopened.controller.targets().has("fake")).toBe(true);
  });
});

describe("stall watch", () => {
  test("a silent turn gets a notice; reconcile idle closes it through the normal append path", async () => {
    const clock = new ManualClock();
    const fake = fakeDefinition({ reconcile: "idle", capabilities: { reconcile: SUPPORTED }, turns: [[{ type: "hang" }]] });
    const s = await open([fake], { clock, settings: { stallNoticeMs: 1000 } });
    const done = s.controller.submit("fake", text("quiet"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("attempt:accepted"));
    clock.advance(1500);
    expect(await done).toBe("failed");
    const stalls = ledgerOf(s).filter((e) => e.kind === "_baton_stall_notice").map((e) => e.payload as { level: string; verdict?: string });
    expect(stalls).toEqual([expect.objectContaining({ level: "L1" }), expect.objectContaining({ level: "L2", verdict: "idle" })]);
  });

  test("unknown from reconcile leaves the turn running", async () => {
    const clock = new ManualClock();
    const fake = fakeDefinition({ reconcile: "unknown", capabilities: { reconcile: SUPPORTED }, turns: [[{ type: "waitForCancel" }]] });
    const s = await open([fake], { clock, settings: { stallNoticeMs: 1000 } });
    void s.controller.submit("fake", text("quiet"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("attempt:accepted"));
    clock.advance(1500);
    await waitFor(() => ledgerOf(s).filter((e) => e.kind === "_baton_stall_notice").length === 2);
    expect(s.controller.state.runState).toBe("running");
  });
});

describe("compact", () => {
  test("a prompt during a compaction is queued, never steered into it", async () => {
    const fake = fakeDefinition({ steer: "steer", compactSteps: [{ type: "wait", ms: 150 }, { type: "text", text: "compacted" }], turns: [[{ type: "text", text: "after compaction" }]] });
    const s = await open([fake]);
    await s.controller.submit("fake", text("warm up"));
    const compacting = s.controller.compact("fake");
    await waitFor(() => Object.keys(s.controller.state.activeTurns).length === 1 && kindsOf(ledgerOf(s)).filter((k) => k === "attempt:accepted").length === 2);
    const prompt = s.controller.submit("fake", text("next"));
    expect(await compacting).toBe("completed");
    expect(await prompt).toBe("completed");
    const users = ledgerOf(s).filter((e) => e.kind === "user_message").map((e) => (e.payload as { delivery?: string }).delivery);
    expect(users).toEqual(["prompt", "follow_up"]);
  });

  test("a control turn with no user message, closed like any turn", async () => {
    const fake = fakeDefinition({ turns: [] });
    const s = await open([fake]);
    expect(await s.controller.compact("fake")).toBe("completed");
    const kinds = kindsOf(ledgerOf(s));
    expect(kinds).not.toContain("user_message");
    expect(kinds).toContain("state:running");
    expect(kinds).toContain("state:idle(end_turn)");
  });
});

describe("titles", () => {
  test("the first completed turn gets a generated title from a textgen-capable target; failures fall through", async () => {
    const { SUPPORTED: S } = await import("../../src/harness/capabilities.ts");
    const failing = fakeDefinition({ capabilities: { textgen: S }, turns: [[{ type: "text", text: "answer" }]] }, "alpha");
    const working = fakeDefinition({ capabilities: { textgen: S }, turns: [] }, "beta");
    const s = await open([failing, working]);
    const titles: string[] = [];
    (failing as unknown as { create: unknown }).create = wrapCreate(failing.create.bind(failing), async () => {
      throw new Error("model unavailable");
    });
    (working as unknown as { create: unknown }).create = wrapCreate(working.create.bind(working), async (request: { prompt: string }) => {
      titles.push(request.prompt);
      return { title: '  "Fix the flaky parser test."\nextra line' };
    });
    await s.controller.submit("alpha", text("please fix the flaky parser test in src/parse"));
    expect(await s.controller.titleGeneration).toBe("Fix the flaky parser test");
    expect(s.meta().title).toBe("Fix the flaky parser test");
    expect(titles[0]).toContain("please fix the flaky parser test");
    expect(s.meta().preview).toBe("please fix the flaky parser test in src/parse");
  });
});

function wrapCreate<C>(create: (context: C) => unknown, generate: (request: { prompt: string }) => Promise<unknown>) {
  return (context: C) => {
    const adapter = create(context) as Record<string, unknown>;
    adapter["generateStructured"] = generate;
    return adapter;
  };
}


describe("shutdown", () => {
  test("every call waits for the same shutdown: the harness is closed once, and an early call (exec's) leaves nothing for close to redo", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "text", text: "done" }]] });
    const s = await open([fake]);
    expect(await s.controller.submit("fake", text("go"))).toBe("completed");
    const first = s.controller.shutdown();
    const second = s.controller.shutdown();
    expect(second).toBe(first);
    await second;
    const adapter = fake.adapters[0]!;
    expect(adapter.record.closes).toBe(1);
    await s.close();
    expect(adapter.record.closes).toBe(1);
  });
});
