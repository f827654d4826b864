/** The ACP boundary, table-tested: session/update → drafts, permission options by kind, config, probe, usage. */
import { describe, expect, test } from "bun:test";
import { AcpConfigState } from "../../src/harness/acp/config.ts";
import { AcpMapper, toolKind, toolStatus } from "../../src/harness/acp/mapper.ts";
import { permissionDraft, permissionOutcome } from "../../src/harness/acp/permissions.ts";
import { capabilitiesOf, probeFromInitialize, readProbe, sameProbe, sessionAbilities, writeProbe } from "../../src/harness/acp/probe.ts";
import { acpStopReason } from "../../src/harness/acp/stop-reason.ts";
import { turnUsage } from "../../src/harness/acp/usage.ts";
import { checkCapabilityMethods, supportedPromptBlocks } from "../../src/harness/capabilities.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TurnId } from "../../src/shared/ids.ts";

const T1 = "t_one" as TurnId;
const T2 = "t_two" as TurnId;
const mapper = () => new AcpMapper("/work", new AcpConfigState());
const kinds = (result: { drafts: { kind: string }[] }) => result.drafts.map((d) => d.kind);

describe("closed vocabularies at the boundary", () => {
  test.each([
    ["end_turn", "end_turn"],
    ["max_tokens", "max_tokens"],
    ["max_turn_requests", "max_turn_requests"],
    ["refusal", "refusal"],
    ["cancelled", "cancelled"],
    // Baton's own members are not ACP's: an agent saying them is outside ACP's union, so a failure
    ["error", "failed"],
    ["unknown", "failed"],
    ["done", "failed"],
    [42, "failed"],
    ["", "unknown"],
    [null, "unknown"],
    [undefined, "unknown"],
  ])("stop reason %p → %p (unknown never succeeds; missing is unknown)", (raw, expected) => expect(acpStopReason(raw)).toBe(expected as never));

  test.each([
    ["read", "read"],
    ["execute", "execute"],
    ["switch_mode", "other"],
    ["teleport", "other"],
    [undefined, "other"],
  ])("tool kind %p → %p", (raw, expected) => expect(toolKind(raw)).toBe(expected as never));

  test.each([
    ["pending", "pending"],
    ["in_progress", "in_progress"],
    ["completed", "completed"],
    ["failed", "failed"],
    ["done", "failed"],
    [42, "failed"],
  ])("tool status %p → %p (unknown is failed, never completed)", (raw, expected) => expect(toolStatus(raw)).toBe(expected as never));
});

describe("session/update → drafts", () => {
  test("chunks stream under the agent's messageId and complete at the turn's end", () => {
    const m = mapper();
    const a = m.map({ sessionUpdate: "agent_message_chunk", messageId: "msg_1", content: { type: "text", text: "" } }, T1);
    expect(a.drafts).toEqual([]);
    const b = m.map({ sessionUpdate: "agent_message_chunk", messageId: "msg_1", content: { type: "text", text: "Hel" } }, T1);
    m.map({ sessionUpdate: "agent_message_chunk", messageId: "msg_1", content: { type: "text", text: "lo" } }, T1);
    expect(b.drafts).toEqual([{ kind: "agent_message_chunk", payload: { messageId: "msg_1", content: { type: "text", text: "Hel" } }, turnId: T1 }]);
    expect(m.finishTurn(T1)).toEqual([{ kind: "agent_message", payload: { messageId: "msg_1", content: [{ type: "text", text: "Hello" }] }, turnId: T1 }]);
  });

  test("a new messageId completes the previous message; thoughts are kept apart from messages of the same id", () => {
    const m = mapper();
    m.map({ sessionUpdate: "agent_thought_chunk", messageId: "msg_1", content: { type: "text", text: "hmm" } }, T1);
    m.map({ sessionUpdate: "agent_message_chunk", messageId: "msg_1", content: { type: "text", text: "one" } }, T1);
    const next = m.map({ sessionUpdate: "agent_message_chunk", messageId: "msg_2", content: { type: "text", text: "two" } }, T1);
    expect(next.drafts.map((d) => [d.kind, (d.payload as { messageId: string }).messageId])).toEqual([
      ["agent_message", "msg_1"],
      ["agent_message_chunk", "msg_2"],
    ]);
    expect(m.finishTurn(T1).map((d) => [d.kind, (d.payload as { messageId: string }).messageId])).toEqual([
      ["agent_thought", "msg_1:thought"],
      ["agent_message", "msg_2"],
    ]);
  });

  test("without messageIds, a tool call splits the text into two messages", () => {
    const m = mapper();
    m.map({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "before" } }, T1);
    const tool = m.map({ sessionUpdate: "tool_call", toolCallId: "c1", title: "ls", kind: "execute", status: "pending" }, T1);
    expect(kinds(tool)).toEqual(["agent_message", "tool_call_update"]);
    m.map({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "after" } }, T1);
    const done = m.finishTurn(T1);
    expect(done.map((d) => (d.payload as { content: { text: string }[] }).content[0]?.text)).toEqual(["after"]);
    expect((tool.drafts[0]?.payload as { messageId: string }).messageId).not.toBe((done[0]?.payload as { messageId: string }).messageId);
  });

  test("a late chunk of a cancelled turn (same messageId) stays out of the next turn", () => {
    const m = mapper();
    m.map({ sessionUpdate: "agent_message_chunk", messageId: "msg_1", content: { type: "text", text: "slow" } }, T1);
    m.finishTurn(T1);
    const late = m.map({ sessionUpdate: "agent_message_chunk", messageId: "msg_1", content: { type: "text", text: " tail" } }, T2);
    expect(late.drafts).toEqual([]);
    expect(late.diagnostics.map((d) => d.key)).toEqual(["update:agent_message_chunk of a finished turn"]);
  });

  test("turn content outside a driven turn mints no turn; it is a diagnostic", () => {
    const m = mapper();
    const result = m.map({ sessionUpdate: "agent_message_chunk", messageId: "x", content: { type: "text", text: "hi" } }, undefined);
    expect(result.drafts).toEqual([]);
    expect(result.diagnostics[0]?.key).toBe("update:agent_message_chunk outside a turn");
    expect(m.map({ sessionUpdate: "plan", entries: [] }, undefined).diagnostics[0]?.key).toBe("update:plan outside a turn");
  });

  test("tool calls upsert: null means unchanged, kinds and statuses close, diffs get a patch, terminals stream as chunks", () => {
    const m = mapper();
    const first = m.map(
      {
        sessionUpdate: "tool_call",
        toolCallId: "c1",
        title: "Write",
        kind: "switch_mode",
        status: "pending",
        content: [{ type: "diff", path: "/work/a.txt", oldText: null, newText: "one\ntwo\n" }],
        locations: [{ path: "/work/a.txt", line: null }],
        rawInput: { file_path: "/work/a.txt" },
      },
      T1,
    );
    expect(first.drafts[0]).toEqual({
      kind: "tool_call_update",
      turnId: T1,
      payload: {
        toolCallId: "c1",
        title: "Write",
        kind: "other",
        status: "pending",
        content: [{ type: "diff", changes: [{ operation: "add", path: "/work/a.txt" }], patch: "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n" }],
        locations: [{ path: "/work/a.txt" }],
        rawInput: { file_path: "/work/a.txt" },
      },
    });
    const modify = m.map({ sessionUpdate: "tool_call_update", toolCallId: "c1", title: null, kind: null, content: [{ type: "diff", path: "/work/a.txt", oldText: "one\ntwo\n", newText: "one\nTWO\n" }] }, T1);
    const payload = modify.drafts[0]?.payload as Record<string, unknown>;
    expect(Object.keys(payload).sort()).toEqual(["content", "toolCallId"]);
    expect(JSON.stringify(payload["content"])).toContain("-two\\n+TWO");
    const terminal = m.map(
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", content: [{ type: "terminal", terminalId: "c1" }], _meta: { terminal_output_delta: { data: "hi\n", terminal_id: "c1" } } },
      T1,
    );
    expect(terminal.drafts).toEqual([
      { kind: "tool_call_content_chunk", payload: { toolCallId: "c1", content: { type: "text", text: "hi\n" } }, turnId: T1 },
      { kind: "tool_call_update", payload: { toolCallId: "c1", status: "completed" }, turnId: T1 },
    ]);
    const text = m.map({ sessionUpdate: "tool_call_update", toolCallId: "c1", content: [{ type: "content", content: { type: "text", text: "ok" } }] }, T1);
    expect((text.drafts[0]?.payload as { content: unknown }).content).toEqual([{ type: "text", text: "ok" }]);
  });

  test("a tool call's later updates belong to its turn; a finished turn's are inert", () => {
    const m = mapper();
    m.map({ sessionUpdate: "tool_call", toolCallId: "c1", title: "x" }, T1);
    m.finishTurn(T1);
    expect(m.map({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" }, T2).drafts).toEqual([]);
  });

  test("plan, commands, usage, mode and config options", () => {
    const config = new AcpConfigState();
    config.reset({ currentModeId: "default", availableModes: [{ id: "default", name: "Default" }, { id: "plan", name: "Plan" }] }, []);
    const m = new AcpMapper("/work", config);
    expect(m.map({ sessionUpdate: "plan", entries: [{ content: "Step 1", status: "pending", priority: "medium" }] }, T1).drafts).toEqual([
      { kind: "plan_update", payload: { planId: `pl_${T1}`, entries: [{ content: "Step 1", status: "pending", priority: "medium" }] }, turnId: T1 },
    ]);
    expect(m.map({ sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "Review", input: { hint: "what" } }] }, undefined).drafts).toEqual([
      { kind: "available_commands_update", payload: { commands: [{ name: "review", description: "Review", input: { hint: "what" } }] } },
    ]);
    expect(m.map({ sessionUpdate: "usage_update", used: 101, size: 1000, cost: { amount: 0.01, currency: "USD" } }, T1).drafts).toEqual([
      { kind: "context_usage_update", payload: { contextUsed: 101, contextSize: 1000, cost: { amount: 0.01, currency: "USD" } }, turnId: T1 },
    ]);
    const mode = m.map({ sessionUpdate: "current_mode_update", currentModeId: "plan" }, undefined);
    expect((mode.drafts[0]?.payload as { options: unknown[] }).options).toEqual([
      { id: "mode", name: "Mode", type: "select", category: "mode", value: "plan", options: [{ value: "default", name: "Default" }, { value: "plan", name: "Plan" }] },
    ]);
  });

  test.each(["session_info_update", "notice", "compaction_update", "user_message_chunk", "_vendor_thing"])("%s is a diagnostic, never silently dropped", (kind) => {
    const result = mapper().map({ sessionUpdate: kind, title: "x" }, T1);
    expect(result.drafts).toEqual([]);
    expect(result.diagnostics.map((d) => d.key)).toEqual([`update:${kind}`]);
  });

  test("malformed updates are diagnostics", () => {
    expect(mapper().map("nope", T1).diagnostics[0]?.key).toBe("update:malformed");
  });
});

describe("permissions: chosen by option kind, never by id", () => {
  // claude-agent-acp 0.49 and 0.101 send the same kinds under different ids.
  const v049: { kind: "allow_always" | "allow_once" | "reject_once"; optionId: string; name: string }[] = [
    { kind: "allow_always", optionId: "allow_always", name: "Always Allow" },
    { kind: "allow_once", optionId: "allow", name: "Allow" },
    { kind: "reject_once", optionId: "reject", name: "Reject" },
  ];
  const v0101: typeof v049 = [
    { kind: "allow_once", optionId: "allow-once", name: "Allow" },
    { kind: "allow_always", optionId: "allow-with-updates", name: "Always" },
    { kind: "reject_once", optionId: "reject", name: "Reject" },
  ];
  test.each([
    ["0.49", v049, "allow", "reject"],
    ["0.101", v0101, "allow-once", "reject"],
  ])("claude-agent-acp %s: allow-once and reject-once resolve to that version's ids", (_version, options, allowId, rejectId) => {
    const { draft } = permissionDraft({ toolCallId: "c1", title: "echo hi", options });
    const pick = (polarity: string, lifetime: string) => draft.options.find((o) => o.polarity === polarity && o.lifetime === lifetime)?.optionId ?? "";
    expect(permissionOutcome({ outcome: "selected", optionId: pick("allow", "once") }, draft.options)).toEqual({ outcome: { outcome: "selected", optionId: allowId } });
    expect(permissionOutcome({ outcome: "selected", optionId: pick("reject", "once") }, draft.options)).toEqual({ outcome: { outcome: "selected", optionId: rejectId } });
    expect(draft.options.find((o) => o.lifetime === "persistent")?.polarity).toBe("allow");
  });

  test("an option of an unknown kind is left off the card; a selection not offered, and any cancel, answer cancelled", () => {
    const mapped = permissionDraft({ title: "", options: [{ kind: "allow_once", optionId: "ok", name: "OK" }, { kind: "maybe" as never, optionId: "m", name: "Maybe" }] });
    expect(mapped.unknownKinds).toEqual(["maybe"]);
    expect(mapped.draft).toEqual({ type: "permission", title: "Permission requested", options: [{ optionId: "ok", name: "OK", polarity: "allow", lifetime: "once" }] });
    expect(permissionOutcome({ outcome: "selected", optionId: "m" }, mapped.draft.options)).toEqual({ outcome: { outcome: "cancelled" } });
    expect(permissionOutcome({ outcome: "cancelled", reason: "turn" }, mapped.draft.options)).toEqual({ outcome: { outcome: "cancelled" } });
  });
});

describe("config: model / effort / mode from what the agent offers", () => {
  const claudeLike = () => {
    const config = new AcpConfigState();
    const options = [
      { id: "model", name: "Model", category: "model", type: "select", currentValue: "default", options: [{ value: "default", name: "Default" }, { value: "opus", name: "Opus" }] },
      { id: "effort", name: "Effort", category: "thought_level", type: "select", currentValue: "high", options: [{ group: "g", name: "levels", options: [{ value: "low", name: "Low" }, { value: "high", name: "High" }] }] },
      { id: "fast", name: "Fast", type: "boolean", currentValue: false },
    ];
    config.reset({ currentModeId: "default", availableModes: [{ id: "default", name: "Default" }, { id: "plan", name: "Plan" }, { id: "auto", name: "Auto" }] }, options as never);
    return config;
  };
  test("the snapshot has model, effort and mode only; grouped choices are flattened", () => {
    const snapshot = claudeLike().snapshot();
    expect(snapshot.map((o) => [o.id, o.value, o.options?.map((c) => c.value)])).toEqual([
      ["model", "default", ["default", "opus"]],
      ["effort", "high", ["low", "high"]],
      ["mode", "default", ["default", "plan", "auto"]],
    ]);
  });
  test("routes: mode through set_mode, model and effort through their config ids; unknown values are refused", () => {
    const config = claudeLike();
    expect(config.route("mode")).toEqual({ via: "set_mode" });
    expect(config.route("effort")).toEqual({ via: "set_config_option", configId: "effort" });
    expect(config.resolve("model", "Opus", "x")).toBe("opus");
    expect(config.resolve("mode", "default", "x")).toBeUndefined();
    expect(() => config.resolve("mode", "yolo", "claude-acp")).toThrow("claude-acp has no mode 'yolo' (available: default, plan, auto)");
  });
  test("default means what the agent started with", () => {
    const config = claudeLike();
    config.replaceOptions([{ id: "effort", name: "Effort", category: "thought_level", type: "select", currentValue: "low", options: [{ value: "low", name: "Low" }, { value: "high", name: "High" }] }]);
    expect(config.resolve("effort", "default", "x")).toBe("high");
    expect(() => new AcpConfigState().resolve("model", "x", "gemini")).toThrow("gemini offers no model setting");
  });
});

describe("probe and capabilities", () => {
  const init = (caps: Record<string, unknown>) => probeFromInitialize(["agent"], { protocolVersion: 1, agentInfo: { name: "a", version: "1.0" }, agentCapabilities: caps, authMethods: [] } as never, new Date(0));
  test("capabilities follow what the agent advertised; text and resource links always", () => {
    const rich = capabilitiesOf(init({ promptCapabilities: { image: true, audio: true, embeddedContext: true } }));
    expect([...supportedPromptBlocks(rich)].sort()).toEqual(["audio", "image", "resource", "resource_link", "text"]);
    const plain = capabilitiesOf(init({}));
    expect([...supportedPromptBlocks(plain)].sort()).toEqual(["resource_link", "text"]);
    expect(plain.interactions?.permission?.supported).toBe(true);
    expect(capabilitiesOf(undefined).config?.supported).toBe(true);
    expect(capabilitiesOf({ ...init({}), config: [] }).config).toBeUndefined();
  });
  test("session abilities: flags as advertised (the fallback chain does not trust them)", () => {
    expect(sessionAbilities(init({ loadSession: true, sessionCapabilities: { resume: {}, close: {} } }))).toEqual({ resume: true, load: true, close: true, list: false });
    expect(sessionAbilities(init({ sessionCapabilities: { resume: null } }))).toEqual({ resume: false, load: false, close: false, list: false });
  });
  test("the cache is per target and command; another command, a corrupt file or another version read as none", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "baton-acp-probe-"));
    try {
      const file = path.join(dir, "acp-x.json");
      const probe = init({ loadSession: true });
      writeProbe(file, probe);
      expect(readProbe(file, ["agent"])).toEqual(probe);
      expect(readProbe(file, ["other-agent"])).toBeUndefined();
      expect(sameProbe(probe, { ...probe, probedAt: "later" })).toBe(true);
      expect(sameProbe(probe, { ...probe, agent: { name: "a", version: "2.0" } })).toBe(false);
      writeFileSync(file, "{not json");
      expect(readProbe(file, ["agent"])).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("usage", () => {
  test("a prompt result's usage is that turn's; nothing when absent or zero", () => {
    expect(turnUsage({ totalTokens: 120, inputTokens: 90, outputTokens: 20, cachedReadTokens: 10, thoughtTokens: null })).toEqual({ inputTokens: 90, outputTokens: 20, cacheReadTokens: 10, cacheWriteTokens: 0, reasoningTokens: 0 });
    expect(turnUsage(undefined)).toBeUndefined();
    expect(turnUsage({ totalTokens: 0, inputTokens: 0, outputTokens: 0 })).toBeUndefined();
  });
});

test("the ACP adapter declares only what it implements", async () => {
  const { AcpAdapter } = await import("../../src/harness/acp/adapter.ts");
  expect(checkCapabilityMethods(new AcpAdapter({ targetId: "x", settings: { command: ["agent"] } }))).toEqual([]);
});
