/**
 * The real Claude Code (through the Agent SDK) against the project's mock Anthropic API, driving ClaudeAdapter
 * directly through a recording host. Temp HOME/CLAUDE_CONFIG_DIR per test; only 127.0.0.1 traffic.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ClaudeAdapter } from "../../src/harness/claude/adapter.ts";
import { DECLINED_MESSAGE } from "../../src/harness/claude/permissions.ts";
import { makeClaudeEnv } from "../support/claude-env.ts";
import { agentText, claudeChildren } from "../support/claude-host.ts";
import { useMockAnthropic, withClaudeRig, type ClaudeRig, type ClaudeRigOptions } from "../support/claude-rig.ts";
import { allMessageText, lastUserText, reply, toolResultsOf } from "../support/mock-anthropic/script.ts";

const mock = useMockAnthropic();

const withRig = (body: (rig: ClaudeRig) => Promise<void>, options: ClaudeRigOptions = {}): Promise<void> => withClaudeRig(mock.url, body, options);

describe("ClaudeAdapter against the real Claude Code", () => {
  test("a text turn streams chunks, the full message, usage, then idle end_turn; identity comes from system/init", async () => {
    const traced: [string, unknown][] = [];
    await withRig(async ({ env, host, adapter, handle }) => {
      await mock.script(reply.text("Hello from the mock model."));
      const input = host.prompt("say hello");
      const started = Date.now();
      expect(await adapter.sendTurn(handle, input)).toEqual({ accepted: true, effective: "new_turn" });
      const idle = await host.waitForIdle(input.turnId);
      const elapsed = Date.now() - started;
      expect(idle.payload).toMatchObject({ state: "idle", stopReason: "end_turn" });
      const kinds = host.kinds(input.turnId);
      expect(kinds).toContain("agent_message_chunk");
      expect(kinds.filter((k) => k === "state_update")).toHaveLength(1);
      expect(agentText(host, input.turnId)).toBe("Hello from the mock model.");
      const chunks = host.ofTurn(input.turnId).filter((e) => e.kind === "agent_message_chunk");
      const message = host.ofTurn(input.turnId).find((e) => e.kind === "agent_message");
      expect(chunks.every((c) => c.kind === "agent_message_chunk" && message?.kind === "agent_message" && c.payload.messageId === message.payload.messageId)).toBe(true);
      expect(host.ofTurn(input.turnId).find((e) => e.kind === "usage_update")?.payload).toMatchObject({ inputTokens: 100, outputTokens: 20 });
      expect(host.ofTurn(input.turnId).find((e) => e.kind === "context_usage_update")?.payload).toMatchObject({ contextUsed: 120, cost: { currency: "USD" } });
      const statuses = host.ofTurn(input.turnId).filter((e) => e.kind === "_baton_run_status").map((e) => e.payload);
      expect(statuses).toEqual([{ phase: "starting", title: "Starting Claude Code…" }, { phase: null }]);
      expect(host.ofTurn(input.turnId).every((e) => e.raw !== undefined || e.kind === "state_update" || e.kind === "_baton_run_status" || e.kind === "context_usage_update")).toBe(true);
      expect(host.identities).toHaveLength(1);
      const identity = host.identities[0]!;
      expect(identity.fresh).toBe(true);
      expect(identity.resumeState).toEqual({ version: 1, data: { sessionId: identity.harnessSessionId } });
      expect(fs.existsSync(env.transcriptPath(identity.harnessSessionId))).toBe(true);
      const requests = await mock.modelRequests();
      expect(requests).toHaveLength(1);
      expect(lastUserText(requests[0]!.body)).toContain("say hello");
      expect(requests[0]!.headers["x-claude-code-session-id"]).toBe(identity.harnessSessionId);
      const inbound = traced.filter(([direction]) => direction === "in").map(([, m]) => (m as { type: string }).type);
      expect(inbound).toContain("stream_event");
      expect(inbound).toContain("result");
      expect(traced.find(([direction]) => direction === "out")?.[1]).toMatchObject({ type: "user", message: { content: "say hello" } });
      console.log(`claude cold text turn: ${elapsed} ms`);
    }, { trace: (direction, message) => traced.push([direction, message]) });
  });

  test("Bash allowed through a permission card runs the command (file on disk)", async () => {
    await withRig(async ({ env, host, adapter, handle }) => {
      await mock.script(reply.tool("Bash", { command: "echo hi > hello.txt", description: "Write hello" }, { say: "Writing." }), reply.text("Wrote it."));
      host.respond = () => ({ outcome: "selected", optionId: "allow" });
      const input = host.prompt("write hello.txt");
      await adapter.sendTurn(handle, input);
      expect((await host.waitForIdle(input.turnId)).payload).toMatchObject({ stopReason: "end_turn" });
      expect(fs.readFileSync(path.join(env.cwd, "hello.txt"), "utf8")).toBe("hi\n");
      expect(host.interactions).toHaveLength(1);
      const ix = host.interactions[0]!;
      expect(ix.context.turnId).toBe(input.turnId);
      expect(ix.context.signal).toBeInstanceOf(AbortSignal);
      expect(ix.draft.type).toBe("permission");
      if (ix.draft.type !== "permission") throw new Error("not a permission");
      expect(ix.draft.title).toContain("echo hi > hello.txt");
      expect(ix.draft.options.map((o) => [o.optionId, o.polarity, o.lifetime])).toEqual([
        ["allow", "allow", "once"],
        ["allowAlways", "allow", "persistent"],
        ["deny", "reject", "once"],
      ]);
      expect(ix.draft.options[1]!.name).toContain("Bash(echo hi *)");
      const tools = host.ofTurn(input.turnId).filter((e) => e.kind === "tool_call_update");
      const toolCallId = ix.draft.toolCallId;
      expect(tools.map((t) => t.payload)).toEqual([
        expect.objectContaining({ toolCallId, kind: "execute", title: "echo hi > hello.txt", status: "in_progress" }),
        expect.objectContaining({ toolCallId, status: "completed" }),
      ]);
    });
  });

  test("Bash denied: the tool is declined, nothing runs, and the model receives the denial", async () => {
    await withRig(async ({ env, host, adapter, handle }) => {
      await mock.script(reply.tool("Bash", { command: "echo no > denied.txt" }), reply.text("Understood."));
      host.respond = () => ({ outcome: "selected", optionId: "deny" });
      const input = host.prompt("try to write");
      await adapter.sendTurn(handle, input);
      expect((await host.waitForIdle(input.turnId)).payload).toMatchObject({ stopReason: "end_turn" });
      expect(fs.existsSync(path.join(env.cwd, "denied.txt"))).toBe(false);
      const final = host.ofTurn(input.turnId).filter((e) => e.kind === "tool_call_update").at(-1);
      expect(final?.payload).toMatchObject({ status: "declined" });
      const requests = await mock.modelRequests();
      expect(requests).toHaveLength(2);
      const [result] = toolResultsOf(requests[1]!.body);
      expect(result).toMatchObject({ is_error: true });
      expect(JSON.stringify(result)).toContain(DECLINED_MESSAGE);
    });
  });

  test("AskUserQuestion becomes a question; the answer reaches the model", async () => {
    await withRig(async ({ host, adapter, handle }) => {
      const question = {
        question: "Which color do you want?",
        header: "Color",
        options: [
          { label: "Red", description: "warm" },
          { label: "Blue", description: "cool" },
        ],
        multiSelect: false,
      };
      await mock.script(reply.tool("AskUserQuestion", { questions: [question] }), reply.text("Blue it is."));
      host.respond = () => ({ outcome: "answered", answers: { q0: ["Blue"] } });
      const input = host.prompt("ask me");
      await adapter.sendTurn(handle, input);
      await host.waitForIdle(input.turnId);
      const draft = host.interactions[0]?.draft;
      expect(draft).toMatchObject({
        type: "question",
        questions: [{ questionId: "q0", header: "Color", question: "Which color do you want?", multiSelect: false, allowOther: true }],
      });
      const requests = await mock.modelRequests();
      const [result] = toolResultsOf(requests[1]!.body);
      expect(JSON.stringify(result)).toContain("Blue");
      expect(JSON.stringify(result)).toContain("Which color do you want?");
    });
  });

  test("cancel during a slow stream interrupts, ends cancelled, and the same query takes the next turn", async () => {
    await withRig(async ({ host, adapter, handle }) => {
      await mock.script(reply.text("slow ".repeat(60), { chunkSize: 5, chunkDelayMs: 100 }));
      const first = host.prompt("go slowly");
      await adapter.sendTurn(handle, first);
      await host.waitFor((e) => e.turnId === first.turnId && e.kind === "agent_message_chunk");
      const pidsBefore = claudeChildren();
      const cancelAt = Date.now();
      await adapter.cancel(handle, first.turnId);
      expect((await host.waitForIdle(first.turnId, 5_000)).payload).toMatchObject({ stopReason: "cancelled" });
      const cancelMs = Date.now() - cancelAt;
      expect(host.ofTurn(first.turnId).some((e) => e.kind === "_baton_error_update")).toBe(false);
      await mock.script(reply.text("Back again."));
      const second = host.prompt("are you there?");
      expect(await adapter.sendTurn(handle, second)).toEqual({ accepted: true, effective: "new_turn" });
      expect((await host.waitForIdle(second.turnId)).payload).toMatchObject({ stopReason: "end_turn" });
      expect(agentText(host, second.turnId)).toBe("Back again.");
      expect(host.idles(first.turnId)).toHaveLength(1);
      expect(claudeChildren()).toEqual(pidsBefore);
      expect(host.identities).toHaveLength(1);
      console.log(`claude cancel → idle(cancelled): ${cancelMs} ms`);
    });
  });

  test("a second prompt in the same turn is a steer; the turn ends once, after the steer is answered", async () => {
    await withRig(async ({ host, adapter, handle }) => {
      await mock.script(reply.text("first ".repeat(12), { chunkSize: 6, chunkDelayMs: 60 }), reply.text("Steer answered."));
      const input = host.prompt("start");
      await adapter.sendTurn(handle, input);
      await host.waitFor((e) => e.turnId === input.turnId && e.kind === "agent_message_chunk");
      const steer = { ...host.prompt("also this", input.turnId) };
      expect(await adapter.sendTurn(handle, steer)).toEqual({ accepted: true, effective: "steer" });
      expect(await adapter.sendTurn(handle, host.prompt("another turn"))).toMatchObject({ accepted: false, effective: "rejected" });
      await host.waitForIdle(input.turnId);
      await Bun.sleep(200);
      expect(host.idles(input.turnId)).toHaveLength(1);
      // the controller, not the adapter, records the steer's user_message
      expect(host.events.some((e) => e.kind === "user_message")).toBe(false);
      expect(allMessageText((await mock.modelRequests()).at(-1)!.body)).toContain("also this");
      expect(agentText(host, input.turnId)).toContain("Steer answered.");
      expect(host.events.filter((e) => e.kind === "state_update" && e.payload.state === "running")).toHaveLength(0);
    });
  });

  test("a new adapter instance resumes the session by id; the mock sees the earlier history", async () => {
    const env = makeClaudeEnv({ baseUrl: mock.url });
    try {
      let sessionId = "";
      await withRig(
        async ({ host, adapter, handle }) => {
          await mock.script(reply.text("I will remember the banana."));
          const input = host.prompt("remember: banana");
          await adapter.sendTurn(handle, input);
          await host.waitForIdle(input.turnId);
          sessionId = host.identities[0]!.harnessSessionId;
        },
        { env },
      );
      const resumeState = { version: 1, data: { sessionId } };
      await withRig(
        async ({ host, adapter, handle }) => {
          await mock.script(reply.text("You said banana."));
          const input = host.prompt("what did I say?");
          await adapter.sendTurn(handle, input);
          expect((await host.waitForIdle(input.turnId)).payload).toMatchObject({ stopReason: "end_turn" });
          expect(host.identities).toEqual([{ harnessSessionId: sessionId, resumeState, fresh: false }]);
          const last = (await mock.modelRequests()).at(-1)!;
          expect(allMessageText(last.body)).toContain("remember: banana");
          expect(allMessageText(last.body)).toContain("I will remember the banana.");
        },
        { env, resumeState },
      );
    } finally {
      env.cleanup();
    }
  });

  test("TodoWrite becomes a plan, not a tool card", async () => {
    await withRig(
      async ({ host, adapter, handle }) => {
        const todos = [
          { content: "Write the code", status: "in_progress", activeForm: "Writing the code" },
          { content: "Test it", status: "pending", activeForm: "Testing it" },
        ];
        await mock.script(reply.tool("TodoWrite", { todos }), reply.text("Planned."));
        const input = host.prompt("plan the work");
        await adapter.sendTurn(handle, input);
        await host.waitForIdle(input.turnId);
        const plans = host.ofTurn(input.turnId).filter((e) => e.kind === "plan_update");
        expect(plans.map((p) => p.payload)).toEqual([
          {
            planId: `pl_${input.turnId}`,
            entries: [
              { content: "Write the code", status: "in_progress" },
              { content: "Test it", status: "pending" },
            ],
          },
        ]);
        expect(host.ofTurn(input.turnId).some((e) => e.kind === "tool_call_update")).toBe(false);
        const [result] = toolResultsOf((await mock.modelRequests())[1]!.body);
        expect(result).not.toMatchObject({ is_error: true });
      },
      // Claude Code 2.1.332 offers TodoWrite only with the task tools off and the todo tools on.
      { extraEnv: { CLAUDE_CODE_ENABLE_TASKS: "false", CLAUDE_CODE_ENABLE_TODO_TOOLS: "1" } },
    );
  });

  test("an HTTP 401 fails the turn with the error text", async () => {
    await withRig(async ({ host, adapter, handle }) => {
      await mock.script(reply.error(401, "invalid x-api-key", "authentication_error"));
      const input = host.prompt("hello?");
      await adapter.sendTurn(handle, input);
      expect((await host.waitForIdle(input.turnId)).payload).toMatchObject({ stopReason: "failed" });
      const errors = host.ofTurn(input.turnId).filter((e) => e.kind === "_baton_error_update");
      expect(errors).toHaveLength(1);
      expect(errors[0]!.payload).toMatchObject({ code: "authentication_error" });
      expect(errors[0]!.kind === "_baton_error_update" && errors[0]!.payload.message).toContain("Invalid API key");
      expect(host.ofTurn(input.turnId).some((e) => e.kind === "agent_message")).toBe(false);
    });
  });

  test("kill -9 of Claude Code mid-turn: one error and one idle(failed) within 2 s; the next turn resumes", async () => {
    await withRig(async ({ host, adapter, handle }) => {
      await mock.script(reply.text("doomed ".repeat(60), { chunkSize: 7, chunkDelayMs: 100 }));
      const first = host.prompt("remember: kiwi");
      await adapter.sendTurn(handle, first);
      await host.waitFor((e) => e.turnId === first.turnId && e.kind === "agent_message_chunk");
      const pids = claudeChildren();
      expect(pids).toHaveLength(1);
      const killedAt = Date.now();
      process.kill(pids[0]!, "SIGKILL");
      const idle = await host.waitForIdle(first.turnId, 2_000);
      const deathMs = Date.now() - killedAt;
      expect(idle.payload).toMatchObject({ stopReason: "failed" });
      await Bun.sleep(300);
      expect(host.ofTurn(first.turnId).filter((e) => e.kind === "_baton_error_update")).toHaveLength(1);
      expect(host.idles(first.turnId)).toHaveLength(1);

      await mock.script(reply.text("Still here."));
      const second = host.prompt("what fruit?");
      await adapter.sendTurn(handle, second);
      expect((await host.waitForIdle(second.turnId)).payload).toMatchObject({ stopReason: "end_turn" });
      expect(host.identities).toHaveLength(1);
      const last = (await mock.modelRequests()).at(-1)!;
      expect(last.headers["x-claude-code-session-id"]).toBe(host.identities[0]!.harnessSessionId);
      expect(allMessageText(last.body)).toContain("remember: kiwi");
      console.log(`claude kill -9 → idle(failed): ${deathMs} ms`);
    });
  });

  test("textgen returns structured output and writes no session file", async () => {
    const env = makeClaudeEnv({ baseUrl: mock.url });
    try {
      await mock.script({ ...reply.tool("StructuredOutput", { title: "Fix the login bug" }), match: { hasTool: "StructuredOutput" } });
      const adapter = new ClaudeAdapter({ env: env.env });
      const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
      const output = await adapter.generateStructured({ prompt: "Title for: the login is broken", schema, cwd: env.cwd });
      expect(output).toEqual({ title: "Fix the login bug" });
      expect(env.transcripts()).toEqual([]);
      const request = (await mock.modelRequests())[0]!;
      expect((request.body as { model?: string }).model).toContain("haiku");
      expect(lastUserText(request.body)).toContain("Title for: the login is broken");
    } finally {
      env.cleanup();
    }
  });
});
