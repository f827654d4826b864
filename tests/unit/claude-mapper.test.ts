/** SDK message → draft mapping (CLA-05), fed with message shapes recorded from Claude Code 2.1.332. */
import { describe, expect, test } from "bun:test";
import type { SDKAssistantMessage, SDKMessage, SDKPartialAssistantMessage, SDKResultMessage, SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { ClaudeMapper, TASK_PLAN_ID } from "../../src/harness/claude/mapper.ts";
import type { AdapterDraft } from "../../src/event/envelope.ts";
import type { TurnId } from "../../src/shared/ids.ts";

const TURN = "t_00000000000000000000000001" as TurnId;
const CWD = "/work/proj";

const stream = (event: Record<string, unknown>, parent: string | null = null) =>
  ({ type: "stream_event", event, parent_tool_use_id: parent, uuid: "u", session_id: "s" }) as unknown as SDKPartialAssistantMessage;
const assistant = (id: string, block: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ type: "assistant", message: { id, content: [block] }, parent_tool_use_id: null, uuid: "u", session_id: "s", ...extra }) as unknown as SDKAssistantMessage;
const toolResult = (toolUseId: string, content: unknown, extra: Record<string, unknown> = {}, isError = false) =>
  ({
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolUseId, content, is_error: isError }] },
    parent_tool_use_id: null,
    ...extra,
  }) as unknown as SDKUserMessage;
const payloads = (drafts: AdapterDraft[]) => drafts.map((d) => [d.kind, d.payload]);

function streamMessage(mapper: ClaudeMapper, id: string, blocks: { type: string; text?: string }[]): AdapterDraft[] {
  const out: AdapterDraft[] = [];
  out.push(...mapper.stream(stream({ type: "message_start", message: { id, usage: { input_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 } } }), TURN));
  blocks.forEach((block, index) => {
    out.push(...mapper.stream(stream({ type: "content_block_start", index, content_block: { type: block.type } }), TURN));
    if (block.type === "text") out.push(...mapper.stream(stream({ type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } }), TURN));
    if (block.type === "thinking") out.push(...mapper.stream(stream({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: block.text } }), TURN));
    const full = block.type === "thinking" ? { type: "thinking", thinking: block.text } : block.type === "text" ? { type: "text", text: block.text } : { type: "tool_use", id: `toolu_${index}`, name: "Bash", input: { command: "ls" } };
    out.push(...mapper.assistant(assistant(id, full), TURN));
  });
  out.push(...mapper.stream(stream({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } }), TURN));
  return out;
}

describe("ClaudeMapper", () => {
  test("chunks and the full message share an id; thinking uses <id>_thought; a second text block gets its index", () => {
    const mapper = new ClaudeMapper(CWD);
    const drafts = streamMessage(mapper, "msg_1", [
      { type: "thinking", text: "hmm" },
      { type: "text", text: "Hello" },
      { type: "tool_use" },
      { type: "text", text: "Again" },
    ]);
    expect(payloads(drafts.filter((d) => d.kind !== "tool_call_update"))).toEqual([
      ["agent_thought_chunk", { messageId: "msg_1_thought", content: { type: "text", text: "hmm" } }],
      ["agent_thought", { messageId: "msg_1_thought", content: [{ type: "text", text: "hmm" }] }],
      ["agent_message_chunk", { messageId: "msg_1", content: { type: "text", text: "Hello" } }],
      ["agent_message", { messageId: "msg_1", content: [{ type: "text", text: "Hello" }] }],
      ["agent_message_chunk", { messageId: "msg_1_3", content: { type: "text", text: "Again" } }],
      ["agent_message", { messageId: "msg_1_3", content: [{ type: "text", text: "Again" }] }],
    ]);
    expect(drafts.every((d) => d.turnId === TURN && d.raw !== undefined)).toBe(true);
  });

  test("sub-agent stream events and text are not shown as the main agent's; API-error assistant messages are skipped", () => {
    const mapper = new ClaudeMapper(CWD);
    expect(mapper.stream(stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x" } }, "toolu_parent"), TURN)).toEqual([]);
    expect(mapper.assistant(assistant("m", { type: "text", text: "sub" }, { parent_tool_use_id: "toolu_parent" }), TURN)).toEqual([]);
    expect(mapper.assistant(assistant("m2", { type: "text", text: "Invalid API key" }, { error: "authentication_failed" }), TURN)).toEqual([]);
  });

  test("Bash tool_use → execute card titled with the command; its result completes it with output", () => {
    const mapper = new ClaudeMapper(CWD);
    const use = mapper.assistant(assistant("m", { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo hi" } }), TURN);
    expect(payloads(use)).toEqual([["tool_call_update", { toolCallId: "toolu_1", title: "echo hi", kind: "execute", status: "in_progress", rawInput: { command: "echo hi" } }]]);
    const done = mapper.user(toolResult("toolu_1", "hi", { tool_use_result: { stdout: "hi" } }), TURN);
    expect(payloads(done)).toEqual([["tool_call_update", { toolCallId: "toolu_1", status: "completed", content: [{ type: "text", text: "hi" }], rawOutput: { stdout: "hi" } }]]);
  });

  test("a denied tool is declined (from our own denial or the SDK's permission_decision)", () => {
    const mapper = new ClaudeMapper(CWD);
    mapper.assistant(assistant("m", { type: "tool_use", id: "a", name: "Bash", input: { command: "x" } }), TURN);
    mapper.assistant(assistant("m", { type: "tool_use", id: "b", name: "Bash", input: { command: "y" } }), TURN);
    mapper.markDeclined("a");
    expect(mapper.user(toolResult("a", "Denied", {}, true), TURN)[0]?.payload).toMatchObject({ status: "declined" });
    const meta = { tool_result_meta: [{ id: "b", permission_decision: { decision: "reject", source: "user_reject" } }] };
    expect(mapper.user(toolResult("b", "Denied", meta, true), TURN)[0]?.payload).toMatchObject({ status: "declined" });
    mapper.assistant(assistant("m", { type: "tool_use", id: "c", name: "Bash", input: { command: "z" } }), TURN);
    expect(mapper.user(toolResult("c", "exit 1", {}, true), TURN)[0]?.payload).toMatchObject({ status: "failed" });
  });

  test("Write/Edit: an intent diff on tool_use, the real unified patch from the structured patch on result", () => {
    const mapper = new ClaudeMapper(CWD);
    const write = mapper.assistant(assistant("m", { type: "tool_use", id: "w", name: "Write", input: { file_path: "/work/proj/a.txt", content: "one\ntwo\n" } }), TURN);
    expect(write[0]?.payload).toMatchObject({
      kind: "edit",
      title: "Write a.txt",
      // #11.9: the new content as additions, before the tool runs
      content: [{ type: "diff", changes: [{ operation: "add", path: "/work/proj/a.txt" }], patch: "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n" }],
    });
    const created = mapper.user(toolResult("w", "File created", { tool_use_result: { type: "create", filePath: "/work/proj/a.txt", content: "one\ntwo\n", structuredPatch: [] } }), TURN);
    expect(created[0]?.payload).toMatchObject({
      status: "completed",
      content: [{ type: "diff", changes: [{ operation: "add", path: "/work/proj/a.txt" }], patch: "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n" }],
    });
    const edit = mapper.assistant(assistant("m", { type: "tool_use", id: "e", name: "Edit", input: { file_path: "/work/proj/a.txt", old_string: "two", new_string: "2" } }), TURN);
    expect(edit[0]?.payload).toMatchObject({ content: [{ type: "diff", changes: [{ operation: "modify" }], patch: "--- a/a.txt\n+++ b/a.txt\n@@ @@\n-two\n+2\n" }] });
    const hunk = { oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [" one", "-two", "+2"] };
    const edited = mapper.user(toolResult("e", "ok", { tool_use_result: { filePath: "/work/proj/a.txt", structuredPatch: [hunk] } }), TURN);
    expect(edited[0]?.payload).toMatchObject({ content: [{ type: "diff", changes: [{ operation: "modify" }], patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n" }] });
  });

  test("a long Write shows its first 400 lines and says how many more there are", () => {
    const mapper = new ClaudeMapper(CWD);
    const content = Array.from({ length: 450 }, (_, i) => `line ${i}`).join("\n");
    const write = mapper.assistant(assistant("m", { type: "tool_use", id: "w", name: "Write", input: { file_path: "/work/proj/big.txt", content } }), TURN);
    const patch = String((write[0]?.payload as { content: { patch: string }[] }).content[0]?.patch);
    expect(patch.split("\n").filter((l) => l.startsWith("+line"))).toHaveLength(400);
    expect(patch).toEndWith("\\ … 50 more lines not shown\n");
  });

  test("TodoWrite becomes a plan for the turn and never a tool card", () => {
    const mapper = new ClaudeMapper(CWD);
    const todos = [{ content: "A", status: "completed", activeForm: "Doing A" }, { content: "B", status: "pending", activeForm: "Doing B" }];
    const drafts = mapper.assistant(assistant("m", { type: "tool_use", id: "t", name: "TodoWrite", input: { todos } }), TURN);
    expect(payloads(drafts)).toEqual([["plan_update", { planId: `pl_${TURN}`, entries: [{ content: "A", status: "completed" }, { content: "B", status: "pending" }] }]]);
    expect(mapper.user(toolResult("t", "Todos have been modified"), TURN)).toEqual([]);
  });

  test("TaskCreate/TaskUpdate settle into one cross-turn task plan; a failed one shows a failed card", () => {
    const mapper = new ClaudeMapper(CWD);
    expect(mapper.assistant(assistant("m", { type: "tool_use", id: "c1", name: "TaskCreate", input: { subject: "Write tests", description: "" } }), TURN)).toEqual([]);
    const created = mapper.user(toolResult("c1", "Task #1 created", { tool_use_result: { task: { id: "1", subject: "Write tests" } } }), TURN);
    expect(payloads(created)).toEqual([["plan_update", { planId: TASK_PLAN_ID, entries: [{ content: "Write tests", status: "pending" }] }]]);
    mapper.assistant(assistant("m", { type: "tool_use", id: "u1", name: "TaskUpdate", input: { taskId: "1", status: "in_progress" } }), TURN);
    expect(mapper.user(toolResult("u1", "Updated"), TURN)[0]?.payload).toEqual({ planId: TASK_PLAN_ID, entries: [{ content: "Write tests", status: "in_progress" }] });
    mapper.assistant(assistant("m", { type: "tool_use", id: "u2", name: "TaskUpdate", input: { taskId: "9", status: "completed" } }), TURN);
    expect(mapper.user(toolResult("u2", "No such task", {}, true), TURN)[0]?.payload).toMatchObject({ toolCallId: "u2", status: "failed" });
  });

  test("ExitPlanMode captures the plan once as a proposed plan", () => {
    const mapper = new ClaudeMapper(CWD);
    const block = { type: "tool_use", id: "p1", name: "ExitPlanMode", input: { plan: "1. do it" } };
    const first = mapper.assistant(assistant("m", block), TURN);
    expect(first[0]).toMatchObject({ kind: "proposed_plan", payload: { planId: "pl_p1", content: "1. do it" } });
    expect(mapper.planOf("p1")).toBe("1. do it");
    expect(mapper.assistant(assistant("m2", block), TURN).some((d) => d.kind === "proposed_plan")).toBe(false);
  });

  test("system task messages become task updates; compacting status sets and clears the run phase", () => {
    const mapper = new ClaudeMapper(CWD);
    const started = { type: "system", subtype: "task_started", task_id: "b1", description: "bg", task_type: "local_bash", uuid: "u", session_id: "s" };
    const done = { type: "system", subtype: "task_notification", task_id: "b1", status: "completed", summary: "ok", output_file: "", uuid: "u", session_id: "s" };
    expect(payloads(mapper.system(started as unknown as Extract<SDKMessage, { type: "system" }>, TURN))).toEqual([["task_update", { taskId: "b1", status: "in_progress", title: "bg", taskType: "local_bash" }]]);
    expect(payloads(mapper.system(done as unknown as Extract<SDKMessage, { type: "system" }>, undefined))).toEqual([["task_update", { taskId: "b1", status: "completed", summary: "ok" }]]);
    const status = (value: string | null) => ({ type: "system", subtype: "status", status: value, uuid: "u", session_id: "s" }) as unknown as Extract<SDKMessage, { type: "system" }>;
    expect(payloads(mapper.system(status("compacting"), TURN))).toEqual([["_baton_run_status", { phase: "compacting", title: "Compacting conversation…" }]]);
    expect(payloads(mapper.system(status(null), TURN))).toEqual([["_baton_run_status", { phase: null }]]);
    expect(mapper.system(status("requesting"), TURN)).toEqual([]);
  });

  test("result → usage delta and a context snapshot from the last API call", () => {
    const mapper = new ClaudeMapper(CWD);
    streamMessage(mapper, "msg_u", [{ type: "text", text: "x" }]);
    const result = {
      type: "result",
      subtype: "success",
      is_error: false,
      usage: { input_tokens: 200, output_tokens: 40, cache_read_input_tokens: 5, cache_creation_input_tokens: 1, output_tokens_details: { thinking_tokens: 3 } },
      modelUsage: {
        "claude-haiku": { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, contextWindow: 200_000, costUSD: 0 },
        "claude-opus": { inputTokens: 300, outputTokens: 60, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, contextWindow: 1_000_000, costUSD: 0.5 },
      },
      total_cost_usd: 0.5,
    } as unknown as SDKResultMessage;
    expect(payloads(mapper.usage(result, TURN, "claude-opus"))).toEqual([
      ["usage_update", { inputTokens: 200, outputTokens: 40, cacheReadTokens: 5, cacheWriteTokens: 1, reasoningTokens: 3 }],
      ["context_usage_update", { model: "claude-opus", contextUsed: 22, contextSize: 1_000_000, cost: { amount: 0.5, currency: "USD" } }],
    ]);
  });
});
