/**
 * The ACP adapter against real agents (claude-agent-acp 0.49, codex-acp 2.6) and the mock model servers, offline:
 * text and usage, permissions allowed and denied (the file on disk tells), cancel mid-stream and during a pending
 * permission, resume in a new process, load with its replay kept out of the ledger, and a lost agent session.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { AcpAdapter } from "../../src/harness/acp/adapter.ts";
import type { ResumeState } from "../../src/harness/contract.ts";
import { makeClaudeAcpWorld, makeCodexAcpWorld, spawnEditingAnswers, spawnEditingInitialize, spawnEditingLines, type AcpWorld } from "../support/acp-rig.ts";
import { INVALID_UTF8_FIELD } from "../../src/shared/jsonl.ts";
import { ClaudeHost, agentText } from "../support/claude-host.ts";
import { reply } from "../support/mock-anthropic/script.ts";
import { mockModelServers } from "../support/mock-servers.ts";

const mocks = mockModelServers();

const worlds: Record<string, () => Promise<AcpWorld>> = {
  "claude-agent-acp": async () => {
    await mocks.anthropic.reset();
    return makeClaudeAcpWorld(mocks.anthropic);
  },
  "codex-acp": async () => {
    await mocks.responses.reset();
    return makeCodexAcpWorld(mocks.responses);
  },
};

type Traced = { direction: "in" | "out"; message: Record<string, unknown> }[];

async function withAgent(
  world: AcpWorld,
  body: (ctx: { host: ClaudeHost; adapter: AcpAdapter; handle: Awaited<ReturnType<AcpAdapter["open"]>>; wire: Traced }) => Promise<void>,
  options: { adapter?: AcpAdapter; resumeState?: ResumeState; wire?: Traced } = {},
): Promise<ClaudeHost> {
  const host = new ClaudeHost();
  const wire: Traced = options.wire ?? [];
  const adapter = options.adapter ?? world.adapter({ trace: (direction, message) => wire.push({ direction, message: message as Record<string, unknown> }) });
  const handle = await adapter.open(
    { ...host.openOptions(world.cwd, world.env, options.resumeState ? { resumeState: options.resumeState } : {}), targetId: world.targetId },
    host.sink,
    host.binding,
  );
  try {
    await body({ host, adapter, handle, wire });
  } finally {
    await adapter.close(handle);
  }
  return host;
}

const allowOnce = (host: ClaudeHost) => {
  host.respond = (draft) => ({ outcome: "selected", optionId: draft.type === "permission" ? (draft.options.find((o) => o.polarity === "allow" && o.lifetime === "once")?.optionId ?? "") : "" });
};
const rejectOnce = (host: ClaudeHost) => {
  host.respond = (draft) => ({ outcome: "selected", optionId: draft.type === "permission" ? (draft.options.find((o) => o.polarity === "reject")?.optionId ?? "") : "" });
};
const methods = (wire: Traced) => wire.filter((w) => w.direction === "out" && typeof w.message["method"] === "string").map((w) => String(w.message["method"]));

describe.each(Object.keys(worlds))("ACP adapter with %s", (name) => {
  const make = worlds[name] as () => Promise<AcpWorld>;

  test("a text turn: streamed chunks become one agent message; the prompt result's usage is recorded", async () => {
    const world = await make();
    try {
      await withAgent(world, async ({ host, adapter, handle }) => {
        await world.scriptText("a streamed reply");
        const turn = host.prompt("hello");
        expect(await adapter.sendTurn(handle, turn)).toEqual({ accepted: true, effective: "new_turn" });
        expect((await host.waitForIdle(turn.turnId)).payload).toEqual({ state: "idle", stopReason: "end_turn" });
        expect(agentText(host, turn.turnId)).toBe("a streamed reply");
        const chunks = host.ofTurn(turn.turnId).filter((e) => e.kind === "agent_message_chunk");
        expect(chunks.length).toBeGreaterThan(1);
        const usage = host.ofTurn(turn.turnId).filter((e) => e.kind === "usage_update");
        expect(usage.length).toBe(1);
        expect((usage[0]?.payload as { outputTokens: number }).outputTokens).toBe(20);
        expect(host.ofTurn(turn.turnId).some((e) => e.kind === "context_usage_update")).toBe(true);
        // the session's model / effort / mode as the agent offers them
        const config = host.events.find((e) => e.kind === "config_option_update");
        expect((config?.payload as { options: { id: string }[] }).options.map((o) => o.id)).toContain("model");
      });
    } finally {
      world.cleanup();
    }
  }, 60_000);

  test("invalid UTF-8 from the agent (its é rewritten to Latin-1 on the wire): the chunk reads U+FFFD and its raw keeps the line's bytes", async () => {
    const world = await make();
    const latin1 = (line: Buffer) => (line.includes("agent_message_chunk") ? Buffer.from(line.toString("latin1").replaceAll("\u00c3\u00a9", "\u00e9"), "latin1") : line);
    try {
      const adapter = world.adapter({ spawn: spawnEditingLines(latin1) });
      await withAgent(
        world,
        async ({ host, handle }) => {
          await world.scriptText("un café au lait");
          const turn = host.prompt("hello");
          await adapter.sendTurn(handle, turn);
          expect((await host.waitForIdle(turn.turnId)).payload).toMatchObject({ state: "idle", stopReason: "end_turn" });
          expect(agentText(host, turn.turnId)).toBe("un caf\uFFFD au lait");
          const marked = host.ofTurn(turn.turnId).filter((e) => e.kind === "agent_message_chunk" && JSON.stringify(e.payload).includes("\uFFFD"));
          expect(marked.length).toBe(1);
          const mark = (marked[0] as { raw?: Record<string, unknown> }).raw?.[INVALID_UTF8_FIELD] as { bytes: number; base64: string } | undefined;
          const bytes = Buffer.from(mark?.base64 ?? "", "base64");
          expect(mark?.bytes).toBe(bytes.byteLength);
          expect(bytes.includes(0xe9)).toBe(true);
        },
        { adapter },
      );
    } finally {
      world.cleanup();
    }
  }, 60_000);

  test("permission allowed: the agent's own options by kind, the file is written, the tool call completes", async () => {
    const world = await make();
    try {
      await withAgent(world, async ({ host, adapter, handle }) => {
        allowOnce(host);
        await world.scriptPermission("allowed.txt", "written");
        const turn = host.prompt("write it");
        await adapter.sendTurn(handle, turn);
        expect((await host.waitForIdle(turn.turnId, 40_000)).payload).toMatchObject({ stopReason: "end_turn" });
        expect(host.interactions.length).toBe(1);
        const draft = host.interactions[0]!.draft;
        expect(draft.type === "permission" && draft.options.map((o) => `${o.polarity}/${o.lifetime}`).sort()).toEqual(["allow/once", "allow/persistent", "reject/once"]);
        expect(existsSync(path.join(world.cwd, "allowed.txt"))).toBe(true);
        const tool = host.ofTurn(turn.turnId).filter((e) => e.kind === "tool_call_update").at(-1);
        expect((tool?.payload as { status?: string }).status).toBe("completed");
      });
    } finally {
      world.cleanup();
    }
  }, 60_000);

  test("permission denied: no file; exactly one terminal", async () => {
    const world = await make();
    try {
      await withAgent(world, async ({ host, adapter, handle }) => {
        rejectOnce(host);
        await world.scriptPermission("denied.txt", "not written");
        const turn = host.prompt("write it");
        await adapter.sendTurn(handle, turn);
        const idle = await host.waitForIdle(turn.turnId, 40_000);
        // claude-agent-acp goes on after a refusal (end_turn); codex-acp ends the turn (cancelled): both are the agent's word
        expect(["end_turn", "cancelled"]).toContain((idle.payload as { stopReason: string }).stopReason);
        await Bun.sleep(300);
        expect(host.idles(turn.turnId).length).toBe(1);
        expect(existsSync(path.join(world.cwd, "denied.txt"))).toBe(false);
      });
    } finally {
      world.cleanup();
    }
  }, 60_000);

  test("cancel mid-stream: the turn ends cancelled and the next turn works", async () => {
    const world = await make();
    try {
      await withAgent(world, async ({ host, adapter, handle }) => {
        await world.scriptSlow();
        const slow = host.prompt("go slowly");
        await adapter.sendTurn(handle, slow);
        await host.waitFor((e) => e.turnId === slow.turnId && e.kind === "agent_message_chunk", 30_000);
        await adapter.cancel(handle, slow.turnId);
        expect((await host.waitForIdle(slow.turnId)).payload).toMatchObject({ stopReason: "cancelled" });
        await world.resetMock();
        await world.scriptText("back to normal");
        const next = host.prompt("and now?");
        expect(await adapter.sendTurn(handle, next)).toEqual({ accepted: true, effective: "new_turn" });
        expect((await host.waitForIdle(next.turnId, 30_000)).payload).toMatchObject({ stopReason: "end_turn" });
        expect(agentText(host, next.turnId)).toBe("back to normal");
        expect(agentText(host, slow.turnId)).not.toContain("back to normal");
      });
    } finally {
      world.cleanup();
    }
  }, 60_000);

  test("resume in a new process: session/resume continues the session and the model sees the earlier turn", async () => {
    const world = await make();
    try {
      let resumeState: ResumeState | undefined;
      const first = await withAgent(world, async ({ host, adapter, handle }) => {
        await world.scriptText("noted: kiwi");
        const turn = host.prompt("remember the word kiwi");
        await adapter.sendTurn(handle, turn);
        await host.waitForIdle(turn.turnId, 30_000);
        resumeState = host.identities.at(-1)?.resumeState;
      });
      const wire: Traced = [];
      const second = await withAgent(
        world,
        async ({ host, adapter, handle }) => {
          await world.resetMock();
          await world.scriptText("kiwi it was");
          const turn = host.prompt("which word?");
          await adapter.sendTurn(handle, turn);
          await host.waitForIdle(turn.turnId, 30_000);
          expect((await world.modelTexts()).at(-1)).toContain("remember the word kiwi");
        },
        { resumeState: resumeState!, wire },
      );
      expect(methods(wire)).toContain("session/resume");
      expect(methods(wire)).not.toContain("session/load");
      expect(methods(wire)).not.toContain("session/new");
      expect(second.identities.at(-1)).toMatchObject({ harnessSessionId: first.identities.at(-1)?.harnessSessionId, fresh: false, resumeState: { data: { via: "resume" } } });
    } finally {
      world.cleanup();
    }
  }, 90_000);

  test("load when resume is not advertised: the replayed history is counted, none of it is emitted", async () => {
    const world = await make();
    try {
      let resumeState: ResumeState | undefined;
      await withAgent(world, async ({ host, adapter, handle }) => {
        await world.scriptText("noted: plum");
        const turn = host.prompt("remember the word plum");
        await adapter.sendTurn(handle, turn);
        await host.waitForIdle(turn.turnId, 30_000);
        resumeState = host.identities.at(-1)?.resumeState;
      });
      const wire: Traced = [];
      const withoutResume = world.adapter({
        spawn: spawnEditingInitialize((caps) => {
          delete (caps["sessionCapabilities"] as Record<string, unknown>)["resume"];
        }),
        trace: (direction, message) => wire.push({ direction, message: message as Record<string, unknown> }),
      });
      let opened = 0;
      const second = await withAgent(
        world,
        async ({ host, adapter, handle }) => {
          opened = host.events.length;
          const replayed = wire.filter((w) => w.direction === "in" && w.message["method"] === "session/update").length;
          expect(replayed).toBeGreaterThan(0);
          // what the open emitted is the session's config and commands, never a replayed message or tool call
          const history = new Set(["user_message", "user_message_chunk", "agent_message", "agent_message_chunk", "agent_thought", "agent_thought_chunk", "tool_call_update", "plan_update", "usage_update"]);
          expect(host.events.filter((e) => history.has(e.kind) || e.turnId !== undefined)).toEqual([]);
          expect(host.logs.some((l) => /replayed updates kept out of the ledger/.test(l.message))).toBe(true);
          await world.resetMock();
          await world.scriptText("plum it was");
          const turn = host.prompt("which word?");
          await adapter.sendTurn(handle, turn);
          await host.waitForIdle(turn.turnId, 30_000);
          expect((await world.modelTexts()).at(-1)).toContain("remember the word plum");
        },
        { adapter: withoutResume, resumeState: resumeState!, wire },
      );
      expect(opened).toBeLessThanOrEqual(3);
      expect(methods(wire)).toContain("session/load");
      expect(methods(wire)).not.toContain("session/resume");
      expect(second.identities.at(-1)).toMatchObject({ fresh: false, resumeState: { data: { via: "load" } } });
    } finally {
      world.cleanup();
    }
  }, 90_000);

  test("the agent lost its session: markFresh, then a new session", async () => {
    const world = await make();
    try {
      let resumeState: ResumeState | undefined;
      await withAgent(world, async ({ host, adapter, handle }) => {
        await world.scriptText("noted");
        const turn = host.prompt("remember the word fig");
        await adapter.sendTurn(handle, turn);
        await host.waitForIdle(turn.turnId, 30_000);
        resumeState = host.identities.at(-1)?.resumeState;
      });
      rmSync(world.agentStore, { recursive: true, force: true });
      const fresh: string[] = [];
      const host = new ClaudeHost();
      const adapter = world.adapter();
      const handle = await adapter.open({ ...host.openOptions(world.cwd, world.env, { resumeState: resumeState! }), targetId: world.targetId }, host.sink, {
        ...host.binding,
        markFresh: (reason) => void fresh.push(reason),
      });
      await adapter.close(handle);
      expect(fresh.length).toBe(1);
      expect(host.identities.at(-1)).toMatchObject({ fresh: true, resumeState: { data: { via: "new" } } });
      expect(host.identities.at(-1)?.harnessSessionId).not.toBe(resumeState?.data["sessionId"]);
    } finally {
      world.cleanup();
    }
  }, 90_000);
});

describe("ACP adapter with claude-agent-acp: details", () => {
  test("cancel while a permission is pending: the agent is answered cancelled at once, nothing is written, the turn ends cancelled", async () => {
    const world = await worlds["claude-agent-acp"]!();
    try {
      await withAgent(world, async ({ host, adapter, handle, wire }) => {
        host.respond = () => new Promise(() => undefined); // nobody answers the card
        await world.scriptPermission("never.txt");
        const turn = host.prompt("write it");
        await adapter.sendTurn(handle, turn);
        await host.waitForInteraction(30_000);
        await adapter.cancel(handle, turn.turnId);
        expect((await host.waitForIdle(turn.turnId)).payload).toMatchObject({ stopReason: "cancelled" });
        const answer = wire.find((w) => w.direction === "out" && w.message["id"] !== undefined && JSON.stringify(w.message).includes('"outcome":"cancelled"'));
        expect(answer).toBeDefined();
        expect(existsSync(path.join(world.cwd, "never.txt"))).toBe(false);
      });
    } finally {
      world.cleanup();
    }
  }, 60_000);

  test("a JSON-RPC error from the prompt: one error and one failed terminal; the next prompt works", async () => {
    const world = await worlds["claude-agent-acp"]!();
    try {
      await withAgent(world, async ({ host, adapter, handle }) => {
        await world.scriptError();
        const turn = host.prompt("fail please");
        await adapter.sendTurn(handle, turn);
        expect((await host.waitForIdle(turn.turnId, 30_000)).payload).toMatchObject({ stopReason: "failed" });
        expect(host.ofTurn(turn.turnId).filter((e) => e.kind === "_baton_error_update").length).toBe(1);
        await mocks.anthropic.script(reply.text("fine again"));
        const next = host.prompt("again");
        await adapter.sendTurn(handle, next);
        expect((await host.waitForIdle(next.turnId, 30_000)).payload).toMatchObject({ stopReason: "end_turn" });
      });
    } finally {
      world.cleanup();
    }
  }, 60_000);

  test("the target's mode `default` is set when the agent starts in another mode (claude-agent-acp 0.101 starts in `auto`)", async () => {
    const world = await worlds["claude-agent-acp"]!();
    try {
      let started = "";
      const wire: Traced = [];
      const adapter = world.adapter({
        // the agent reports another starting mode in its session/new answer (what 0.101 does on its own)
        spawn: spawnEditingAnswers((message) => {
          const modes = (message["result"] as { modes?: { currentModeId: string; availableModes: { id: string }[] } } | undefined)?.modes;
          if (modes === undefined) return;
          started = modes.availableModes.find((m) => m.id !== "default")?.id ?? "";
          modes.currentModeId = started;
        }),
        trace: (direction, message) => wire.push({ direction, message: message as Record<string, unknown> }),
      });
      expect(world.settings["mode"]).toBe("default");
      await withAgent(
        world,
        async ({ host }) => {
          const config = host.events.filter((e) => e.kind === "config_option_update").at(-1);
          expect((config?.payload as { options: { id: string; value: string }[] }).options.find((o) => o.id === "mode")?.value).toBe("default");
        },
        { adapter },
      );
      expect(started).not.toBe("");
      const setMode = wire.filter((w) => w.direction === "out" && w.message["method"] === "session/set_mode");
      expect(setMode.map((w) => (w.message["params"] as { modeId: string }).modeId)).toEqual(["default"]);
    } finally {
      world.cleanup();
    }
  }, 60_000);

  test("the target's mode is applied before the first turn; the probe is cached per target with the agent's version", async () => {
    const world = await worlds["claude-agent-acp"]!();
    try {
      const adapter = world.adapter({ settings: { ...world.settings, mode: "plan" } });
      await withAgent(
        world,
        async ({ host }) => {
          const config = host.events.filter((e) => e.kind === "config_option_update").at(-1);
          expect((config?.payload as { options: { id: string; value: string }[] }).options.find((o) => o.id === "mode")?.value).toBe("plan");
        },
        { adapter },
      );
      const cached = JSON.parse(readFileSync(path.join(world.stateDir, `acp-${world.targetId}.json`), "utf8"));
      expect(cached.agent).toMatchObject({ name: "@agentclientprotocol/claude-agent-acp", version: "0.49.0" });
      expect(cached.command).toEqual(world.command);
      // a new adapter of the target knows the agent's capabilities before it starts it
      expect(world.adapter().capabilities.prompt?.image?.supported).toBe(true);
      const bad = world.adapter({ settings: { ...world.settings, mode: "no-such-mode" } });
      const host = new ClaudeHost();
      const error = await bad.open({ ...host.openOptions(world.cwd, world.env), targetId: world.targetId }, host.sink, host.binding).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toContain("could not switch to mode 'no-such-mode'");
    } finally {
      world.cleanup();
    }
  }, 90_000);
});
