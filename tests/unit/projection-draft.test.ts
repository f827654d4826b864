/**
 * Drafts (#18, `src/projection/draft.ts`): a fold of many events updates in place only the nodes it created
 * itself, so what readers get stays immutable. Properties over generated chunk-heavy ledgers (the shape of
 * real ones: long streams into a few messages and tool calls, interleaved turns, empty and non-text
 * chunks, completions and stale chunks after them):
 * - every state handed out, the state a replay starts from and every event are deep-frozen, and folding on
 *   never writes to them (a write to a frozen object throws here: modules are strict);
 * - one draft for the whole ledger (a load) ≡ one draft per event (live) ≡ resume from a JSON checkpoint;
 * - messages and tool calls hold exactly what a plain model of the old semantics says (chunks append,
 *   adjacent text merges, an empty text chunk is inert, a completion replaces and ends the stream).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { ContentBlock } from "../../src/event/content.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { closeDraft, editable, fresh, inDraft, openDraft, owned } from "../../src/projection/draft.ts";
import { initialState, plainState, reduce, replay, storedProjectionFold, tableGet, type ProjectionState } from "../../src/projection/index.ts";
import { createEventFactory } from "../support/events.ts";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

const turn = fc.constantFrom("t_1", "t_2", "t_3");
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const text = fc.constantFrom("a", "bc", "", "d e").map((t): ContentBlock => ({ type: "text", text: t }));
const image = fc.constant<ContentBlock>({ type: "image", mimeType: "image/png", data: "AA" });
const block = fc.oneof({ weight: 6, arbitrary: text }, { weight: 1, arbitrary: image });
const messageId = fc.constantFrom("m_1", "m_2", "m_3", "m_4");
const toolCallId = fc.constantFrom("c_1", "c_2");

type Step =
  | { readonly kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk"; readonly id: string; readonly block: ContentBlock; readonly turn?: string | undefined }
  | { readonly kind: "agent_message"; readonly id: string; readonly content?: ContentBlock[] | undefined; readonly turn?: string | undefined }
  | { readonly kind: "tool_call_content_chunk"; readonly id: string; readonly block: ContentBlock; readonly turn?: string | undefined }
  | { readonly kind: "tool_call_update"; readonly id: string; readonly status?: string | undefined; readonly content?: ContentBlock[] | null | undefined; readonly turn?: string | undefined }
  | { readonly kind: "state_update"; readonly state: "running" | "idle"; readonly turn: string }
  | { readonly kind: "_baton_turn_summary"; readonly turn: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ kind: fc.constantFrom("agent_message_chunk" as const, "agent_thought_chunk" as const, "user_message_chunk" as const), id: messageId, block, turn: opt(turn) }, { requiredKeys: ["kind", "id", "block"] }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("agent_message" as const), id: messageId, content: opt(fc.array(block, { maxLength: 2 })), turn: opt(turn) }, { requiredKeys: ["kind", "id"] }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("tool_call_content_chunk" as const), id: toolCallId, block, turn: opt(turn) }, { requiredKeys: ["kind", "id", "block"] }) },
  {
    weight: 2,
    arbitrary: fc.record(
      { kind: fc.constant("tool_call_update" as const), id: toolCallId, status: opt(fc.constantFrom("in_progress", "completed")), content: opt(fc.option(fc.array(text, { maxLength: 1 }), { nil: null })), turn: opt(turn) },
      { requiredKeys: ["kind", "id"] },
    ),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("state_update" as const), state: fc.constantFrom("running" as const, "idle" as const), turn }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("_baton_turn_summary" as const), turn }) },
);

const ledger = fc.array(step, { maxLength: 120 });

function stamp(steps: readonly Step[]): AnyEvent[] {
  const f = createEventFactory();
  return steps.map((s) => {
    const options = { ...(s.turn === undefined ? {} : { turn: s.turn }), target: "codex" };
    switch (s.kind) {
      case "agent_message_chunk":
      case "agent_thought_chunk":
      case "user_message_chunk":
        return f.any(s.kind, { messageId: s.id, content: s.block }, options);
      case "agent_message":
        return f.any(s.kind, s.content === undefined ? { messageId: s.id } : { messageId: s.id, content: s.content }, options);
      case "tool_call_content_chunk":
        return f.any(s.kind, { toolCallId: s.id, content: s.block }, options);
      case "tool_call_update":
        return f.any(s.kind, { toolCallId: s.id, ...(s.status === undefined ? {} : { status: s.status }), ...(s.content === undefined ? {} : { content: s.content }) }, options);
      case "state_update":
        return f.any(s.kind, { state: s.state }, options);
      case "_baton_turn_summary":
        return f.any(s.kind, { turnId: s.turn, toolCalls: [] }, options);
    }
  });
}

/** The old semantics of streamed content, written plainly. */
function appendModel(content: ContentBlock[], added: ContentBlock): void {
  if (added.type === "text" && added["text"] === "") return;
  const last = content[content.length - 1];
  if (added.type === "text" && last?.type === "text") content[content.length - 1] = { ...last, text: `${String(last["text"])}${String(added["text"])}` };
  else content.push(added);
}

interface ModelItem {
  content: ContentBlock[];
  done: boolean;
  turnId: string | null;
}

function model(events: readonly AnyEvent[]): { messages: Map<string, ModelItem>; tools: Map<string, ModelItem> } {
  const messages = new Map<string, ModelItem>();
  const tools = new Map<string, ModelItem>();
  const item = (map: Map<string, ModelItem>, id: string, event: AnyEvent): ModelItem => {
    const found = map.get(id) ?? { content: [], done: false, turnId: null };
    found.turnId ??= event.turnId ?? null;
    map.set(id, found);
    return found;
  };
  for (const event of events) {
    const p = event.payload as { messageId?: string; toolCallId?: string; content?: ContentBlock | ContentBlock[] | null; status?: string };
    if (event.kind.endsWith("message_chunk") || event.kind === "agent_thought_chunk") {
      if (messages.get(p.messageId as string)?.done === true) continue;
      appendModel(item(messages, p.messageId as string, event).content, p.content as ContentBlock);
    } else if (event.kind === "agent_message") {
      const m = item(messages, p.messageId as string, event);
      if (p.content !== undefined) m.content = [...(p.content as ContentBlock[])];
      m.done = true;
    } else if (event.kind === "tool_call_content_chunk") {
      if (tools.get(p.toolCallId as string)?.done === true) continue;
      appendModel(item(tools, p.toolCallId as string, event).content, p.content as ContentBlock);
    } else if (event.kind === "tool_call_update") {
      const t = item(tools, p.toolCallId as string, event);
      if (p.content !== undefined) t.content = p.content === null ? [] : [...(p.content as ContentBlock[])];
      // Chunks append until the call's current status is terminal (a later status may reopen it).
      if (p.status !== undefined) t.done = p.status === "completed";
    }
  }
  return { messages, tools };
}

const RUNS = { numRuns: 300 };

describe("drafts: in-place folds that readers never see change", () => {
  test("property: no handed-out state, start state or event is ever written; load ≡ live ≡ resume", () => {
    fc.assert(
      fc.property(ledger, fc.nat(), (steps, cutSeed) => {
        const events = deepFreeze(stamp(steps));
        let live = deepFreeze(initialState("bs_1"));
        for (const event of events) live = deepFreeze(reduce(live, event));
        const load = storedProjectionFold.batch(() => events.reduce((state, event) => storedProjectionFold.fold(state, event), initialState("bs_1")));
        expect(plainState(load)).toStrictEqual(plainState(live));
        expect(load).toStrictEqual(live);
        const cut = cutSeed % (events.length + 1);
        const checkpoint = deepFreeze(JSON.parse(JSON.stringify(replay(events.slice(0, cut), initialState("bs_1")))) as ProjectionState);
        expect(replay(events.slice(cut), checkpoint)).toStrictEqual(live);
      }),
      RUNS,
    );
  });

  test("property: messages and tool calls hold what the old semantics say", () => {
    fc.assert(
      fc.property(ledger, (steps) => {
        const events = stamp(steps);
        const state = replay(events, initialState("bs_1"));
        const expected = model(events);
        for (const [id, m] of expected.messages) {
          const got = tableGet(state.messages, id);
          expect(got?.content).toEqual(m.content);
          expect(got?.status).toBe(m.done ? "completed" : "in_progress");
          expect<string | null | undefined>(got?.turnId).toBe(m.turnId);
        }
        for (const [id, t] of expected.tools) {
          expect(tableGet(state.toolCalls, id)?.content).toEqual(t.content);
          expect<string | null | undefined>(tableGet(state.toolCalls, id)?.turnId).toBe(t.turnId);
        }
      }),
      RUNS,
    );
  });

  test("a long stream into one message in one load: one block, the start state untouched", () => {
    const f = createEventFactory();
    const start = deepFreeze(replay([f.make("agent_message_chunk", { messageId: "m", content: { type: "text", text: "<" } }, { turn: "t_1" })], initialState()));
    const chunks = Array.from({ length: 5000 }, (_, i) => f.make("agent_message_chunk", { messageId: "m", content: { type: "text", text: String(i % 10) } }, { turn: "t_1" }));
    const state = replay(chunks, start);
    const content = tableGet(state.messages, "m")?.content ?? [];
    expect(content).toHaveLength(1);
    expect(content[0]).toEqual({ type: "text", text: `<${chunks.map((_, i) => String(i % 10)).join("")}` });
    expect(tableGet(start.messages, "m")?.content).toEqual([{ type: "text", text: "<" }]);
    expect(state.lastSeq).toBe(chunks.at(-1)?.seq ?? -1);
  });

  test("editable copies outside a draft and what it did not create; in a draft it returns what the draft created", () => {
    const outside = { a: 1 };
    expect(editable(outside)).not.toBe(outside);
    expect(owned(outside)).toBe(false);
    inDraft(() => {
      const copy = editable(outside);
      expect(copy).not.toBe(outside);
      expect(editable(copy)).toBe(copy);
      expect(owned(fresh([1]))).toBe(true);
    });
    expect(owned(outside)).toBe(false);
    const opened = openDraft();
    const inner = fresh({ b: 2 });
    closeDraft();
    expect(opened).toBe(true);
    expect(owned(inner)).toBe(false);
    expect(() => inDraft(() => { throw new Error("boom"); })).toThrow("boom");
    expect(owned(fresh({}))).toBe(false);
  });
});
