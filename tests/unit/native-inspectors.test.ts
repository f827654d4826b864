/**
 * The two inspectors' pure parts: Claude Code transcript location/reading and turn splitting, and the Codex
 * stored-turn mapping. Shapes follow what the real binaries wrote (see the e2e tests for the real thing).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SessionMessage } from "@anthropic-ai/claude-agent-sdk";
import { buildClaudeTurns, claudeInspector, unfinishedReason } from "../../src/harness/claude/inspector.ts";
import { locateTranscript, mungeProjectDir, readTranscript } from "../../src/harness/claude/transcript.ts";
import { codexTurn } from "../../src/harness/codex/inspector.ts";
import type { Turn } from "../../src/harness/codex/protocol/v2/Turn";
import { silentLogger } from "../../src/shared/log.ts";
import { brand } from "../support/ids.ts";

const SID = "0f6c2a1e-5b7d-4c1a-9f3e-2d8b7a6c5e4f";
let root: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "baton-inspect-"));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function message(type: "user" | "assistant", uuid: string, content: unknown, extra: Record<string, unknown> = {}): SessionMessage {
  return { type, uuid, session_id: SID, parent_tool_use_id: null, parent_agent_id: null, message: type === "user" ? { role: "user", content } : { id: `msg_${uuid}`, role: "assistant", content, stop_reason: "end_turn", ...extra } };
}

describe("Claude Code transcripts", () => {
  test("found in the cwd's project first, else in any project; only UUID ids are looked up", () => {
    const env = { CLAUDE_CONFIG_DIR: path.join(root, "cfg") };
    const elsewhere = path.join(root, "cfg", "projects", "-some-other-project");
    fs.mkdirSync(elsewhere, { recursive: true });
    fs.writeFileSync(path.join(elsewhere, `${SID}.jsonl`), "");
    expect(locateTranscript(SID, env, "/work/here")).toBe(path.join(elsewhere, `${SID}.jsonl`));
    const own = path.join(root, "cfg", "projects", mungeProjectDir("/work/here"));
    fs.mkdirSync(own, { recursive: true });
    fs.writeFileSync(path.join(own, `${SID}.jsonl`), "");
    expect(locateTranscript(SID, env, "/work/here")).toBe(path.join(own, `${SID}.jsonl`));
    expect(locateTranscript("../../etc/passwd", env, "/work/here")).toBeUndefined();
    expect(locateTranscript(SID, { HOME: path.join(root, "nohome") }, "/")).toBeUndefined();
  });

  test("a partly written last line is incomplete; a corrupt line is unreadable", () => {
    const file = path.join(root, "t.jsonl");
    fs.writeFileSync(file, '{"type":"user","uuid":"a"}\n{"type":"assi');
    expect(() => readTranscript(file)).toThrow(expect.objectContaining({ code: "native_incomplete" }));
    fs.writeFileSync(file, '{"type":"user","uuid":"a"}\nnot json\n{"type":"user"}\n');
    expect(() => readTranscript(file)).toThrow(expect.objectContaining({ code: "native_unreadable", message: expect.stringContaining("line 2") }));
    fs.writeFileSync(file, '{"type":"user","uuid":"a"}\n\n{"type":"summary"}\n');
    expect(readTranscript(file)).toHaveLength(2);
  });

  test("the inspector probes without reading other harnesses' ids, and refuses what it cannot find", async () => {
    const context = { env: { CLAUDE_CONFIG_DIR: path.join(root, "cfg") }, cwd: root, settings: {}, log: silentLogger };
    expect(await claudeInspector.probe("not-a-uuid", context)).toEqual({ kind: "not_found" });
    expect(await claudeInspector.probe(SID, context)).toEqual({ kind: "not_found" });
    await expect(claudeInspector.read(SID, context)).rejects.toMatchObject({ code: "session_not_found" });
  });

  test("turns split at the user's prompts; tool results, interrupts and meta lines do not start turns", () => {
    const messages = [
      message("user", "u1", "first prompt"),
      message("assistant", "a1", [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }], { stop_reason: "tool_use" }),
      message("user", "r1", [{ type: "tool_result", tool_use_id: "toolu_1", content: "file.txt", is_error: false }]),
      message("assistant", "a2", [{ type: "text", text: "there is a file" }]),
      message("user", "m1", "<local-command-stdout>x</local-command-stdout>"),
      message("user", "u2", [{ type: "text", text: "second prompt" }]),
      message("assistant", "a3", [{ type: "text", text: "partial" }], { stop_reason: null }),
      message("user", "i1", [{ type: "text", text: "[Request interrupted by user]" }]),
    ];
    const lines = [
      { type: "user", uuid: "u1", timestamp: "2026-01-01T00:00:00.000Z" },
      { type: "user", uuid: "r1", toolUseResult: { stdout: "file.txt" } },
      { type: "user", uuid: "m1", isMeta: true },
      { type: "assistant", uuid: "a3", timestamp: "2026-01-01T00:00:09.000Z" },
    ];
    const { turns } = buildClaudeTurns(messages, lines, "/w");
    expect(turns.map((turn) => [turn.prompt, turn.interrupted])).toEqual([
      [[{ type: "text", text: "first prompt" }], false],
      [[{ type: "text", text: "second prompt" }], true],
    ]);
    expect(turns[0]?.events.map((event) => `${event.kind}:${String((event.payload as { status?: string }).status ?? "")}`)).toEqual([
      "tool_call_update:in_progress",
      "tool_call_update:completed",
      "agent_message:",
    ]);
    expect(turns[0]?.startedAt).toBe("2026-01-01T00:00:00.000Z");
    expect(turns[1]?.endedAt).toBe("2026-01-01T00:00:09.000Z");
    expect(turns.map((turn) => unfinishedReason(turn))).toEqual([undefined, undefined]);
  });

  test("the last turn is unfinished while it waits for an answer, a tool result, or the next model call", () => {
    const unfinished = (tail: SessionMessage[]) => {
      const { turns } = buildClaudeTurns([message("user", "u1", "go"), ...tail], [], "/w");
      return unfinishedReason(turns.at(-1) as Parameters<typeof unfinishedReason>[0]);
    };
    expect(unfinished([])).toBe("its last prompt has no answer yet");
    expect(unfinished([message("assistant", "a1", [{ type: "tool_use", id: "t1", name: "Bash", input: {} }], { stop_reason: "tool_use" })])).toBe("a tool call of its last turn has no result yet");
    expect(
      unfinished([
        message("assistant", "a1", [{ type: "tool_use", id: "t1", name: "Bash", input: {} }], { stop_reason: "tool_use" }),
        message("user", "r1", [{ type: "tool_result", tool_use_id: "t1", content: "ok" }]),
      ]),
    ).toContain("stopped at 'tool_use'");
    expect(unfinished([message("assistant", "a1", [{ type: "text", text: "done" }])])).toBeUndefined();
  });

  test("a prompt's uuid enters as the turn id the mapper stamps (a TodoWrite plan carries it); a prompt without one is unreadable", () => {
    const todo = { type: "tool_use", id: "toolu_1", name: "TodoWrite", input: { todos: [{ content: "a", status: "pending", activeForm: "a" }] } };
    const { turns } = buildClaudeTurns([message("user", "u1", "go"), message("assistant", "a1", [todo])], [], "/w");
    expect(turns[0]?.turnId).toBe(brand.turn("u1"));
    expect(turns[0]?.events.find((event) => event.kind === "plan_update")?.payload).toMatchObject({ planId: "pl_u1" });
    expect(() => buildClaudeTurns([message("user", "", "go")], [], "/w")).toThrow(expect.objectContaining({ code: "native_unreadable", message: expect.stringContaining("no uuid") }));
  });

  test("an API error ends the turn failed with its text", () => {
    const { turns } = buildClaudeTurns([message("user", "u1", "go"), message("assistant", "a1", [{ type: "text", text: "API Error: 500 overloaded" }], { stop_reason: "stop_sequence" })], [{ type: "assistant", uuid: "a1", isApiErrorMessage: true }], "/w");
    expect(turns[0]?.failed).toBe(true);
    expect(turns[0]?.events).toEqual([{ kind: "_baton_error_update", payload: { message: "API Error: 500 overloaded" } }]);
    expect(unfinishedReason(turns[0] as Parameters<typeof unfinishedReason>[0])).toBeUndefined();
  });
});

function codex(partial: Partial<Turn> & Pick<Turn, "items" | "status">): Turn {
  return { id: "turn-1", rootTurnId: null, itemsView: "full", error: null, startedAt: 1_800_000_000, completedAt: 1_800_000_005, durationMs: 5000, ...partial };
}

describe("Codex stored turns", () => {
  test("the first user message is the prompt, later ones are steers; items map like live ones", () => {
    const turn = codexTurn(
      codex({
        status: "completed",
        items: [
          { type: "userMessage", id: "u1", clientId: null, content: [{ type: "text", text: "do it", text_elements: [] }, { type: "localImage", path: "/tmp/a.png" }] },
          { type: "reasoning", id: "rs", summary: ["plan first"], content: [] },
          { type: "userMessage", id: "u2", clientId: null, content: [{ type: "text", text: "also this", text_elements: [] }] },
          { type: "agentMessage", id: "m1", text: "done", phase: null, moderation: null, memoryCitation: null, delivery: null, questions: null },
        ],
      }),
    );
    expect(turn.prompt).toEqual([{ type: "text", text: "do it" }, { type: "image", mimeType: "image/*", path: "/tmp/a.png" }]);
    expect(turn.events.map((event) => `${event.source ?? "harness"}:${event.kind}`)).toEqual(["harness:agent_thought", "user:user_message", "harness:agent_message"]);
    expect(turn).toMatchObject({ nativeTurnId: "turn-1", stopReason: "end_turn", startedAt: new Date(1_800_000_000_000).toISOString(), endedAt: new Date(1_800_000_005_000).toISOString() });
  });

  test("interrupted → cancelled; failed → failed with the error shown", () => {
    expect(codexTurn(codex({ status: "interrupted", items: [] })).stopReason).toBe("cancelled");
    const failed = codexTurn(codex({ status: "failed", items: [], error: { message: "stream disconnected", codexErrorInfo: null, additionalDetails: null, misalignment: null } }));
    expect(failed.stopReason).toBe("failed");
    expect(failed.events).toEqual([{ kind: "_baton_error_update", payload: { message: "stream disconnected" } }]);
  });
});
