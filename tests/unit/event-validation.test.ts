/** The fast checks for the hot kinds accept exactly what their schemas accept. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { EVENT_KINDS } from "../../src/event/kinds.ts";
import { validatePayload } from "../../src/event/envelope.ts";
import { FAST_CHECKS } from "../../src/event/fast-checks.ts";

const STREAMED = ["agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call_content_chunk"] as const;

const candidate = fc.oneof(
  fc.anything(),
  fc.record(
    {
      messageId: fc.oneof(fc.string(), fc.constant(""), fc.integer(), fc.constant(null)),
      toolCallId: fc.oneof(fc.string(), fc.constant(""), fc.integer()),
      content: fc.oneof(fc.record({ type: fc.oneof(fc.string(), fc.integer()), text: fc.string() }), fc.array(fc.anything()), fc.constant(null), fc.string()),
      extra: fc.anything(),
    },
    { requiredKeys: [] },
  ),
);

describe("payload validation", () => {
  for (const kind of STREAMED) {
    test(`${kind}: fast check ≡ schema`, () => {
      fc.assert(
        fc.property(candidate, (payload) => {
          const schemaOk = EVENT_KINDS[kind].payload.safeParse(payload).success;
          expect(validatePayload(kind, payload) === undefined).toBe(schemaOk);
        }),
        { numRuns: 2000 },
      );
    });
  }

  // Payloads as JSON.parse produces them: every field the schemas name, each with plausible and wrong values.
  const scalar = fc.oneof(fc.string({ maxLength: 3 }), fc.constant(""), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
  const block = fc.oneof(fc.record({ type: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), text: fc.string({ maxLength: 3 }) }, { requiredKeys: [] }), scalar, fc.array(scalar, { maxLength: 2 }));
  const value = fc.oneof(
    scalar,
    fc.constantFrom("running", "idle", "requires_action", "driven", "observed", "x", "end_turn", "cancelled", "unknown", "stop", "prompt", "steer", "follow_up"),
    fc.array(fc.record({ content: scalar, priority: scalar, status: scalar }, { requiredKeys: [] }), { maxLength: 2 }),
    fc.array(block, { maxLength: 3 }),
    block,
    fc.array(fc.record({ path: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), line: scalar }, { requiredKeys: [] }), { maxLength: 2 }),
    fc.array(fc.record({ toolCallId: scalar, title: scalar, kind: scalar, status: scalar }, { requiredKeys: [] }), { maxLength: 2 }),
    fc.array(scalar, { maxLength: 2 }),
    fc.record({ inputTokens: scalar, outputTokens: scalar, isEstimated: scalar }, { requiredKeys: [] }),
    fc.constantFrom("prepared", "dispatching", "accepted", "uncertain", "finalized", "completed", "not_accepted", "failed", "user", "delegated", "info", "warning", "error"),
    fc.record({ harnessTargetId: scalar, harness: scalar, harnessSessionKey: scalar, cwd: scalar, model: scalar }, { requiredKeys: [] }),
    fc.record({ amount: scalar, currency: scalar }, { requiredKeys: [] }),
  );
  const FIELDS = ["messageId", "toolCallId", "turnId", "content", "title", "kind", "status", "locations", "rawInput", "state", "stopReason", "nativeStopReason", "steers", "role", "userText", "agentText", "toolCalls", "usage", "startedAt", "endedAt", "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens", "isEstimated", "delivery", "planId", "entries", "attemptId", "phase", "inputId", "launchSnapshot", "outcome", "detail", "level", "route", "model", "contextUsed", "contextSize", "cost"];
  const jsonPayload = fc.oneof(
    { weight: 1, arbitrary: fc.jsonValue() },
    { weight: 6, arbitrary: fc.record(Object.fromEntries(FIELDS.map((field) => [field, value])), { requiredKeys: [] }) },
  );

  // A valid payload per kind, with a random subset of its fields replaced or removed: near misses.
  const SEEDS: Record<string, Record<string, unknown>> = {
    agent_message: { messageId: "m", content: [{ type: "text", text: "hi" }] },
    agent_thought: { messageId: "m", content: [{ type: "text", text: "hi" }] },
    tool_call_update: { toolCallId: "c", title: "ls", kind: "execute", status: "completed", content: [{ type: "text", text: "a" }], locations: [{ path: "a", line: 1 }] },
    usage_update: { inputTokens: 1, outputTokens: 2, isEstimated: false },
    user_message: { messageId: "m", content: [{ type: "text", text: "hi" }], delivery: "steer" },
    plan_update: { planId: "p", entries: [{ content: "a", priority: "high", status: "pending" }, { content: "b", status: "completed" }] },
    state_update: { state: "idle", stopReason: "end_turn", nativeStopReason: "stop" },
    _baton_delivery_attempt_update: { attemptId: "a", phase: "prepared", inputId: "m", launchSnapshot: { harnessTargetId: "codex", harness: "codex", harnessSessionKey: "codex", cwd: "/w", model: "m" }, outcome: "completed", detail: "d" },
    _baton_run_status: { phase: "starting", title: "Starting Codex…" },
    _baton_notice: { level: "info", title: "t", detail: "d" },
    approval_route_update: { route: "delegated" },
    context_usage_update: { model: "m", contextUsed: 1, contextSize: 2, cost: { amount: 0.5, currency: "USD" } },
    _baton_context_snapshot: { snapshotId: "ctx_1", source: { kind: "session_history", owner: "bs_1", key: "history" }, targetId: "codex", afterSeq: 0, throughSeq: 12, text: "t" },
    _baton_context_delivery_receipt: { snapshotId: "ctx_1", contextEpochId: "ctxe_1", transport: "sync_context", accepted: true },
    _baton_turn_summary: { turnId: "t", role: "driven", stopReason: "end_turn", nativeStopReason: "stop", userText: "u", steers: ["s"], agentText: "a", toolCalls: [{ toolCallId: "c", title: "ls", kind: "execute", status: "completed" }], usage: { inputTokens: 1 }, startedAt: "s", endedAt: "e" },
  };
  const nearMiss = (seed: Record<string, unknown>) =>
    fc.tuple(fc.subarray(Object.keys(seed)), fc.array(value, { minLength: Object.keys(seed).length, maxLength: Object.keys(seed).length }), fc.boolean()).map(([changed, values, drop]) => {
      const out: Record<string, unknown> = { ...seed };
      changed.forEach((key, i) => {
        if (drop && i === 0) delete out[key];
        else out[key] = values[i];
      });
      return out;
    });

  for (const kind of Object.keys(FAST_CHECKS).filter((k) => !(STREAMED as readonly string[]).includes(k))) {
    test(`${kind}: fast check ≡ schema on JSON payloads`, () => {
      const fast = FAST_CHECKS[kind]!;
      const schema = EVENT_KINDS[kind as keyof typeof EVENT_KINDS].payload;
      let accepted = 0;
      fc.assert(
        fc.property(fc.oneof(jsonPayload, nearMiss(SEEDS[kind] ?? {})), (payload) => {
          const ok = schema.safeParse(payload).success;
          if (ok) accepted++;
          expect(fast(payload)).toBe(ok);
        }),
        { numRuns: 4000 },
      );
      expect(accepted).toBeGreaterThan(0); // the generator reaches valid payloads too
    });
  }

  test("a user message with a prompt block other than text is left to its schema (the fast check says yes only to text)", () => {
    const image = { messageId: "m", content: [{ type: "text", text: "see" }, { type: "image", mimeType: "image/png", path: "a.png" }] };
    expect(FAST_CHECKS["user_message"]!(image)).toBe(false);
    expect(validatePayload("user_message", image)).toBeUndefined();
    expect(validatePayload("user_message", { ...image, content: [{ type: "image" }] })).toMatch(/invalid user_message payload at payload.content.0/);
  });

  test("an invalid payload names the kind and the field", () => {
    expect(validatePayload("agent_message_chunk", { messageId: "", content: { type: "text" } })).toMatch(/invalid agent_message_chunk payload at payload.messageId/);
    expect(validatePayload("state_update", { state: "dancing" })).toMatch(/invalid state_update payload at payload.state/);
    expect(validatePayload("some_future_kind", { anything: 1 })).toBeUndefined();
  });
});

describe("payload schemas are built on first use (issue #18: not at every start)", () => {
  test("a row's schema is built once and kept: every read returns the same schema, and it validates", () => {
    for (const kind of Object.keys(EVENT_KINDS) as (keyof typeof EVENT_KINDS)[]) {
      const first = EVENT_KINDS[kind].payload;
      expect(EVENT_KINDS[kind].payload).toBe(first);
      expect(Object.keys(EVENT_KINDS[kind])).toContain("payload");
    }
    expect(EVENT_KINDS.state_update.payload.safeParse({ state: "idle" }).success).toBe(true);
    expect(EVENT_KINDS.state_update.payload.safeParse({ state: "dancing" }).success).toBe(false);
  });
});
