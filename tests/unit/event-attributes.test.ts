/**
 * Each kind's attributes are declared once, in the event registry (#13): what streams, the turn roles, Baton's
 * own source. The ledger's write batching and the TUI's publish throttle are read from it, so they cannot
 * disagree again (they did: the ledger batched user_message_chunk, the TUI throttled usage_update).
 */
import { describe, expect, test } from "bun:test";
import { BATON_SOURCE } from "../../src/event/envelope.ts";
import { EVENT_KINDS, kindsStreaming, TURN_ROLES } from "../../src/event/kinds.ts";
import { STREAM_KINDS } from "../../src/tui/stream-throttle.ts";

describe("event attributes come from the registry", () => {
  test("given the registry, then content chunks are batched by the ledger and throttled by the TUI; usage ticks are only throttled", () => {
    expect([...kindsStreaming("content")].sort()).toEqual(["agent_message_chunk", "agent_thought_chunk", "tool_call_content_chunk", "user_message_chunk"]);
    expect([...kindsStreaming("tick")]).toEqual(["usage_update"]);
    expect([...STREAM_KINDS].sort()).toEqual([...kindsStreaming("content"), ...kindsStreaming("tick")].sort());
  });

  test("every streaming kind is a kind of the registry,", () => {
    for (const kind of kindsStreaming("content", "tick")) expect(Object.hasOwn(EVENT_KINDS, kind)).toBe(true);
    expect(kindsStreaming().size).toBe(0);
  });

  test("a turn summary's role is one of the registry's turn roles; anything else is refused", () => {
    const schema = EVENT_KINDS._baton_turn_summary.payload.shape.role;
    for (const role of TURN_ROLES) expect(schema.safeParse(role).success).toBe(true);
    expect(schema.safeParse("control").success).toBe(false);
  });

  test("Baton's source is one frozen value", () => {
    expect(BATON_SOURCE).toEqual({ type: "baton" });
    expect(Object.isFrozen(BATON_SOURCE)).toBe(true);
  });
});
