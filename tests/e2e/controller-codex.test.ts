/** The controller with the real Codex adapter in-process: steering a running turn reaches the model; self-heal with a stopped app-server. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { codexDefinition } from "../../src/harness/codex/definition.ts";
import { allSummaries, selectTranscript, summaryTexts, tableValues } from "../../src/projection/index.ts";
import { readLedgerFile } from "../../src/store/index.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { makeCodexHome } from "../support/codex-home.ts";
import { openRealSession, waitFor } from "../support/session-host.ts";
import { commandOf, descendants, tryKill } from "../support/processes.ts";

let mock: MockResponses;
beforeAll(async () => {
  mock = await startMockResponses();
});
afterAll(async () => {
  await mock.stop();
});

test("a prompt during a slow Codex turn is a steer: one turn, and the model's next request carries the steer text", async () => {
  const home = makeCodexHome({ baseUrl: mock.baseUrl });
  await mock.script([{ kind: "text", text: "slow ".repeat(60), chunkSize: 5, delayMs: 50 }, { kind: "text", text: "steered answer" }]);
  const { session, cleanup } = await openRealSession({ definitions: [codexDefinition], cwd: home.workdir, env: home.env, settings: { generateTitles: false } });
  try {
    const first = session.controller.submit("codex", [{ type: "text", text: "write slowly" }]);
    await waitFor(() => selectTranscript(session.controller.state).some((entry) => entry.type === "message" && entry.item.role === "agent"), 20_000, "streamed text");
    const steer = session.controller.submit("codex", [{ type: "text", text: "ALSO MENTION BANANAS" }]);
    expect(await first).toBe("completed");
    expect(await steer).toBe("completed");
    const requests = await mock.requests();
    expect(JSON.stringify(requests.at(-1)!.body)).toContain("ALSO MENTION BANANAS");
    const summaries = allSummaries(session.controller.state);
    expect(summaries.length).toBe(1);
    // #11.14: the steer is recorded once, as the user's, and the turn summary (what the next agent gets) has it.
    const steers = readLedgerFile(session.ref.paths.ledger).filter((e) => e.kind === "user_message" && (e.payload as { delivery?: string }).delivery === "steer");
    expect(steers.map((e) => e.source.type)).toEqual(["user"]);
    const texts = summaryTexts(session.controller.state, summaries[0]!);
    expect(texts.userText).toBe("write slowly");
    expect(texts.steers).toEqual(["ALSO MENTION BANANAS"]);
  } finally {
    await cleanup();
    home.cleanup();
  }
}, 60_000);

test("self-heal with the real Codex: a slow command whose app-server is SIGSTOPped gets L1 and an honest L2, stays open, and closing it repairs the tool card", async () => {
  const home = makeCodexHome({ baseUrl: mock.baseUrl, approvalPolicy: "never", sandboxMode: "danger-full-access" });
  await mock.script([{ kind: "exec", cmd: "sleep 6" }, { kind: "text", text: "slept" }, { kind: "text", text: "back again" }]);
  const { session, cleanup } = await openRealSession({
    definitions: [codexDefinition],
    cwd: home.workdir,
    env: home.env,
    settings: { generateTitles: false, stallNoticeMs: 1000, cancelGraceMs: 1500 },
  });
  let stopped: number | undefined;
  try {
    const controller = session.controller;
    const done = controller.submit("codex", [{ type: "text", text: "run the slow command" }]);
    const toolCard = () => tableValues(controller.state.toolCalls).find((tool) => tool.kind === "execute");
    await waitFor(() => toolCard()?.status === "in_progress", 20_000, "the running command card");
    const appServer = descendants(process.pid).find((pid) => commandOf(pid).includes("app-server"));
    expect(appServer).toBeDefined();
    stopped = appServer as number;
    // A silence before the command started (a loaded machine) may already have drawn an honest L2 "active": only
    // the notices after the stop are about the stopped app-server.
    const stoppedAfter = readLedgerFile(session.ref.paths.ledger).at(-1)!.seq;
    process.kill(stopped, "SIGSTOP");

    // …and only a probe whose L1 came after the stop: one sent just before it may have been answered in time.
    const stalls = () => {
      const notices = readLedgerFile(session.ref.paths.ledger)
        .filter((e) => e.kind === "_baton_stall_notice" && e.seq > stoppedAfter)
        .map((e) => e.payload as { level: string; verdict?: string; detail?: string });
      const first = notices.findIndex((n) => n.level === "L1");
      return first === -1 ? [] : notices.slice(first);
    };
    await waitFor(() => stalls().some((n) => n.level === "L2"), 20_000, "the L2 verdict");
    const l2 = stalls().find((n) => n.level === "L2");
    // Silence is an observation, not a verdict: the stopped app-server cannot answer, so the turn stays open.
    expect(l2).toMatchObject({ verdict: "unknown" });
    expect(l2?.detail).toContain("is stopped and cannot answer");
    expect(controller.state.runState).toBe("running");
    expect(toolCard()?.status).toBe("in_progress");

    // The user gives up: the interrupt goes unanswered, the grace expires, Baton closes the turn and repairs the card.
    controller.interrupt();
    expect(await done).toBe("interrupted");
    const card = toolCard();
    expect(card?.status).toBe("interrupted");
    const events = readLedgerFile(session.ref.paths.ledger);
    // Baton's repair closes the card before the summary; the replaced app-server later says the same, never "completed".
    const updates = events.filter((e) => e.kind === "tool_call_update" && (e.payload as { toolCallId: string }).toolCallId === card?.toolCallId);
    const repair = updates.find((e) => e.source.type === "baton");
    expect(repair?.payload).toMatchObject({ status: "interrupted" });
    const summary = events.find((e) => e.kind === "_baton_turn_summary");
    expect(repair!.seq).toBeLessThan(summary!.seq);
    expect(summary?.payload).toMatchObject({ stopReason: "cancelled", toolCalls: [{ status: "interrupted" }] });
    expect(updates.map((e) => (e.payload as { status?: string }).status)).not.toContain("completed");

    // The wedged app-server is replaced; the next turn runs on a fresh process that resumes the thread.
    process.kill(stopped, "SIGCONT");
    expect(await controller.submit("codex", [{ type: "text", text: "are you back?" }])).toBe("completed");
  } finally {
    if (stopped !== undefined) tryKill(stopped, "SIGCONT");
    await cleanup();
    home.cleanup();
  }
}, 90_000);

test("/compact leaves its record in the transcript: Context compacted (N → M tokens) from Codex's own counts (#11.15)", async () => {
  const home = makeCodexHome({ baseUrl: mock.baseUrl });
  await mock.reset();
  await mock.script([
    { kind: "text", text: "first answer ".repeat(50), usage: { input_tokens: 5000, output_tokens: 300 } },
    { kind: "text", text: "SUMMARY of the conversation", usage: { input_tokens: 5400, output_tokens: 40 } },
  ]);
  const { session, cleanup } = await openRealSession({ definitions: [codexDefinition], cwd: home.workdir, env: home.env, settings: { generateTitles: false } });
  try {
    expect(await session.controller.submit("codex", [{ type: "text", text: "hello" }])).toBe("completed");
    expect(await session.controller.compact("codex")).toBe("completed");
    const notices = readLedgerFile(session.ref.paths.ledger).filter((e) => e.kind === "_baton_notice").map((e) => (e.payload as { title: string }).title);
    expect(notices).toHaveLength(1);
    const [, before, after] = /^Context compacted \(([\d,]+) → ([\d,]+) tokens\)$/.exec(notices[0] ?? "") ?? [];
    expect(before).toBe("5,300");
    expect(Number(after?.replaceAll(",", ""))).toBeLessThan(5300);
  } finally {
    await cleanup();
    home.cleanup();
  }
}, 60_000);
