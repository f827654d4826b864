/**
 * More flows of ClaudeAdapter against the real Claude Code and the mock API: plan mode and ExitPlanMode, config
 * between turns, /compact, observed turns, a vanished session, cancel while a permission is pending, close.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ClaudeAdapter } from "../../src/harness/claude/adapter.ts";
import { KEEP_PLANNING_MESSAGE, PLAN_MODE_MESSAGE } from "../../src/harness/claude/permissions.ts";
import type { HarnessHandle } from "../../src/harness/contract.ts";
import { isBatonError } from "../../src/shared/errors.ts";
import { makeClaudeEnv } from "../support/claude-env.ts";
import { agentText, ClaudeHost, claudeChildren } from "../support/claude-host.ts";
import { useMockAnthropic, withClaudeRig, type ClaudeRig, type ClaudeRigOptions } from "../support/claude-rig.ts";
import { allMessageText, lastUserText, reply, toolResultsOf } from "../support/mock-anthropic/script.ts";

const mock = useMockAnthropic();

const withRig = (body: (rig: ClaudeRig) => Promise<void>, options: ClaudeRigOptions = {}): Promise<void> => withClaudeRig(mock.url, body, options);

const modeOf = async (adapter: ClaudeAdapter, handle: HarnessHandle): Promise<unknown> =>
  (await adapter.getConfig(handle)).find((o) => o.id === "mode")?.value;

describe("ClaudeAdapter flows against the real Claude Code", () => {
  test("plan mode: Baton declines Write itself; ExitPlanMode yields a proposed plan and an implement card", async () => {
    await withRig(async ({ env, host, adapter, handle }) => {
      await adapter.setConfig(handle, "mode", "plan");
      const file = path.join(env.cwd, "plan.txt");
      await mock.script(
        reply.tool("Write", { file_path: file, content: "x\n" }),
        reply.tool("ExitPlanMode", { plan: "1. Write plan.txt\n2. Done" }),
        reply.text("Implementing."),
      );
      host.respond = () => ({ outcome: "selected", optionId: "implement" });
      const input = host.prompt("plan something");
      await adapter.sendTurn(handle, input);
      expect((await host.waitForIdle(input.turnId)).payload).toMatchObject({ stopReason: "end_turn" });
      expect(fs.existsSync(file)).toBe(false);
      const requests = await mock.modelRequests();
      expect(JSON.stringify(toolResultsOf(requests[1]!.body))).toContain(PLAN_MODE_MESSAGE);
      expect(host.interactions).toHaveLength(1);
      expect(host.interactions[0]!.draft).toMatchObject({ type: "permission", description: "1. Write plan.txt\n2. Done" });
      const plan = host.ofTurn(input.turnId).find((e) => e.kind === "proposed_plan");
      expect(plan?.payload).toMatchObject({ content: "1. Write plan.txt\n2. Done" });
      const write = host.ofTurn(input.turnId).filter((e) => e.kind === "tool_call_update").find((e) => e.payload.status === "declined");
      expect(write?.payload).toMatchObject({ status: "declined" });
      expect(await modeOf(adapter, handle)).toBe("default");
    });
  });

  test("ExitPlanMode answered 'keep planning' is denied with a stop-and-wait message; plan mode stays", async () => {
    await withRig(async ({ host, adapter, handle }) => {
      await adapter.setConfig(handle, "mode", "plan");
      await mock.script(reply.tool("ExitPlanMode", { plan: "Do it all" }), reply.text("Waiting for you."));
      host.respond = () => ({ outcome: "selected", optionId: "keep_planning" });
      const input = host.prompt("plan");
      await adapter.sendTurn(handle, input);
      await host.waitForIdle(input.turnId);
      const [result] = toolResultsOf((await mock.modelRequests())[1]!.body);
      expect(JSON.stringify(result)).toContain(KEEP_PLANNING_MESSAGE);
      expect(await modeOf(adapter, handle)).toBe("plan");
    });
  });

  test("a model change applies to the next turn, not the current one", async () => {
    await withRig(async ({ host, adapter, handle }) => {
      await mock.script(reply.text("slow ".repeat(8), { chunkSize: 5, chunkDelayMs: 60 }), reply.text("Now on haiku."));
      const first = host.prompt("one");
      await adapter.sendTurn(handle, first);
      await host.waitFor((e) => e.turnId === first.turnId && e.kind === "agent_message_chunk");
      await adapter.setConfig(handle, "model", "claude-haiku-4-5");
      await host.waitForIdle(first.turnId);
      const second = host.prompt("two");
      await adapter.sendTurn(handle, second);
      await host.waitForIdle(second.turnId);
      const models = (await mock.modelRequests()).map((r) => (r.body as { model?: string }).model);
      expect(models[0]).not.toContain("haiku");
      expect(models[1]).toBe("claude-haiku-4-5");
      expect((await adapter.getConfig(handle)).find((o) => o.id === "model")?.value).toBe("claude-haiku-4-5");
      expect(host.events.some((e) => e.kind === "config_option_update")).toBe(true);
    });
  });

  test("/compact is a control turn on an existing conversation, refused before one exists", async () => {
    await withRig(async ({ host, adapter, handle }) => {
      const early = host.ids.mint("turn");
      await expect(adapter.compactContext(handle, early)).rejects.toThrow("Claude has no conversation to compact yet");
      await mock.script(reply.text("First answer."), reply.text("<summary>We talked once.</summary>"));
      const first = host.prompt("hello");
      await adapter.sendTurn(handle, first);
      await host.waitForIdle(first.turnId);
      const control = host.ids.mint("turn");
      expect(await adapter.compactContext(handle, control)).toEqual({ accepted: true, effective: "new_turn" });
      expect((await host.waitForIdle(control)).payload).toMatchObject({ stopReason: "end_turn" });
      expect(host.ofTurn(control).filter((e) => e.kind === "_baton_run_status").map((e) => e.payload.phase)).toEqual(["compacting", null]);
      const last = (await mock.modelRequests()).at(-1)!;
      expect(lastUserText(last.body)).toContain("Do NOT call any tools");
    });
  });

  test("a background task finishing after the turn yields an observed turn with its own id", async () => {
    await withRig(async ({ env, host, adapter, handle }) => {
      await mock.script(
        reply.tool("Bash", { command: "sleep 0.5; echo done > bg.txt", run_in_background: true, description: "bg" }),
        reply.text("Started."),
        reply.text("The background job finished."),
      );
      host.respond = () => ({ outcome: "selected", optionId: "allow" });
      const input = host.prompt("run it in the background");
      await adapter.sendTurn(handle, input);
      await host.waitForIdle(input.turnId);
      const running = await host.waitFor((e) => e.kind === "state_update" && e.payload.state === "running", 10_000);
      const observed = running.turnId!;
      expect(observed).not.toBe(input.turnId);
      expect(observed.startsWith("t_")).toBe(true);
      expect((await host.waitForIdle(observed, 10_000)).payload).toMatchObject({ stopReason: "end_turn" });
      expect(agentText(host, observed)).toBe("The background job finished.");
      expect(fs.readFileSync(path.join(env.cwd, "bg.txt"), "utf8")).toBe("done\n");
      expect(host.events.some((e) => e.kind === "task_update" && e.payload.status === "completed")).toBe(true);
      await mock.script(reply.text("Next."));
      const next = host.prompt("next");
      expect(await adapter.sendTurn(handle, next)).toEqual({ accepted: true, effective: "new_turn" });
      await host.waitForIdle(next.turnId);
    });
  });

  test("resuming a session that no longer exists starts a fresh one and publishes it as fresh", async () => {
    const gone = "0b5c2c44-1111-4222-8333-944445555666";
    await withRig(
      async ({ host, adapter, handle }) => {
        await mock.script(reply.text("A fresh start."));
        const input = host.prompt("hello again");
        await adapter.sendTurn(handle, input);
        expect((await host.waitForIdle(input.turnId)).payload).toMatchObject({ stopReason: "end_turn" });
        expect(host.identities).toHaveLength(1);
        expect(host.identities[0]).toMatchObject({ fresh: true });
        expect(host.identities[0]!.harnessSessionId).not.toBe(gone);
        expect(lastUserText((await mock.modelRequests())[0]!.body)).toContain("hello again");
      },
      { resumeState: { version: 1, data: { sessionId: gone } } },
    );
  });

  test("cancel while a permission is pending withdraws the card and ends the turn cancelled", async () => {
    await withRig(async ({ env, host, adapter, handle }) => {
      await mock.script(reply.tool("Bash", { command: "echo x > pending.txt" }));
      host.respond = () => new Promise(() => undefined);
      const input = host.prompt("do it");
      await adapter.sendTurn(handle, input);
      const ix = await host.waitForInteraction();
      await adapter.cancel(handle, input.turnId);
      expect((await host.waitForIdle(input.turnId, 5_000)).payload).toMatchObject({ stopReason: "cancelled" });
      await Bun.sleep(50);
      expect(ix.context.signal?.aborted).toBe(true);
      expect(ix.resolution).toEqual({ outcome: "cancelled", reason: "requester" });
      expect(fs.existsSync(path.join(env.cwd, "pending.txt"))).toBe(false);
    });
  });

  test("close during a turn synthesizes idle(cancelled) and a later sendTurn is rejected", async () => {
    const env = makeClaudeEnv({ baseUrl: mock.url });
    const host = new ClaudeHost();
    const adapter = new ClaudeAdapter({ env: env.env });
    const handle = await adapter.open(host.openOptions(env.cwd, env.env), host.sink, host.binding);
    try {
      await mock.script(reply.text("slow ".repeat(40), { chunkSize: 5, chunkDelayMs: 100 }));
      const input = host.prompt("long one");
      await adapter.sendTurn(handle, input);
      await host.waitFor((e) => e.turnId === input.turnId && e.kind === "agent_message_chunk");
      await adapter.close(handle);
      expect(host.idles(input.turnId).map((e) => e.payload)).toEqual([{ state: "idle", stopReason: "cancelled" }]);
      const after = await adapter.sendTurn(handle, host.prompt("after close")).catch((error: unknown) => error);
      expect(isBatonError(after, "contract_violation")).toBe(true);
      const deadline = Date.now() + 5_000;
      while (claudeChildren().length > 0 && Date.now() < deadline) await Bun.sleep(50);
      expect(claudeChildren()).toEqual([]);
      expect(host.idles(input.turnId)).toHaveLength(1);
      expect(allMessageText((await mock.modelRequests())[0]!.body)).toContain("long one");
    } finally {
      env.cleanup();
    }
  });
});
