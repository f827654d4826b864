/** ClaudeAdapter's turn binding and process handling against a scripted stand-in for the SDK's query(). */
import { describe, expect, test } from "bun:test";
import type { Options, query as sdkQuery, SDKMessage, SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { ClaudeAdapter, DEFAULT_MAX_RETRIES, maxRetriesOf } from "../../src/harness/claude/adapter.ts";
import type { HarnessHandle } from "../../src/harness/contract.ts";
import { isBatonError } from "../../src/shared/errors.ts";
import { ClaudeHost } from "../support/claude-host.ts";

class FakeQuery {
  readonly pushed: SDKUserMessage[] = [];
  readonly controls: unknown[] = [];
  private readonly queue: (SDKMessage | Error | "end")[] = [];
  private wake: (() => void) | undefined;
  closed = false;

  constructor(
    prompt: AsyncIterable<SDKUserMessage>,
    readonly options: Options,
  ) {
    void (async () => {
      for await (const message of prompt) this.pushed.push(message);
      // like Claude Code: the end of the prompt stream ends the process
      this.queue.push("end");
      this.wake?.();
    })();
  }

  emit(message: Record<string, unknown>): void {
    this.queue.push(message as unknown as SDKMessage);
    this.wake?.();
  }
  fail(error: Error): void {
    this.queue.push(error);
    this.wake?.();
  }

  async *messages(): AsyncGenerator<SDKMessage, void> {
    for (;;) {
      const next = this.queue.shift();
      if (next === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      if (next === "end") return;
      if (next instanceof Error) throw next;
      yield next;
    }
  }

  asQuery(): ReturnType<typeof sdkQuery> {
    const generator = this.messages();
    const fake = Object.assign(generator, {
      interrupt: async (options?: unknown) => {
        this.controls.push({ interrupt: options });
        return { still_queued: [] };
      },
      setModel: async (model?: string) => void this.controls.push({ setModel: model }),
      applyFlagSettings: async (settings: unknown) => void this.controls.push({ applyFlagSettings: settings }),
      setPermissionMode: async (mode: string) => {
        this.controls.push({ setPermissionMode: mode });
        return { mode };
      },
      initializationResult: () => new Promise(() => undefined),
      close: () => {
        this.closed = true;
        this.queue.push("end");
        this.wake?.();
      },
    });
    return fake as unknown as ReturnType<typeof sdkQuery>;
  }
}

interface Rig {
  host: ClaudeHost;
  adapter: ClaudeAdapter;
  queries: FakeQuery[];
  open(): Promise<HarnessHandle>;
  /** Open, send one prompt, let the first query start; returns its handle, input and query. */
  start(prompt: string): Promise<{ handle: HarnessHandle; input: ReturnType<ClaudeHost["prompt"]>; q: FakeQuery }>;
}

function rig(): Rig {
  const host = new ClaudeHost();
  const queries: FakeQuery[] = [];
  const queryFn = ((params: { prompt: AsyncIterable<SDKUserMessage>; options?: Options }) => {
    const fake = new FakeQuery(params.prompt, params.options ?? {});
    queries.push(fake);
    return fake.asQuery();
  }) as typeof sdkQuery;
  const adapter = new ClaudeAdapter({ settings: { executable: "claude-under-test" }, queryFn });
  const open = (): Promise<HarnessHandle> => adapter.open(host.openOptions("/tmp", { PATH: "/bin" }), host.sink, host.binding);
  const start: Rig["start"] = async (prompt) => {
    const handle = await open();
    const input = host.prompt(prompt);
    await adapter.sendTurn(handle, input);
    await settle();
    return { handle, input, q: queries[0]! };
  };
  return { host, adapter, queries, open, start };
}

const init = (sessionId = "sess-1") => ({ type: "system", subtype: "init", session_id: sessionId, model: "claude-test", permissionMode: "default", slash_commands: ["compact"] });
const text = (id: string, value: string) => ({ type: "assistant", parent_tool_use_id: null, message: { id, content: [{ type: "text", text: value }] } });
const result = (uuids: string[], extra: Record<string, unknown> = {}) => ({
  type: "result",
  subtype: "success",
  is_error: false,
  result: "",
  stop_reason: "end_turn",
  terminal_reason: "completed",
  total_cost_usd: 0,
  usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  modelUsage: {},
  user_message_uuids: uuids,
  ...extra,
});
const settle = () => Bun.sleep(5);
/** Claude Code reports its session, then the result that closes the first pushed prompt. */
async function firstTurnDone(q: FakeQuery): Promise<void> {
  q.emit(init());
  q.emit(result([q.pushed[0]!.uuid!]));
  await settle();
}

describe("ClaudeAdapter turn binding (scripted query)", () => {
  test("open spawns nothing; the first sendTurn starts one query and pushes the prompt", async () => {
    const { host, adapter, queries, open } = rig();
    const handle = await open();
    expect(queries).toHaveLength(0);
    const input = host.prompt("hello");
    expect(await adapter.sendTurn(handle, input)).toEqual({ accepted: true, effective: "new_turn" });
    await settle();
    expect(queries).toHaveLength(1);
    expect(queries[0]!.options).toMatchObject({ cwd: "/tmp", env: { PATH: "/bin" }, permissionMode: "default", includePartialMessages: true, pathToClaudeCodeExecutable: "claude-under-test" });
    expect(queries[0]!.options.resume).toBeUndefined();
    expect(queries[0]!.pushed[0]?.message).toEqual({ role: "user", content: "hello" });
  });

  test("a late uuid-less result of a closed observed turn does not close the next driven turn", async () => {
    const { host, adapter, start } = rig();
    const { handle, q } = await start("one");
    await firstTurnDone(q);
    q.emit(text("msg_bg", "background"));
    await settle();
    const observed = host.events.find((e) => e.kind === "state_update" && e.payload.state === "running")!.turnId!;
    const second = host.prompt("two");
    await adapter.sendTurn(handle, second);
    await settle();
    expect(host.idles(observed).map((e) => e.payload.stopReason)).toEqual(["end_turn"]);
    q.emit(result([]));
    await settle();
    expect(host.idles(second.turnId)).toHaveLength(0);
    q.emit(result([q.pushed[1]!.uuid!]));
    await settle();
    expect(host.idles(second.turnId).map((e) => e.payload.stopReason)).toEqual(["end_turn"]);
  });

  test("a prompt for another turn while one runs is rejected and emits nothing", async () => {
    const { host, adapter, open } = rig();
    const handle = await open();
    await adapter.sendTurn(handle, host.prompt("one"));
    const before = host.events.length;
    expect(await adapter.sendTurn(handle, host.prompt("two"))).toMatchObject({ accepted: false, effective: "rejected" });
    expect(host.events.length).toBe(before);
  });

  test("non-text prompt blocks fail before acceptance", async () => {
    const { host, adapter, open } = rig();
    const handle = await open();
    const input = { ...host.prompt("x"), blocks: [{ type: "image" as const, mimeType: "image/png", data: "AA==" }] };
    const error = await adapter.sendTurn(handle, input).catch((e: unknown) => e);
    expect(isBatonError(error, "prompt_unsupported")).toBe(true);
    expect(String((error as Error).message)).toContain("image");
  });

  test("cancel interrupts with cancelQueued; the aborted result ends the turn cancelled without an error", async () => {
    const { host, adapter, start } = rig();
    const { handle, input, q } = await start("one");
    q.emit(init());
    await adapter.cancel(handle, input.turnId);
    expect(q.controls).toEqual([{ interrupt: { cancelQueued: true } }]);
    q.emit(result([q.pushed[0]!.uuid!], { subtype: "error_during_execution", is_error: true, errors: ["[ede_diagnostic] aborted"], terminal_reason: "aborted_streaming" }));
    await settle();
    expect(host.idles(input.turnId).map((e) => e.payload.stopReason)).toEqual(["cancelled"]);
    expect(host.events.some((e) => e.kind === "_baton_error_update")).toBe(false);
  });

  test("an api_retry for a status retrying cannot fix (401) fails the turn at once and interrupts; its aborted result ends it failed (#11.18)", async () => {
    const { host, start } = rig();
    const { input, q } = await start("one");
    q.emit(init());
    q.emit({ type: "system", subtype: "api_retry", attempt: 1, max_retries: 4, retry_delay_ms: 500, error_status: 401, error: "authentication_failed" });
    await settle();
    expect(q.controls).toEqual([{ interrupt: { cancelQueued: true } }]);
    expect(host.ofTurn(input.turnId).filter((e) => e.kind === "_baton_error_update").map((e) => e.payload)).toEqual([
      { message: expect.stringContaining("Claude API error 401 (authentication_failed), not retried"), code: "http_401", retryable: false },
    ]);
    expect(host.events.some((e) => e.kind === "_baton_notice")).toBe(false);
    q.emit(result([q.pushed[0]!.uuid!], { subtype: "error_during_execution", is_error: true, errors: ["aborted"], terminal_reason: "aborted_streaming" }));
    await settle();
    expect(host.idles(input.turnId).map((e) => e.payload.stopReason)).toEqual(["failed"]);
  });

  test("a 429 api_retry is a 'retrying (n/N)' notice; CLAUDE_CODE_MAX_RETRIES comes from maxRetries, else the user's, else Baton's default", async () => {
    const { host, start } = rig();
    const { input, q } = await start("one");
    q.emit(init());
    q.emit({ type: "system", subtype: "api_retry", attempt: 1, max_retries: 4, retry_delay_ms: 500, error_status: 429, error: "rate_limit" });
    await settle();
    expect(q.controls).toEqual([]);
    expect(host.ofTurn(input.turnId).find((e) => e.kind === "_baton_notice")?.payload).toMatchObject({ title: "Claude API error 429, retrying (1/4)" });
    expect(q.options.env?.["CLAUDE_CODE_MAX_RETRIES"]).toBe(String(DEFAULT_MAX_RETRIES));
    expect(maxRetriesOf(2, { CLAUDE_CODE_MAX_RETRIES: "9" })).toBe(2);
    expect(maxRetriesOf(undefined, { CLAUDE_CODE_MAX_RETRIES: "0" })).toBe(0);
    expect(maxRetriesOf(undefined, { CLAUDE_CODE_MAX_RETRIES: "lots" })).toBe(DEFAULT_MAX_RETRIES);
  });

  test("is_error with subtype success is an error and a failed terminal", async () => {
    const { host, start } = rig();
    const { input, q } = await start("one");
    q.emit(init());
    q.emit(result([q.pushed[0]!.uuid!], { is_error: true, result: "API Error: 500 boom", api_error_status: 500 }));
    await settle();
    expect(host.ofTurn(input.turnId).filter((e) => e.kind === "_baton_error_update").map((e) => e.payload)).toEqual([
      { message: "API Error: 500 boom", code: "http_500", retryable: true },
    ]);
    expect(host.idles(input.turnId).map((e) => e.payload.stopReason)).toEqual(["failed"]);
  });

  test("a query that dies fails the active turn once; the next turn restarts with resume", async () => {
    const { host, adapter, queries, open } = rig();
    const handle = await open();
    const input = host.prompt("one");
    await adapter.sendTurn(handle, input);
    await settle();
    queries[0]!.emit(init("sess-9"));
    queries[0]!.fail(new Error("Claude Code process terminated by signal SIGKILL"));
    await settle();
    expect(host.ofTurn(input.turnId).filter((e) => e.kind === "_baton_error_update")).toHaveLength(1);
    expect(host.idles(input.turnId).map((e) => e.payload.stopReason)).toEqual(["failed"]);
    await adapter.sendTurn(handle, host.prompt("two"));
    await settle();
    expect(queries).toHaveLength(2);
    expect(queries[1]!.options.resume).toBe("sess-9");
    expect(host.identities.map((i) => [i.harnessSessionId, i.fresh])).toEqual([["sess-9", true]]);
  });

  test("config set while idle is applied before the next turn; mode plan goes to the SDK", async () => {
    const { adapter, start } = rig();
    const { handle, q } = await start("one");
    await firstTurnDone(q);
    await adapter.setConfig(handle, "model", "haiku");
    await adapter.setConfig(handle, "effort", "high");
    await adapter.setConfig(handle, "mode", "plan");
    expect(q.controls).toEqual([{ setModel: "haiku" }, { applyFlagSettings: { effortLevel: "high" } }, { setPermissionMode: "plan" }]);
    const values = Object.fromEntries((await adapter.getConfig(handle)).map((o) => [o.id, o.value]));
    expect(values).toEqual({ model: "haiku", effort: "high", mode: "plan" });
    await expect(adapter.setConfig(handle, "effort", "extreme")).rejects.toThrow("unknown Claude effort");
  });

  test("an absolute executable that does not exist fails open with harness_missing", async () => {
    const adapter = new ClaudeAdapter({ settings: { executable: "/nonexistent/claude" } });
    const host = new ClaudeHost();
    const error = await adapter.open(host.openOptions("/tmp", {}), host.sink, host.binding).catch((e: unknown) => e);
    expect(isBatonError(error, "harness_missing")).toBe(true);
  });

  test("a query that fails before system/init reports a start failure (not retryable)", async () => {
    const { host, adapter, queries, open } = rig();
    const handle = await open();
    const input = host.prompt("one");
    await adapter.sendTurn(handle, input);
    await settle();
    queries[0]!.fail(new Error("spawn ENOENT"));
    await settle();
    expect(host.ofTurn(input.turnId).filter((e) => e.kind === "_baton_error_update").map((e) => e.payload)).toEqual([
      { message: "Claude Code could not start: spawn ENOENT", code: "harness_start_failed", retryable: false },
    ]);
    expect(host.ofTurn(input.turnId).filter((e) => e.kind === "_baton_run_status").map((e) => e.payload.phase)).toEqual(["starting", null]);
    expect(host.idles(input.turnId).map((e) => e.payload.stopReason)).toEqual(["failed"]);
  });

  test("close with an idle session ends the prompt stream and emits nothing", async () => {
    const { host, adapter, start } = rig();
    const { handle, q } = await start("one");
    await firstTurnDone(q);
    const before = host.events.length;
    await adapter.close(handle);
    expect(q.closed).toBe(false);
    expect(host.events.length).toBe(before);
  });
});
