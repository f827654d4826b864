/**
 * The Codex adapter against an in-memory app-server (no process): notification mapping edge cases,
 * terminal-once, pending cancel, steer rules, IX-09/IX-10, reconcile, death.
 */
import { describe, expect, test } from "bun:test";
import { CodexAdapter } from "../../src/harness/codex/adapter.ts";
import type { JsonRpcTransport } from "../../src/rpc/jsonrpc.ts";
import type { ExitInfo, ProcessHandle as CodexProcess } from "../../src/rpc/process-handle.ts";
import type { HarnessHandle, PromptInput } from "../../src/harness/contract.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { isBatonError } from "../../src/shared/errors.ts";
import { createSequentialIdSource, type TurnId } from "../../src/shared/ids.ts";
import { silentLogger } from "../../src/shared/log.ts";
import { RecordingSink, ScriptedInteractions, choose } from "../support/recording-host.ts";

type Responder = (params: Record<string, unknown>) => unknown;
/** A responder returning HOLD never answers. */
const HOLD = Symbol("hold");

class FakeAppServer {
  readonly received: { method: string; params: Record<string, unknown>; id?: number }[] = [];
  readonly responders = new Map<string, Responder>();
  private queue: (string | null)[] = [];
  private wake: (() => void) | undefined;
  private serverRequestId = 0;
  private readonly answers = new Map<number, (v: unknown) => void>();
  private exitResolve!: (e: ExitInfo) => void;
  private exit: ExitInfo | undefined;
  turnCounter = 0;
  readonly threadId = "th_1";

  constructor() {
    this.responders.set("initialize", () => ({ userAgent: "fake", codexHome: "/tmp/x", platformFamily: "unix", platformOs: "linux" }));
    const thread = () => ({ thread: { id: this.threadId, status: { type: "idle" } }, model: "fake-model", reasoningEffort: null, approvalsReviewer: "user", approvalPolicy: "on-request" });
    this.responders.set("thread/start", thread);
    this.responders.set("thread/resume", thread);
    this.responders.set("turn/start", () => ({ turn: { id: `turn_${++this.turnCounter}`, status: "inProgress", items: [], error: null } }));
    this.responders.set("turn/interrupt", () => ({}));
    this.responders.set("turn/steer", (p) => ({ turnId: p["expectedTurnId"] }));
  }

  readonly process: CodexProcess = (() => {
    const server = this;
    const input: AsyncIterable<string> = {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (server.queue.length === 0) await new Promise<void>((r) => (server.wake = r));
          const next = server.queue.shift();
          if (next === null || next === undefined) return;
          yield next;
        }
      },
    };
    const transport: JsonRpcTransport = {
      input,
      write: (line) => server.onClientLine(line),
      end: () => server.die({ code: 0, signal: null }),
    };
    const stop = async (): Promise<ExitInfo> => {
      server.die({ code: 0, signal: null });
      return server.exit ?? { code: 0, signal: null };
    };
    return {
      label: "fake codex app-server",
      pid: 4242,
      argv: ["fake-codex", "app-server"],
      transport,
      exited: new Promise<ExitInfo>((resolve) => (server.exitResolve = resolve)),
      exitInfo: () => server.exit,
      stderrTail: () => "",
      kill: () => server.die({ code: null, signal: "SIGKILL" }),
      terminate: stop,
      stop,
      reapGroup: () => undefined,
    };
  })();

  private push(value: unknown): void {
    this.queue.push(`${JSON.stringify(value)}\n`);
    this.wake?.();
  }

  private onClientLine(line: string): void {
    const message = JSON.parse(line) as { id?: number; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };
    if (message.method !== undefined) {
      this.received.push({ method: message.method, params: message.params ?? {}, ...(message.id !== undefined ? { id: message.id } : {}) });
      if (message.id === undefined) return;
      const responder = this.responders.get(message.method);
      const id = message.id;
      queueMicrotask(() => {
        if (responder === undefined) return this.push({ id, error: { code: -32600, message: `unknown variant ${message.method}` } });
        try {
          const result = responder(message.params ?? {});
          if (result === HOLD) return;
          this.push({ id, result });
        } catch (error) {
          this.push({ id, error: { code: -32600, message: (error as Error).message } });
        }
      });
      return;
    }
    if (message.id !== undefined) this.answers.get(message.id)?.(message.result ?? message.error);
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.push({ method, params: { threadId: this.threadId, ...params } });
  }

  request(method: string, params: Record<string, unknown>): { id: number; answer: Promise<unknown> } {
    const id = this.serverRequestId++;
    const answer = new Promise<unknown>((resolve) => this.answers.set(id, resolve));
    this.push({ id, method, params: { threadId: this.threadId, ...params } });
    return { id, answer };
  }

  calls(method: string) {
    return this.received.filter((r) => r.method === method);
  }

  die(exit: ExitInfo = { code: null, signal: "SIGKILL" }): void {
    if (this.exit !== undefined) return;
    this.exit = exit;
    this.queue.push(null);
    this.wake?.();
    this.exitResolve(exit);
  }
}

const flush = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
};

async function setup(options: { settings?: Record<string, unknown>; interactions?: ScriptedInteractions; clock?: ManualClock } = {}) {
  const server = new FakeAppServer();
  const ids = createSequentialIdSource();
  const sink = new RecordingSink();
  const clock = options.clock ?? new ManualClock();
  const interactions = options.interactions ?? new ScriptedInteractions();
  const adapter = new CodexAdapter({ settings: { command: ["fake-codex", "app-server"], ...options.settings }, spawn: () => server.process });
  const handle: HarnessHandle = await adapter.open(
    { targetId: "codex", cwd: "/work", env: {}, interactions, ids, clock, log: silentLogger },
    sink,
    sink,
  );
  const prompt = (text: string, turnId: TurnId = ids.mint("turn")): PromptInput => ({ turnId, messageId: ids.mint("message"), blocks: [{ type: "text", text }] });
  /** Send a turn and let the start response and `turn/started` arrive; returns the turn ids. */
  const begin = async (text = "hi") => {
    const input = prompt(text);
    expect(await adapter.sendTurn(handle, input)).toEqual({ accepted: true, effective: "new_turn" });
    await flush();
    const native = `turn_${server.turnCounter}`;
    server.notify("turn/started", { turn: { id: native, status: "inProgress", items: [] } });
    await flush();
    return { turnId: input.turnId, native, input };
  };
  const complete = async (native: string, status = "completed", error: unknown = null) => {
    server.notify("turn/completed", { turn: { id: native, status, items: [], error } });
    await flush();
  };
  return { server, ids, sink, clock, adapter, handle, prompt, begin, complete, interactions };
}

const item = (type: string, id: string, extra: Record<string, unknown> = {}) => ({ type, id, ...extra });

describe("codex session mapping (in-memory app-server)", () => {
  test("open: initialize with experimentalApi, thread/start carries only cwd without Baton approval settings", async () => {
    const { server, sink, adapter, handle } = await setup();
    expect(server.calls("initialize")[0]?.params).toMatchObject({ clientInfo: { name: "baton" }, capabilities: { experimentalApi: true } });
    expect(server.calls("initialized")).toHaveLength(1);
    expect(server.calls("thread/start")[0]?.params).toEqual({ cwd: "/work" });
    expect(sink.identities).toEqual([{ harnessSessionId: "th_1", resumeState: { version: 1, data: { threadId: "th_1" } }, fresh: true }]);
    expect(adapter.approvalRoute(handle)).toBe("user");
  });

  test("Baton settings for approval policy, sandbox and reviewer are passed; the effective reviewer decides the route", async () => {
    const server = new FakeAppServer();
    server.responders.set("thread/start", () => ({ thread: { id: "th_1", status: { type: "idle" } }, model: "m", reasoningEffort: null, approvalsReviewer: "auto_review" }));
    const adapter = new CodexAdapter({
      settings: { command: ["fake-codex", "app-server"], approvalPolicy: "never", sandbox: "read-only", approvalsReviewer: "auto_review" },
      spawn: () => server.process,
    });
    const sink = new RecordingSink();
    const handle = await adapter.open({ targetId: "codex", cwd: "/w", env: {}, interactions: new ScriptedInteractions(), ids: createSequentialIdSource(), clock: new ManualClock(), log: silentLogger }, sink, sink);
    expect(server.calls("thread/start")[0]?.params).toEqual({ cwd: "/w", approvalPolicy: "never", sandbox: "read-only", approvalsReviewer: "auto_review" });
    expect(adapter.approvalRoute(handle)).toBe("delegated");
  });

  test("resume errors other than not-found fail open (and kill the process)", async () => {
    const server = new FakeAppServer();
    server.responders.set("thread/resume", () => {
      throw new Error("permission denied reading rollout");
    });
    const adapter = new CodexAdapter({ settings: { command: ["fake-codex", "app-server"] }, spawn: () => server.process });
    const sink = new RecordingSink();
    const error = await adapter
      .open({ targetId: "codex", cwd: "/w", env: {}, resumeState: { version: 1, data: { threadId: "old" } }, interactions: new ScriptedInteractions(), ids: createSequentialIdSource(), clock: new ManualClock(), log: silentLogger }, sink, sink)
      .catch((e: unknown) => e);
    expect(isBatonError(error, "harness_start_failed")).toBe(true);
    expect((error as Error).message).toContain("permission denied reading rollout");
    expect(server.calls("thread/start")).toHaveLength(0);
    expect(server.process.exitInfo()).toBeDefined();
  });

  test("a not-found resume starts a fresh thread; an unknown resume-state version is not reinterpreted", async () => {
    const server = new FakeAppServer();
    server.responders.set("thread/resume", () => {
      throw new Error("no rollout found for thread id old");
    });
    const adapter = new CodexAdapter({ settings: { command: ["fake-codex", "app-server"] }, spawn: () => server.process });
    const sink = new RecordingSink();
    const opts = { targetId: "codex", cwd: "/w", env: {}, interactions: new ScriptedInteractions(), ids: createSequentialIdSource(), clock: new ManualClock(), log: silentLogger };
    await adapter.open({ ...opts, resumeState: { version: 1, data: { threadId: "old" } } }, sink, sink);
    expect(server.calls("thread/resume")[0]?.params).toMatchObject({ threadId: "old" });
    expect(sink.identities.at(-1)?.fresh).toBe(true);
    const other = new FakeAppServer();
    const adapter2 = new CodexAdapter({ settings: { command: ["fake-codex", "app-server"] }, spawn: () => other.process });
    await adapter2.open({ ...opts, resumeState: { version: 2, data: { threadId: "old" } } }, sink, sink);
    expect(other.calls("thread/resume")).toHaveLength(0);
    expect(other.calls("thread/start")).toHaveLength(1);
  });

  test("token usage: deltas from cumulative totals never double count; context usage from last", async () => {
    const { server, sink, begin, complete } = await setup();
    const { turnId, native } = await begin();
    const usage = (input: number, output: number, last: number) => ({
      turnId: native,
      tokenUsage: {
        total: { totalTokens: input + output, inputTokens: input, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: output, reasoningOutputTokens: 0 },
        last: { totalTokens: last, inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 },
        modelContextWindow: 1000,
      },
    });
    server.notify("thread/tokenUsage/updated", usage(100, 10, 110));
    server.notify("thread/tokenUsage/updated", usage(250, 30, 170));
    server.notify("item/completed", { turnId: native, item: item("agentMessage", "m1", { text: "hello" }) });
    await complete(native);
    expect(sink.of("usage_update", turnId).map((d) => [d.payload.inputTokens, d.payload.outputTokens])).toEqual([[100, 10], [150, 20]]);
    expect(sink.of("context_usage_update", turnId).map((d) => d.payload)).toEqual([
      { contextUsed: 110, model: "fake-model", contextSize: 1000 },
      { contextUsed: 170, model: "fake-model", contextSize: 1000 },
    ]);
  });

  test("dangling message, thought and tool are closed at turn end; late notifications of a finished turn do not leak", async () => {
    const { server, sink, begin, complete } = await setup();
    const first = await begin();
    server.notify("item/started", { turnId: first.native, item: item("agentMessage", "m1", { text: "" }) });
    server.notify("item/agentMessage/delta", { turnId: first.native, itemId: "m1", delta: "partial" });
    server.notify("item/reasoning/summaryTextDelta", { turnId: first.native, itemId: "r1", delta: "hmm", summaryIndex: 0 });
    server.notify("item/started", { turnId: first.native, item: item("commandExecution", "c1", { command: "sleep 9", cwd: "/w", commandActions: [], status: "inProgress" }) });
    await complete(first.native, "interrupted");
    expect(sink.of("agent_message", first.turnId).map((d) => d.payload)).toEqual([{ messageId: "m1", content: [{ type: "text", text: "partial" }] }]);
    expect(sink.of("agent_thought", first.turnId).map((d) => d.payload.messageId)).toEqual(["r1:summary:0"]);
    expect(sink.of("tool_call_update", first.turnId).at(-1)?.payload).toEqual({ toolCallId: "c1", status: "interrupted" });
    expect(sink.terminals(first.turnId).map((d) => d.payload.stopReason)).toEqual(["cancelled"]);
    const second = await begin();
    server.notify("item/agentMessage/delta", { turnId: first.native, itemId: "m1", delta: "late" });
    await complete(first.native, "completed");
    await flush();
    expect(sink.of("agent_message_chunk", second.turnId)).toHaveLength(0);
    expect(sink.terminals(first.turnId)).toHaveLength(1);
    expect(sink.terminals(second.turnId)).toHaveLength(0);
  });

  test("notifications for another thread are ignored", async () => {
    const { server, sink, begin } = await setup();
    const { turnId, native } = await begin();
    server.notify("item/agentMessage/delta", { threadId: "other", turnId: native, itemId: "m", delta: "x" });
    await flush();
    expect(sink.of("agent_message_chunk", turnId)).toHaveLength(0);
  });

  test("a retrying error is shown without ending the turn; a fatal one ends it failed exactly once", async () => {
    const { server, sink, begin, complete } = await setup();
    const { turnId, native } = await begin();
    server.notify("error", { turnId: native, willRetry: true, error: { message: "Reconnecting... 1/5", codexErrorInfo: null, additionalDetails: null } });
    await flush();
    expect(sink.terminals(turnId)).toHaveLength(0);
    server.notify("error", { turnId: native, willRetry: false, error: { message: "boom", codexErrorInfo: { httpConnectionFailed: { httpStatusCode: null } }, additionalDetails: null } });
    await complete(native, "failed", { message: "boom" });
    expect(sink.of("_baton_error_update", turnId).map((d) => [d.payload.message, d.payload.code, d.payload.willRetry])).toEqual([
      ["Reconnecting... 1/5", undefined, true],
      ["boom", "httpConnectionFailed", false],
    ]);
    expect(sink.terminals(turnId).map((d) => d.payload.stopReason)).toEqual(["failed"]);
  });

  test("a fatal error without turn/completed still ends the turn (fallback)", async () => {
    const { server, sink, begin, clock } = await setup();
    const { turnId, native } = await begin();
    server.notify("error", { turnId: native, willRetry: false, error: { message: "dead stream", codexErrorInfo: "other", additionalDetails: null } });
    await flush();
    expect(sink.terminals(turnId)).toHaveLength(0);
    clock.advance(3_000);
    expect(sink.terminals(turnId).map((d) => d.payload.stopReason)).toEqual(["failed"]);
  });

  test("an unknown terminal status is failed, never end_turn", async () => {
    const { sink, begin, complete } = await setup();
    const { turnId, native } = await begin();
    await complete(native, "exploded");
    expect(sink.terminals(turnId).map((d) => d.payload.stopReason)).toEqual(["failed"]);
    expect(sink.of("_baton_error_update", turnId)[0]?.payload.message).toContain("exploded");
  });

  test("IX-10: a declined tool that never asked Baton gets the bypass notice; IX-09: a reviewed one gets a receipt instead", async () => {
    const { server, sink, begin, complete } = await setup();
    const { turnId, native } = await begin();
    const cmd = (id: string) => item("commandExecution", id, { command: `rm ${id}`, cwd: "/w", commandActions: [], status: "declined", aggregatedOutput: null, exitCode: null, durationMs: null });
    server.notify("item/completed", { turnId: native, item: cmd("c1") });
    server.notify("item/autoApprovalReview/started", { turnId: native, reviewId: "r", targetItemId: "c2", review: { status: "inProgress", riskLevel: null, userAuthorization: null, rationale: null }, action: { type: "command", command: "rm c2", cwd: "/w", source: "shell" } });
    server.notify("item/autoApprovalReview/completed", { turnId: native, reviewId: "r", targetItemId: "c2", decisionSource: "agent", review: { status: "timedOut", riskLevel: "high", userAuthorization: "low", rationale: "too risky" }, action: { type: "command", command: "rm c2", cwd: "/w", source: "shell" } });
    server.notify("item/completed", { turnId: native, item: cmd("c2") });
    await complete(native);
    const notices = sink.of("_baton_notice", turnId).map((d) => [d.payload.title, d.payload.detail]);
    expect(notices).toEqual([["Approval bypassed by harness-side policy", "rm c1"]]);
    const receipts = sink.of("approval_review_update", turnId).map((d) => d.payload);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({ toolCallId: "c2", decision: "aborted", riskLevel: "high", userAuthorization: "low", rationale: "too risky", actionType: "command" });
    expect(receipts[0]?.reviewId.startsWith("arv_")).toBe(true);
    expect(sink.of("_baton_run_status", turnId).map((d) => d.payload.phase)).toEqual(["Reviewing approval…", null]);
    expect(sink.of("tool_call_update", turnId).map((d) => d.payload.status)).toEqual(["declined", "declined"]);
  });

  test("a harness-initiated turn gets a fresh t_ id and starts with running", async () => {
    const { server, sink } = await setup();
    server.notify("turn/started", { turn: { id: "native_x", status: "inProgress", items: [] } });
    server.notify("item/completed", { turnId: "native_x", item: item("agentMessage", "m9", { text: "on my own" }) });
    server.notify("turn/completed", { turn: { id: "native_x", status: "completed", items: [], error: null } });
    await flush();
    const running = sink.of("state_update").filter((d) => d.payload.state === "running");
    expect(running).toHaveLength(1);
    const turnId = running[0]?.turnId as string;
    expect(turnId.startsWith("t_")).toBe(true);
    expect(sink.terminals(turnId).map((d) => d.payload.stopReason)).toEqual(["end_turn"]);
  });

  test("steer is rejected without a wire call while the Codex turn id is unknown; accepted once known", async () => {
    const { server, sink, adapter, handle, prompt } = await setup();
    server.responders.set("turn/start", () => HOLD);
    const input = prompt("start");
    await adapter.sendTurn(handle, input);
    await flush();
    const early = await adapter.sendTurn(handle, prompt("steer early", input.turnId));
    expect(early).toEqual({ accepted: false, effective: "rejected", reason: "the Codex turn id is not known yet" });
    expect(server.calls("turn/steer")).toHaveLength(0);
    const other = await adapter.sendTurn(handle, prompt("another turn"));
    expect(other.effective).toBe("rejected");
    expect(sink.drafts).toHaveLength(0);
    server.notify("turn/started", { turn: { id: "native_1", status: "inProgress", items: [] } });
    await flush();
    const steer = prompt("steer now", input.turnId);
    expect(await adapter.sendTurn(handle, steer)).toEqual({ accepted: true, effective: "steer" });
    expect(server.calls("turn/steer")[0]?.params).toMatchObject({ threadId: "th_1", expectedTurnId: "native_1", input: [{ type: "text", text: "steer now", text_elements: [] }] });
    // The controller records the steer's user_message (source user); the adapter drafts none (#11.14).
    expect(sink.of("user_message", input.turnId)).toEqual([]);
    server.responders.set("turn/steer", () => {
      throw new Error("expected turn mismatch");
    });
    const failed = await adapter.sendTurn(handle, prompt("steer again", input.turnId));
    expect(failed).toEqual({ accepted: false, effective: "rejected", reason: "expected turn mismatch" });
    expect(sink.of("user_message", input.turnId)).toHaveLength(0);
  });

  test("pending cancel: sent when the start response arrives; re-sent on turn/started if Codex had no active turn yet", async () => {
    const { server, sink, adapter, handle, prompt, complete } = await setup();
    let interrupts = 0;
    server.responders.set("turn/interrupt", () => {
      interrupts++;
      if (interrupts === 1) throw new Error("no active turn to interrupt");
      return {};
    });
    const input = prompt("go");
    await adapter.sendTurn(handle, input);
    await adapter.cancel(handle, input.turnId);
    expect(server.calls("turn/interrupt")).toHaveLength(0);
    await flush();
    expect(server.calls("turn/interrupt")).toHaveLength(1);
    server.notify("turn/started", { turn: { id: "turn_1", status: "inProgress", items: [] } });
    await flush();
    expect(server.calls("turn/interrupt").map((c) => c.params)).toEqual([
      { threadId: "th_1", turnId: "turn_1" },
      { threadId: "th_1", turnId: "turn_1" },
    ]);
    await complete("turn_1", "interrupted");
    expect(sink.terminals(input.turnId).map((d) => d.payload.stopReason)).toEqual(["cancelled"]);
    await adapter.cancel(handle, input.turnId);
    expect(server.calls("turn/interrupt")).toHaveLength(2);
  });

  test("approval round trip: the interaction carries the Baton turn; serverRequest/resolved withdraws it; unrecognized shapes warn once", async () => {
    let seenSignal: AbortSignal | undefined;
    const interactions = new ScriptedInteractions([
      choose("allow", "once"),
      (_draft, context) =>
        new Promise((resolve) => {
          seenSignal = context.signal;
          context.signal?.addEventListener("abort", () => resolve({ outcome: "cancelled", reason: "requester" }));
        }),
    ]);
    const { server, sink, begin } = await setup({ interactions });
    const { turnId, native } = await begin();
    const params = { turnId: native, itemId: "c1", kind: "command", startedAtMs: 0, environmentId: "local", command: "ls", cwd: "/w", availableDecisions: ["accept", { futureThing: {} }, "cancel"] };
    const first = server.request("item/commandExecution/requestApproval", params);
    expect(await first.answer).toEqual({ decision: "accept" });
    expect(interactions.requests[0]?.context.turnId).toBe(turnId);
    const second = server.request("item/commandExecution/requestApproval", { ...params, itemId: "c2" });
    await flush();
    expect(seenSignal?.aborted).toBe(false);
    server.notify("serverRequest/resolved", { requestId: second.id });
    expect(await second.answer).toEqual({ decision: "cancel" });
    expect(sink.of("_baton_notice", turnId).map((d) => [d.payload.title, d.payload.detail])).toEqual([["Unrecognized approval choices from codex", "{futureThing}"]]);
  });

  test("unknown server requests get a JSON-RPC error", async () => {
    const { server } = await setup();
    const r = server.request("item/tool/call", { tool: "x" });
    expect(await r.answer).toMatchObject({ code: -32603 });
  });

  test("reconcile maps thread/read status into the closed vocabulary", async () => {
    const { server, adapter, handle, begin } = await setup();
    const status: { value: unknown } = { value: { type: "active", activeFlags: ["waitingOnApproval"] } };
    server.responders.set("thread/read", () => ({ thread: { id: "th_1", status: status.value } }));
    const { turnId: t } = await begin();
    expect(await adapter.reconcile(handle, t)).toEqual({ state: "waiting_approval" });
    expect(server.calls("thread/read")[0]?.params).toEqual({ threadId: "th_1", includeTurns: false });
    status.value = { type: "active", activeFlags: ["waitingOnUserInput"] };
    expect(await adapter.reconcile(handle, t)).toEqual({ state: "waiting_input" });
    status.value = { type: "active", activeFlags: [] };
    expect(await adapter.reconcile(handle, t)).toEqual({ state: "active" });
    status.value = { type: "idle" };
    expect(await adapter.reconcile(handle, t)).toEqual({ state: "idle" });
    status.value = { type: "systemError" };
    expect((await adapter.reconcile(handle, t)).state).toBe("unknown");
  });

  test("reconcile: an idle thread is no verdict on a turn Codex was not sent, nor on one it accepted but has not reported started; after that, idle is", async () => {
    const { server, adapter, handle, prompt, sink, ids } = await setup();
    server.responders.set("thread/read", () => ({ thread: { id: "th_1", status: { type: "idle" } } }));
    // Still being prepared (the fsync before dispatch): Codex never had it, so its idle thread says nothing.
    expect(await adapter.reconcile(handle, ids.mint("turn"))).toEqual({ state: "unknown", detail: "the turn has not been sent to Codex yet" });
    expect(server.calls("thread/read")).toEqual([]);
    const input = prompt("hi");
    expect(await adapter.sendTurn(handle, input)).toEqual({ accepted: true, effective: "new_turn" });
    await flush();
    expect(await adapter.reconcile(handle, input.turnId)).toEqual({ state: "unknown", detail: "Codex has accepted the turn but not started it yet" });
    server.notify("turn/started", { turn: { id: `turn_${server.turnCounter}`, status: "inProgress", items: [] } });
    await flush();
    // Started, then idle without turn/completed: the terminal was lost, the turn is over.
    expect(await adapter.reconcile(handle, input.turnId)).toEqual({ state: "idle" });
    expect(sink.terminals(input.turnId)).toEqual([]);
  });

  test("a dead app-server: one error and one failed terminal; sendTurn then throws harness_dead before accepting", async () => {
    const { server, sink, adapter, handle, begin, prompt } = await setup();
    const { turnId } = await begin();
    server.die({ code: null, signal: "SIGKILL" });
    await flush(10);
    expect(sink.of("_baton_error_update", turnId).map((d) => d.payload.code)).toEqual(["harness_dead"]);
    expect(sink.terminals(turnId).map((d) => d.payload.stopReason)).toEqual(["failed"]);
    const error = await adapter.sendTurn(handle, prompt("again")).catch((e: unknown) => e);
    expect(isBatonError(error, "harness_dead")).toBe(true);
    expect((await adapter.reconcile(handle, turnId)).state).toBe("unknown");
  });

  test("close synthesizes a cancelled terminal for the active turn", async () => {
    const { server, sink, adapter, handle, begin } = await setup();
    const { turnId } = await begin();
    const closing = adapter.close(handle);
    server.die({ code: 0, signal: null });
    await closing;
    expect(sink.terminals(turnId).map((d) => d.payload.stopReason)).toEqual(["cancelled"]);
    expect(sink.of("_baton_error_update", turnId)).toHaveLength(0);
  });

  test("compact runs as a control turn; a failed compact start ends it failed", async () => {
    const { server, sink, adapter, handle, ids, complete } = await setup();
    server.responders.set("thread/compact/start", () => ({}));
    const t = ids.mint("turn");
    expect(await adapter.compactContext(handle, t)).toEqual({ accepted: true, effective: "new_turn" });
    server.notify("turn/started", { turn: { id: "compact_1", status: "inProgress", items: [] } });
    server.notify("item/started", { turnId: "compact_1", item: item("contextCompaction", "cc") });
    server.notify("item/completed", { turnId: "compact_1", item: item("contextCompaction", "cc") });
    await complete("compact_1");
    expect(sink.terminals(t).map((d) => d.payload.stopReason)).toEqual(["end_turn"]);
    expect(sink.of("_baton_run_status", t).map((d) => d.payload.phase)).toEqual(["Compacting context…", null]);
    server.responders.set("thread/compact/start", () => {
      throw new Error("nothing to compact");
    });
    const t2 = ids.mint("turn");
    await adapter.compactContext(handle, t2);
    await flush();
    expect(sink.terminals(t2).map((d) => d.payload.stopReason)).toEqual(["failed"]);
    expect(sink.of("_baton_error_update", t2)[0]?.payload.message).toContain("nothing to compact");
  });

  test("summary auto rides on turn/start until one carrying it is answered (a sticky override, COD-04)", async () => {
    const { server, sink, adapter, begin, complete, prompt, handle } = await setup();
    server.responders.set("turn/start", () => {
      throw new Error("not now");
    });
    const refused = prompt("refused");
    await adapter.sendTurn(handle, refused);
    await flush();
    expect(sink.terminals(refused.turnId).map((d) => d.payload.stopReason)).toEqual(["failed"]);
    server.responders.set("turn/start", () => ({ turn: { id: `turn_${++server.turnCounter}`, status: "inProgress", items: [], error: null } }));
    for (let i = 0; i < 2; i++) await complete((await begin()).native);
    expect(server.calls("turn/start").map((call) => call.params["summary"])).toEqual(["auto", "auto", undefined]);
  });

  test("mode: turn/start carries collaborationMode with model and effort; refused while a turn runs", async () => {
    const { server, adapter, handle, begin, complete } = await setup();
    await adapter.setConfig(handle, "mode", "plan");
    const { native } = await begin();
    expect(server.calls("turn/start")[0]?.params["collaborationMode"]).toEqual({ mode: "plan", settings: { model: "fake-model", reasoning_effort: null, developer_instructions: null } });
    await expect(adapter.setConfig(handle, "mode", "default")).rejects.toThrow(/while a Codex turn is running/);
    await complete(native);
    await adapter.setConfig(handle, "mode", "default");
  });
});
