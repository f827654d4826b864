/** The fast checks for streamed kinds accept exactly what their schemas accept. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { EVENT_KINDS } from "../../src/event/kinds.ts";
import { validatePayload } from "../../src/event/envelope.ts";

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

  test("an invalid payload names the kind and the field", () => {
    expect(validatePayload("agent_message_chunk", { messageId: "", content: { type: "text" } })).toMatch(/invalid agent_message_chunk payload at payload.messageId/);
    expect(validatePayload("state_update", { state: "dancing" })).toMatch(/invalid state_update payload at payload.state/);
    expect(validatePayload("some_future_kind", { anything: 1 })).toBeUndefined();
  });
});
