/**
 * The Codex adapter driven directly against the REAL codex binary (pinned @openai/codex) and the
 * project's mock Responses server on 127.0.0.1. Temp HOME/CODEX_HOME per test; no network.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { CodexAdapter } from "../../src/harness/codex/adapter.ts";
import { resolveInstalledCodex } from "../../src/harness/codex/executable.ts";
import { DROPPED_TURN_NOTICE } from "../../src/harness/codex/failed-turns.ts";
import type { HarnessHandle, PromptInput, ResumeState } from "../../src/harness/contract.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { isBatonError } from "../../src/shared/errors.ts";
import { createUlidSource, type TurnId } from "../../src/shared/ids.ts";
import type { Logger } from "../../src/shared/log.ts";
import { makeCodexHome, type CodexHome, type CodexHomeOptions } from "../support/codex-home.ts";
import { inputItems, inputMessages, startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { choose, RecordingSink, ScriptedInteractions } from "../support/recording-host.ts";

const CODEX_BIN = resolveInstalledCodex();
setDefaultTimeout(20_000);
const ids = createUlidSource();

function memoryLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = {
    lines,
    log(level: string, message: string) {
      lines.push(`${level} ${message}`);
    },
    child() {
      return log;
    },
  };
  return log;
}

function prompt(text: string, turnId: TurnId = ids.mint("turn")): PromptInput {
  return { turnId, messageId: ids.mint("message"), blocks: [{ type: "text", text }] };
}

let mock: MockResponses;
const homes: CodexHome[] = [];
const open: { adapter: CodexAdapter; handle: HarnessHandle }[] = [];

interface Harness {
  adapter: CodexAdapter;
  handle: HarnessHandle;
  sink: RecordingSink;
  interactions: ScriptedInteractions;
  home: CodexHome;
  log: Logger & { lines: string[] };
}

async function start(options: {
  home?: Partial<CodexHomeOptions>;
  reuseHome?: CodexHome;
  interactions?: ScriptedInteractions;
  resumeState?: ResumeState;
  settings?: Record<string, unknown>;
} = {}): Promise<Harness> {
  const home = options.reuseHome ?? makeCodexHome({ baseUrl: mock.baseUrl, ...options.home });
  if (options.reuseHome === undefined) homes.push(home);
  const sink = new RecordingSink();
  const interactions = options.interactions ?? new ScriptedInteractions();
  const log = memoryLog();
  const adapter = new CodexAdapter({ settings: options.settings ?? {}, log });
  const handle = await adapter.open(
    {
      targetId: "codex",
      cwd: home.workdir,
      env: { ...home.env, BATON_CODEX_BIN: CODEX_BIN as string },
      interactions,
      ids,
      clock: systemClock,
      log,
      ...(options.resumeState !== undefined ? { resumeState: options.resumeState } : {}),
    },
    sink,
    sink,
  );
  open.push({ adapter, handle });
  return { adapter, handle, sink, interactions, home, log };
}

async function runTurn(h: Harness, input: PromptInput, timeoutMs = 10_000): Promise<string | undefined> {
  const result = await h.adapter.sendTurn(h.handle, input);
  expect(result).toEqual({ accepted: true, effective: "new_turn" });
  return h.sink.waitForIdle(input.turnId, timeoutMs);
}

describe.skipIf(CODEX_BIN === undefined)("codex adapter against the real codex app-server", () => {
  beforeAll(async () => {
    mock = await startMockResponses();
  });
  afterEach(async () => {
    for (const { adapter, handle } of open.splice(0)) await adapter.close(handle);
    for (const home of homes.splice(0)) home.cleanup();
    await mock.reset();
  });
  afterAll(async () => {
    await mock.stop();
  });

  test("a text turn streams chunks, the full message, a thought, usage, and ends end_turn once", async () => {
    await mock.script([{ kind: "text", text: "Hello from the mock model!", reasoning: ["thinking hard"], chunkSize: 6 }]);
    const h = await start();
    expect(h.sink.identities).toHaveLength(1);
    const identity = h.sink.identities[0];
    expect(identity?.fresh).toBe(true);
    expect(identity?.resumeState).toEqual({ version: 1, data: { threadId: identity?.harnessSessionId as string } });
    const input = prompt("say hello");
    expect(await runTurn(h, input)).toBe("end_turn");
    const t = input.turnId;
    expect(h.sink.chunkText(t)).toBe("Hello from the mock model!");
    expect(h.sink.of("agent_message_chunk", t).length).toBeGreaterThan(1);
    const messages = h.sink.of("agent_message", t);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.payload.content).toEqual([{ type: "text", text: "Hello from the mock model!" }]);
    expect(h.sink.of("agent_thought", t).map((d) => d.payload.content)).toEqual([[{ type: "text", text: "thinking hard" }]]);
    expect(h.sink.of("agent_thought_chunk", t).length).toBeGreaterThan(0);
    const usage = h.sink.of("usage_update", t);
    expect(usage).toHaveLength(1);
    expect(usage[0]?.payload).toMatchObject({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 10 });
    const context = h.sink.of("context_usage_update", t)[0]?.payload;
    expect(context?.contextUsed).toBe(120);
    expect(context?.model).toBe("mock-model");
    expect(context?.contextSize).toBeGreaterThan(0);
    expect(h.sink.terminals(t)).toHaveLength(1);
    expect(h.sink.of("_baton_notice", t)).toHaveLength(0);
    for (const d of h.sink.drafts.filter((x) => x.turnId === t)) {
      expect(d.harnessSessionId).toBe(identity?.harnessSessionId as string);
      expect(d.source).toBeUndefined();
    }
    expect(h.sink.of("agent_message_chunk", t)[0]?.raw).toBeDefined();
    expect(h.adapter.approvalRoute(h.handle)).toBe("user");
    expect(await h.adapter.reconcile(h.handle, t)).toEqual({ state: "idle" });
    const requests = await mock.requests();
    expect(requests).toHaveLength(1);
    expect(inputMessages(requests[0]!).at(-1)).toEqual({ role: "user", text: "say hello" });
  });

  test("approval (on-request + read-only, escalation) answered allow: the command runs and the file exists", async () => {
    await mock.script([{ kind: "exec", cmd: "echo hi > hello.txt && cat hello.txt", escalate: true }, { kind: "text", text: "created it" }]);
    const interactions = new ScriptedInteractions([choose("allow", "once")]);
    const h = await start({ home: { approvalPolicy: "on-request", sandboxMode: "read-only" }, interactions });
    const input = prompt("make hello.txt");
    expect(await runTurn(h, input)).toBe("end_turn");
    expect(fs.readFileSync(path.join(h.home.workdir, "hello.txt"), "utf8")).toBe("hi\n");
    expect(interactions.requests).toHaveLength(1);
    const asked = interactions.requests[0]!;
    expect(asked.context.turnId).toBe(input.turnId);
    expect(asked.context.signal).toBeDefined();
    if (asked.draft.type !== "permission") throw new Error("expected a permission draft");
    expect(asked.draft.title).toBe("Run command?");
    expect(asked.draft.description).toContain("echo hi > hello.txt");
    const names = asked.draft.options.map((o) => `${o.name}|${o.polarity}|${o.lifetime}`);
    expect(names[0]).toBe("Allow once|allow|once");
    expect(names.some((n) => n.startsWith("Allow and remember: /bin/bash -lc") && n.endsWith("|allow|persistent"))).toBe(true);
    const tool = h.sink.of("tool_call_update", input.turnId).filter((d) => d.payload.toolCallId === asked.draft.toolCallId);
    expect(tool[0]?.payload).toMatchObject({ status: "in_progress", kind: "execute" });
    expect(String(tool[0]?.payload.title)).toContain("echo hi > hello.txt");
    expect(tool.at(-1)?.payload.status).toBe("completed");
    expect(tool.at(-1)?.payload.content).toEqual([{ type: "text", text: "hi\n" }]);
  });

  test("approval answered deny: Codex offers only cancel as the reject choice; the tool is declined and no file is written", async () => {
    await mock.script([{ kind: "exec", cmd: "echo no > denied.txt", escalate: true }, { kind: "text", text: "ok then" }]);
    const interactions = new ScriptedInteractions([choose("reject")]);
    const h = await start({ home: { approvalPolicy: "on-request", sandboxMode: "read-only" }, interactions });
    const input = prompt("make denied.txt");
    expect(await runTurn(h, input)).toBe("cancelled");
    expect(fs.existsSync(path.join(h.home.workdir, "denied.txt"))).toBe(false);
    const draft = interactions.requests[0]?.draft;
    const tool = h.sink.of("tool_call_update", input.turnId).filter((d) => d.payload.toolCallId === (draft as { toolCallId?: string }).toolCallId);
    expect(tool.at(-1)?.payload.status).toBe("declined");
    expect(h.sink.of("_baton_notice", input.turnId).map((d) => d.payload.title)).not.toContain("Approval bypassed by harness-side policy");
    expect(h.sink.terminals(input.turnId)).toHaveLength(1);
  });

  test("interrupt mid-stream ends cancelled and closes the dangling message", async () => {
    await mock.script([{ kind: "text", text: "x".repeat(400), chunkSize: 10, delayMs: 40 }]);
    const h = await start();
    const input = prompt("talk slowly");
    await h.adapter.sendTurn(h.handle, input);
    await h.sink.waitFor((d) => d.kind === "agent_message_chunk" && d.turnId === input.turnId);
    await h.adapter.cancel(h.handle, input.turnId);
    expect(await h.sink.waitForIdle(input.turnId)).toBe("cancelled");
    const chunkIds = new Set(h.sink.of("agent_message_chunk", input.turnId).map((d) => d.payload.messageId));
    const closed = h.sink.of("agent_message", input.turnId).map((d) => d.payload.messageId);
    for (const id of chunkIds) expect(closed).toContain(id);
    expect(h.sink.terminals(input.turnId)).toHaveLength(1);
    await Bun.sleep(100);
    expect((await mock.requests())[0]?.aborted).toBe(true);
    // The next turn works and Codex tells the model about the interruption.
    await mock.script([{ kind: "text", text: "fine" }]);
    const next = prompt("again");
    expect(await runTurn(h, next)).toBe("end_turn");
    const texts = inputMessages((await mock.requests()).at(-1)!).map((m) => m.text);
    expect(texts.some((t) => t.includes("<turn_aborted>"))).toBe(true);
  });

  test("cancel before the Codex turn id is known is remembered and sent once it arrives", async () => {
    await mock.script([{ kind: "text", text: "y".repeat(400), chunkSize: 10, delayMs: 40 }]);
    const h = await start();
    const input = prompt("talk slowly");
    await h.adapter.sendTurn(h.handle, input);
    await h.adapter.cancel(h.handle, input.turnId);
    expect(await h.sink.waitForIdle(input.turnId)).toBe("cancelled");
  });

  test("steer during a slow stream is accepted and the next model request carries the steer text", async () => {
    await mock.script([
      { kind: "text", text: "z".repeat(600), chunkSize: 10, delayMs: 40 },
      { kind: "text", text: "steered answer" },
    ]);
    const h = await start();
    const input = prompt("start talking");
    await h.adapter.sendTurn(h.handle, input);
    await h.sink.waitFor((d) => d.kind === "agent_message_chunk" && d.turnId === input.turnId);
    const before = h.sink.drafts.length;
    const wrong = await h.adapter.sendTurn(h.handle, prompt("not this turn"));
    expect(wrong.accepted).toBe(false);
    expect(wrong.effective).toBe("rejected");
    expect(h.sink.drafts.slice(before).filter((d) => d.kind === "user_message")).toHaveLength(0);
    const steer = prompt("please also mention bananas", input.turnId);
    expect(await h.adapter.sendTurn(h.handle, steer)).toEqual({ accepted: true, effective: "steer" });
    // The controller records the steer's user_message; the adapter drafts none (#11.14).
    expect(h.sink.of("user_message", input.turnId)).toEqual([]);
    expect(await h.sink.waitForIdle(input.turnId)).toBe("end_turn");
    expect(h.sink.chunkText(input.turnId)).toContain("steered answer");
    const last = (await mock.requests()).at(-1)!;
    const users = inputMessages(last).filter((m) => m.role === "user").map((m) => m.text);
    expect(users).toContain("please also mention bananas");
    expect(users).toContain("start talking");
    expect(h.sink.terminals(input.turnId)).toHaveLength(1);
  });

  test("resume in a new adapter instance continues the thread with its whole history", async () => {
    await mock.script([{ kind: "text", text: "I will remember pineapple." }]);
    const first = await start();
    expect(await runTurn(first, prompt("remember the word pineapple"))).toBe("end_turn");
    const identity = first.sink.identities[0]!;
    const home = first.home;
    for (const entry of open.splice(0)) await entry.adapter.close(entry.handle);
    await mock.script([{ kind: "text", text: "The word was pineapple." }]);
    const second = await start({ reuseHome: home, resumeState: identity.resumeState });
    expect(second.sink.identities).toEqual([{ harnessSessionId: identity.harnessSessionId, resumeState: identity.resumeState, fresh: false }]);
    expect(await runTurn(second, prompt("what was the word?"))).toBe("end_turn");
    const messages = inputMessages((await mock.requests()).at(-1)!);
    expect(messages).toContainEqual({ role: "user", text: "remember the word pineapple" });
    expect(messages).toContainEqual({ role: "assistant", text: "I will remember pineapple." });
    expect(messages.at(-1)).toEqual({ role: "user", text: "what was the word?" });
  });

  test("a resume id Codex does not know starts a fresh thread (fresh:true)", async () => {
    const h = await start({ resumeState: { version: 1, data: { threadId: "01a22b39-3877-75c1-93ac-cc8385717b3e" } } });
    const identity = h.sink.identities[0]!;
    expect(identity.fresh).toBe(true);
    expect(identity.harnessSessionId).not.toBe("01a22b39-3877-75c1-93ac-cc8385717b3e");
  });

  test("kill -9 of the app-server mid-turn: one error and one failed terminal within 2 s; the handle is dead; reopen resumes", async () => {
    await mock.script([{ kind: "text", text: "w".repeat(600), chunkSize: 10, delayMs: 40 }]);
    const h = await start();
    const input = prompt("talk slowly");
    await h.adapter.sendTurn(h.handle, input);
    await h.sink.waitFor((d) => d.kind === "agent_message_chunk" && d.turnId === input.turnId);
    const pid = h.adapter.processId(h.handle) as number;
    const killedAt = Date.now();
    process.kill(pid, "SIGKILL");
    expect(await h.sink.waitForIdle(input.turnId, 2_000)).toBe("failed");
    expect(Date.now() - killedAt).toBeLessThan(2_000);
    await Bun.sleep(200);
    const errors = h.sink.of("_baton_error_update", input.turnId);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.payload.message).toContain("SIGKILL");
    expect(h.sink.terminals(input.turnId)).toHaveLength(1);
    const error = await h.adapter.sendTurn(h.handle, prompt("anyone there?")).catch((e: unknown) => e);
    expect(isBatonError(error, "harness_dead")).toBe(true);
    await mock.script([{ kind: "text", text: "back again" }]);
    const again = await start({ reuseHome: h.home, resumeState: h.sink.identities[0]!.resumeState });
    expect(again.sink.identities[0]?.fresh).toBe(false);
    const next = prompt("hello after the crash");
    expect(await runTurn(again, next)).toBe("end_turn");
    expect(again.sink.chunkText(next.turnId)).toBe("back again");
  });

  test("HTTP 500 from the model fails the turn with Codex's error text", async () => {
    await mock.script([{ kind: "http_error", status: 500, body: JSON.stringify({ error: { message: "mock exploded", type: "server_error" } }) }]);
    const h = await start();
    const input = prompt("fail please");
    expect(await runTurn(h, input)).toBe("failed");
    const errors = h.sink.of("_baton_error_update", input.turnId);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.payload.message.length).toBeGreaterThan(0);
    expect(errors[0]?.payload).toMatchObject({ code: "internalServerError", willRetry: false });
    expect(h.sink.terminals(input.turnId)).toHaveLength(1);
  });

  test("response.failed fails the turn and shows the model's message", async () => {
    await mock.script([{ kind: "fail", message: "the mock model gave up" }]);
    const h = await start();
    const input = prompt("fail differently");
    expect(await runTurn(h, input)).toBe("failed");
    const errors = h.sink.of("_baton_error_update", input.turnId);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.payload.message).toContain("the mock model gave up");
  });

  test("syncContext puts the history into the thread before the prompt (thread/inject_items), and it survives a resume", async () => {
    await mock.script([{ kind: "text", text: "noted" }, { kind: "text", text: "still blue" }]);
    const h = await start();
    await h.adapter.syncContext(h.handle, [{ type: "text", text: "<baton-sync>earlier the user chose blue</baton-sync>" }]);
    expect(await runTurn(h, prompt("continue"))).toBe("end_turn");
    const first = (await mock.requests())[0]!;
    const messages = inputMessages(first);
    // A plain user message right before the prompt: not a tool output, not developer text.
    expect(messages.slice(-2)).toEqual([
      { role: "user", text: "<baton-sync>earlier the user chose blue</baton-sync>" },
      { role: "user", text: "continue" },
    ]);
    expect(inputItems(first).some((item) => item["type"] === "function_call_output")).toBe(false);
    // The turn has only the prompt: the history is not a turn item Baton would import back.
    expect(h.sink.of("user_message_chunk")).toHaveLength(0);

    const identity = h.sink.identities[0]!;
    await h.adapter.close(h.handle);
    open.splice(open.findIndex((entry) => entry.handle === h.handle), 1);
    const resumed = await start({ reuseHome: h.home, resumeState: identity.resumeState });
    expect(await runTurn(resumed, prompt("which colour?"))).toBe("end_turn");
    expect(inputMessages((await mock.requests()).at(-1)!).map((m) => m.text)).toContain("<baton-sync>earlier the user chose blue</baton-sync>");
  });

  test("syncContext on a dead app-server throws harness_dead (nothing is receipted)", async () => {
    const h = await start();
    const pid = h.adapter.processId(h.handle) as number;
    process.kill(pid, "SIGKILL");
    await Bun.sleep(500);
    const error = await h.adapter.syncContext(h.handle, [{ type: "text", text: "history" }]).catch((e: unknown) => e);
    expect(isBatonError(error, "harness_dead")).toBe(true);
  });

  test("a failed turn is taken out of the thread (#12.9): no later request carries its prompt, also after a resume", async () => {
    await mock.script([
      { kind: "text", text: "Noted: kiwi." },
      { kind: "http_error", status: 500, body: JSON.stringify({ error: { message: "the API chokes on this prompt", type: "server_error" } }) },
      { kind: "text", text: "Hello again." },
      { kind: "text", text: "Resumed." },
    ]);
    const h = await start();
    expect(await runTurn(h, prompt("remember: kiwi"))).toBe("end_turn");
    const failed = prompt("C500 POISON");
    expect(await runTurn(h, failed)).toBe("failed");
    expect(h.sink.of("_baton_notice", failed.turnId).map((d) => d.payload.title)).toContain(DROPPED_TURN_NOTICE);
    // The pending revert is published (a restarted Baton would still do it) until it is done.
    const atFailure = h.sink.identities.find((identity) => typeof identity.resumeState.data["revertBefore"] === "string");
    expect(atFailure).toBeDefined();

    expect(await runTurn(h, prompt("hello again"))).toBe("end_turn");
    const after = inputMessages((await mock.requests()).at(-1)!).map((m) => m.text);
    expect(after.some((text) => text.includes("POISON"))).toBe(false);
    expect(after).toContain("remember: kiwi");
    expect(after.at(-1)).toBe("hello again");
    expect(h.sink.identities.at(-1)?.resumeState.data).toEqual({ threadId: h.sink.identities[0]?.harnessSessionId });

    // A Baton that restarts with the revert still recorded: Codex says the turn is gone, nothing is lost or warned about.
    await h.adapter.close(h.handle);
    open.splice(open.findIndex((entry) => entry.handle === h.handle), 1);
    const resumed = await start({ reuseHome: h.home, resumeState: atFailure!.resumeState });
    const next = prompt("still there?");
    expect(await runTurn(resumed, next)).toBe("end_turn");
    expect(inputMessages((await mock.requests()).at(-1)!).some((m) => m.text.includes("POISON"))).toBe(false);
    expect(resumed.sink.of("_baton_notice", next.turnId)).toHaveLength(0);
  });

  test("a completed turn without output gets the empty-turn notice", async () => {
    await mock.script([{ kind: "text", text: "" }]);
    const h = await start();
    const input = prompt("say nothing");
    expect(await runTurn(h, input)).toBe("end_turn");
    expect(h.sink.of("_baton_notice", input.turnId).map((d) => d.payload.title)).toEqual(["Codex returned an empty turn (no output)"]);
  });

  test("an apply_patch under on-request + read-only asks to apply file changes; allowed, the file and a diff block appear", async () => {
    const patch = "*** Begin Patch\n*** Add File: notes.txt\n+patched by mock\n*** End Patch";
    await mock.script([{ kind: "apply_patch", patch }, { kind: "text", text: "patched" }]);
    const interactions = new ScriptedInteractions([choose("allow", "once")]);
    const h = await start({ home: { approvalPolicy: "on-request", sandboxMode: "read-only" }, interactions });
    const input = prompt("add notes");
    expect(await runTurn(h, input)).toBe("end_turn");
    expect(fs.readFileSync(path.join(h.home.workdir, "notes.txt"), "utf8")).toBe("patched by mock\n");
    const diff = { type: "diff" as const, changes: [{ operation: "add", path: path.join(h.home.workdir, "notes.txt") }], patch: `--- /dev/null\n+++ ${path.join(h.home.workdir, "notes.txt")}\n@@ -0,0 +1,1 @@\n+patched by mock\n` };
    // #11.9: the card carries the diff Codex sent, and the tool block shows it while it waits for approval.
    const card = interactions.requests[0]?.draft;
    expect(card?.type === "permission" ? card.diffs : undefined).toEqual([diff]);
    const edits = h.sink.of("tool_call_update", input.turnId).filter((d) => d.payload.kind === "edit");
    expect(edits[0]?.payload).toMatchObject({ status: "in_progress", content: [diff] });
    expect(edits.at(-1)?.payload.status).toBe("completed");
    expect(edits.at(-1)?.payload.content).toEqual([
      { type: "diff", changes: [{ operation: "add", path: path.join(h.home.workdir, "notes.txt") }], patch: `--- /dev/null\n+++ ${path.join(h.home.workdir, "notes.txt")}\n@@ -0,0 +1,1 @@\n+patched by mock\n` },
    ]);
  });

  test("config lists the catalog model and rejects an effort the model does not support", async () => {
    const h = await start();
    const options = await h.adapter.getConfig(h.handle);
    const model = options.find((o) => o.id === "model");
    expect(model?.options?.map((o) => o.value)).toEqual(["default", "mock-model"]);
    expect(model?.value).toBe("default");
    await expect(h.adapter.setConfig(h.handle, "effort", "xhigh")).rejects.toThrow(/does not support effort 'xhigh'/);
    await h.adapter.setConfig(h.handle, "model", "mock-model");
    expect((await h.adapter.getConfig(h.handle)).find((o) => o.id === "model")?.value).toBe("mock-model");
  });

  test("textgen: structured output on an ephemeral thread of a separate app-server, leaving no rollout", async () => {
    const h = await start();
    await mock.script([{ kind: "text", text: "live reply" }]);
    const live = prompt("a live turn first");
    expect(await runTurn(h, live)).toBe("end_turn");
    const before = h.sink.drafts.length;
    await mock.script([{ kind: "text", text: JSON.stringify({ title: "Fix the login bug" }) }]);
    const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"], additionalProperties: false };
    const result = await h.adapter.generateStructured({ prompt: "Title this session", schema, cwd: h.home.workdir });
    expect(result).toEqual({ title: "Fix the login bug" });
    const request = (await mock.requests()).at(-1)!;
    expect(JSON.stringify((request.body as { text?: unknown }).text)).toContain("json_schema");
    expect(inputMessages(request).at(-1)).toEqual({ role: "user", text: "Title this session" });
    const rollouts = fs.existsSync(path.join(h.home.codexHome, "sessions")) ? fs.readdirSync(path.join(h.home.codexHome, "sessions"), { recursive: true }).filter((f) => String(f).endsWith(".jsonl")) : [];
    expect(rollouts).toHaveLength(1); // the live thread's only: the ephemeral thread writes none
    expect(h.sink.drafts.length).toBe(before);
  });

  test("an image block fails admission with prompt_unsupported naming image", async () => {
    const adapter = new CodexAdapter();
    const input: PromptInput = { ...prompt("look"), blocks: [{ type: "text", text: "look" }, { type: "image", mimeType: "image/png", data: "AAAA" }] };
    const error = await adapter.sendTurn({ id: ids.mint("handle") }, input).catch((e: unknown) => e);
    expect(isBatonError(error, "prompt_unsupported")).toBe(true);
    expect((error as Error).message).toContain("image");
  });

  test("no executable found: open fails with harness_missing saying what was searched and how to install", async () => {
    const adapter = new CodexAdapter({ installedFrom: null });
    const home = makeCodexHome({ baseUrl: mock.baseUrl });
    homes.push(home);
    const sink = new RecordingSink();
    const error = await adapter
      .open({ targetId: "codex", cwd: home.workdir, env: { HOME: home.home, PATH: "" }, interactions: new ScriptedInteractions(), ids, clock: systemClock, log: memoryLog() }, sink, sink)
      .catch((e: unknown) => e);
    expect(isBatonError(error, "harness_missing")).toBe(true);
    expect((error as Error).message).toContain("codex on PATH");
    expect((error as { hint?: string }).hint).toContain("npm install -g @openai/codex");
  });

  test("a broken command fails open with harness_start_failed and leaves nothing running", async () => {
    const adapter = new CodexAdapter({ settings: { command: ["/bin/sh", "-c", "echo broken >&2; exit 3"] } });
    const home = makeCodexHome({ baseUrl: mock.baseUrl });
    homes.push(home);
    const sink = new RecordingSink();
    const error = await adapter
      .open({ targetId: "codex", cwd: home.workdir, env: home.env, interactions: new ScriptedInteractions(), ids, clock: systemClock, log: memoryLog() }, sink, sink)
      .catch((e: unknown) => e);
    expect(isBatonError(error, "harness_start_failed")).toBe(true);
    expect((error as Error).message).toContain("broken");
    expect(sink.identities).toHaveLength(0);
  });
});
