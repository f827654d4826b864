/**
 * The load's fast fold ≡ the full reduce. An open without a checkpoint reads the ledger a read's lines at a time
 * (`forEachEvent`, store/ledger-read.ts) and folds it in one draft, where runs of streamed chunks extend their text block
 * directly (`projection/stream-tail.ts`). On generated ledgers — random mixes of chunks into a few messages,
 * turns changing mid-run, empty and non-text blocks, completed messages, tool calls, unknown kinds, unicode and
 * escapes in the text, blank and CRLF lines, malformed lines, a torn final line — `loadState` must give the
 * state (deep-equal, and the same JSON) or the error (the same message) that folding the events one by one,
 * each `reduceStored` in its own draft, gives. The load does not parse `raw` (the projection never reads it): lines
 * with `raw` last (as the store writes it), before `source` and the turn (as older Batons wrote it), holding
 * `,"raw":`, `"source":` and nested `raw` keys, a line that lost its newline and one with a zeroed block must
 * still give what the full read gives.
 */
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { initialState, plainState, reduceStored, storedProjectionFold, type ProjectionState } from "../../src/projection/index.ts";
import { streamTail } from "../../src/projection/stream-tail.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { describeError } from "../../src/shared/errors.ts";
import { createUlidSource, type BatonSessionId } from "../../src/shared/ids.ts";
import { loadState } from "../../src/store/checkpoint.ts";
import { openLedger } from "../../src/store/ledger.ts";
import { LedgerLineError } from "../../src/store/ledger-read.ts";
import { forEachEvent, loadChunks } from "../../src/store/ledger-load.ts";

const SESSION = "bs_01KFASTFOLD00000000000000000" as BatonSessionId;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-fast-fold-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom("", "\n", '"quoted"', "back\\slash", "tab\there", "\u0000\u001f", "é漢字🙂", "\ud800 lone", "\r\n") },
);
const messageId = fc.constantFrom("m1", "m2", "m3", "");
const turnId = fc.constantFrom("t_1", "t_2", undefined);
const chunkKind = fc.constantFrom("agent_message_chunk", "agent_message_chunk", "agent_thought_chunk", "user_message_chunk");

/** A tool call update's optional fields: each omitted, null, or one of a few values (a repeat of what is stored included). */
const toolFields = fc.record(
  {
    title: fc.constantFrom(null, "Run tests", "Read file"),
    kind: fc.constantFrom(null, "execute", "read"),
    status: fc.constantFrom(null, "pending", "in_progress", "completed", "failed"),
    content: fc.constantFrom(null, [], [{ type: "text", text: "out" }], [{ type: "text", text: "more out" }, { type: "image", mimeType: "image/png", data: "AA==" }]),
    locations: fc.constantFrom(null, [], [{ path: "a.ts" }], [{ path: "b.ts", line: 3 }]),
    rawInput: fc.constantFrom(null, { command: ["ls"] }, "text", 0),
    rawOutput: fc.constantFrom(null, { exitCode: 0 }, [1, 2]),
  },
  { requiredKeys: [] },
);

/** A wire message as `raw` keeps it, with what a cut at `,"raw":` must not be fooled by. */
const wire = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    { raw: { raw: 1 }, source: "x" },
    { text: ',"raw":{"source":1}', eventId: "not the key" },
    { params: { delta: '"}\\', turnId: "turn-1" } },
    [',"raw":', '"source":', "}"],
    "\u0000 escaped, not a byte",
  ),
);

/** What one line of the generated ledger is: an event (folded) or something a reader has to deal with. */
const entry = fc.oneof(
  { weight: 100, arbitrary: fc.record({ t: fc.constant("chunk" as const), kind: chunkKind, messageId, turnId, text }) },
  { weight: 100, arbitrary: fc.record({ t: fc.constant("run" as const), kind: chunkKind, messageId, turnId, texts: fc.array(text, { maxLength: 30 }) }) },
  { weight: 20, arbitrary: fc.record({ t: fc.constant("image" as const), kind: chunkKind, messageId, turnId }) },
  { weight: 20, arbitrary: fc.record({ t: fc.constant("complete" as const), messageId, turnId, text }) },
  { weight: 20, arbitrary: fc.record({ t: fc.constant("state" as const), turnId, state: fc.constantFrom("running", "idle") }) },
  { weight: 20, arbitrary: fc.record({ t: fc.constant("tool" as const), turnId, id: fc.constantFrom("c1", "c2"), text }) },
  { weight: 10, arbitrary: fc.record({ t: fc.constant("toolChunk" as const), turnId, id: fc.constantFrom("c1", "c2"), text }) },
  // Tool call updates with every field omitted, null or set (and set to what it already holds), as they start and complete.
  { weight: 30, arbitrary: fc.record({ t: fc.constant("toolUpdate" as const), turnId, id: fc.constantFrom("c1", "c2", "c3"), fields: toolFields }) },
  { weight: 10, arbitrary: fc.record({ t: fc.constant("usage" as const), turnId, inputTokens: fc.option(fc.nat(50), { nil: undefined }), outputTokens: fc.option(fc.nat(5), { nil: undefined }), isEstimated: fc.option(fc.boolean(), { nil: undefined }) }) },
  { weight: 10, arbitrary: fc.record({ t: fc.constant("plan" as const), turnId, planId: fc.constantFrom("p1", "p2"), statuses: fc.array(fc.constantFrom("pending", "in_progress", "completed"), { maxLength: 3 }) }) },
  { weight: 8, arbitrary: fc.record({ t: fc.constant("summary" as const), turnId: fc.constantFrom("t_1", "t_2"), text }) },
  { weight: 8, arbitrary: fc.record({ t: fc.constant("retryError" as const), turnId, willRetry: fc.boolean() }) },
  { weight: 10, arbitrary: fc.record({ t: fc.constant("unknown" as const), turnId }) },
  { weight: 10, arbitrary: fc.constant({ t: "blank" as const }) },
  { weight: 10, arbitrary: fc.constant({ t: "crlf" as const }) },
  { weight: 10, arbitrary: fc.record({ t: fc.constant("raw" as const), raw: fc.jsonValue({ maxDepth: 3 }) }) },
  { weight: 20, arbitrary: fc.record({ t: fc.constant("rawLast" as const), kind: chunkKind, messageId, turnId, text, raw: wire }) },
  { weight: 10, arbitrary: fc.record({ t: fc.constant("rawFirst" as const), kind: chunkKind, messageId, turnId: fc.constantFrom("t_1", "t_2"), text, raw: wire }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("glued" as const), text }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("zeroed" as const), text }) },
  { weight: 2, arbitrary: fc.constantFrom({ t: "badJson" as const }, { t: "badPayload" as const }, { t: "badSeq" as const }, { t: "foreign" as const }) },
);
type Entry = typeof entry extends fc.Arbitrary<infer T> ? T : never;

const harness = { source: { type: "harness", harnessTargetId: "codex" }, harness: "codex", harnessTargetId: "codex" };

function lineOf(e: Entry, seq: number): string {
  const base = { v: 3, eventId: `ev_${String(seq).padStart(6, "0")}`, seq, ts: "2026-01-01T00:00:00.000Z", scope: { type: "session", batonSessionId: SESSION } };
  const turn = "turnId" in e && e.turnId !== undefined ? { turnId: e.turnId } : {};
  const json = (event: object): string => JSON.stringify(event);
  switch (e.t) {
    case "run":
      throw new Error("runs are expanded before writing");
    case "chunk":
      return json({ ...base, kind: e.kind, ...harness, ...turn, payload: { messageId: e.messageId, content: { type: "text", text: e.text } }, raw: { method: "delta", params: { delta: e.text } } });
    case "image":
      return json({ ...base, kind: e.kind, ...harness, ...turn, payload: { messageId: e.messageId || "m1", content: { type: "image", mimeType: "image/png", data: "AA==" } } });
    case "complete":
      return json({ ...base, kind: "agent_message", ...harness, ...turn, payload: { messageId: e.messageId || "m1", content: [{ type: "text", text: e.text }] } });
    case "state":
      return json({ ...base, kind: "state_update", source: { type: "baton" }, ...turn, payload: { state: e.state, ...(e.state === "idle" ? { stopReason: "end_turn" } : {}) } });
    case "tool":
      return json({ ...base, kind: "tool_call_update", ...harness, ...turn, payload: { toolCallId: e.id, status: "in_progress", content: [{ type: "text", text: e.text }] } });
    case "toolUpdate":
      return json({ ...base, kind: "tool_call_update", ...harness, ...turn, payload: { toolCallId: e.id, ...e.fields } });
    case "usage":
      return json({ ...base, kind: "usage_update", ...harness, ...turn, payload: { ...(e.inputTokens === undefined ? {} : { inputTokens: e.inputTokens }), ...(e.outputTokens === undefined ? {} : { outputTokens: e.outputTokens }), ...(e.isEstimated === undefined ? {} : { isEstimated: e.isEstimated }) } });
    case "plan":
      return json({ ...base, kind: "plan_update", ...harness, ...turn, payload: { planId: e.planId, entries: e.statuses.map((status, i) => ({ content: `step ${i}`, priority: "high", status })) } });
    case "summary":
      return json({ ...base, kind: "_baton_turn_summary", source: { type: "baton" }, turnId: e.turnId, payload: { turnId: e.turnId, role: "driven", stopReason: "end_turn", userText: e.text, agentText: e.text, toolCalls: [], usage: { inputTokens: 1 } } });
    case "retryError":
      return json({ ...base, kind: "_baton_error_update", source: { type: "baton" }, ...turn, payload: { message: "overloaded", willRetry: e.willRetry } });
    case "toolChunk":
      return json({ ...base, kind: "tool_call_content_chunk", ...harness, ...turn, payload: { toolCallId: e.id, content: { type: "text", text: e.text } } });
    case "unknown":
      return json({ ...base, kind: "some_future_kind", source: { type: "baton" }, ...turn, payload: { anything: [1, 2] } });
    case "raw":
      return json({ ...base, kind: "agent_message_chunk", ...harness, payload: { messageId: "m1", content: { type: "text", text: "r" } }, raw: e.raw });
    case "rawLast":
      return json({ ...base, kind: e.kind, ...harness, ...turn, payload: { messageId: e.messageId || "m1", content: { type: "text", text: e.text } }, raw: e.raw });
    case "rawFirst":
      // As a Baton before `raw` went last wrote a harness's event: the draft's keys, `raw`, then the binding's stamps.
      return json({ ...base, kind: e.kind, payload: { messageId: e.messageId || "m1", content: { type: "text", text: e.text } }, raw: e.raw, turnId: e.turnId, ...harness });
    case "glued": {
      // A line that lost the end of its `raw` and its newline: the next event is inside it.
      const next = json({ ...base, eventId: "ev_glued", kind: "agent_message_chunk", ...harness, payload: { messageId: "m3", content: { type: "text", text: "glued" } } });
      return `${json({ ...base, kind: "agent_message_chunk", ...harness, payload: { messageId: "m1", content: { type: "text", text: e.text } } }).slice(0, -1)},"raw":{"delta":"${next}`;
    }
    case "zeroed": {
      // A block the file system zeroed after a crash, inside `raw`.
      const line = json({ ...base, kind: "agent_message_chunk", ...harness, payload: { messageId: "m1", content: { type: "text", text: e.text } }, raw: { params: { delta: "0123456789" } } });
      const at = line.lastIndexOf("0123456789");
      return `${line.slice(0, at)}${"\u0000".repeat(8)}${line.slice(at + 8)}`;
    }
    case "blank":
      return "   ";
    case "crlf":
      return `${json({ ...base, kind: "agent_message_chunk", ...harness, payload: { messageId: "m2", content: { type: "text", text: "crlf" } } })}\r`;
    case "badJson":
      return `{"v":3,"seq":${seq},"kind":"agent_message_chunk",`;
    case "badPayload":
      return json({ ...base, kind: "agent_message_chunk", ...harness, payload: { messageId: "", content: { type: "text", text: "x" } } });
    case "badSeq":
      return json({ ...base, seq: 1, kind: "agent_message_chunk", ...harness, payload: { messageId: "m1", content: { type: "text", text: "x" } } });
    case "foreign":
      return json({ ...base, scope: { type: "session", batonSessionId: "bs_other" }, kind: "agent_message_chunk", ...harness, payload: { messageId: "m1", content: { type: "text", text: "x" } } });
  }
}

function writeLedger(entries: readonly Entry[], torn: string | undefined): string {
  const file = path.join(dir, `session-${Math.random().toString(36).slice(2)}.jsonl`);
  const flat = entries.flatMap((e): Entry[] => (e.t === "run" ? e.texts.map((t) => ({ t: "chunk", kind: e.kind, messageId: e.messageId, turnId: e.turnId, text: t })) : [e]));
  const lines = flat.map((e, i) => lineOf(e, i + 1));
  fs.writeFileSync(file, lines.map((l) => `${l}\n`).join("") + (torn ?? ""));
  return file;
}

type Outcome = { readonly state: unknown; readonly json: string } | { readonly error: string };

function outcomeOf(run: () => ProjectionState): Outcome {
  try {
    const state = plainState(run());
    return { state, json: JSON.stringify(state) };
  } catch (error) {
    return { error: describeError(error) };
  }
}

/** The reference: the same open, then the events as `ledger.readEvents` yields them, each folded by `reduceStored` in its own draft. */
function referenceFold(file: string): Outcome {
  return outcomeOf(() => {
    const ledger = openLedger({ path: file, batonSessionId: SESSION, clock: systemClock, ids: createUlidSource(), readOnly: true });
    try {
      let state = initialState(SESSION);
      for (const located of ledger.readEvents()) {
        try {
          state = reduceStored(state, located.event);
        } catch (error) {
          throw new LedgerLineError(file, located.line ?? "?", describeError(error), error);
        }
      }
      return state;
    } finally {
      void ledger.close();
    }
  });
}

function loadFold(file: string): Outcome {
  return outcomeOf(() => {
    const ledger = openLedger({ path: file, batonSessionId: SESSION, clock: systemClock, ids: createUlidSource(), readOnly: true });
    try {
      return loadState(ledger, { ...storedProjectionFold, initial: () => initialState(SESSION) }, { useCheckpoint: false }).state;
    } finally {
      void ledger.close();
    }
  });
}

/** `loadFold` with reads of `chunkBytes`: a ledger's chunks then go both ways (parsed whole, or by lines) in one load; `raw` parsed or not. */
function chunkedLoadFold(file: string, chunkBytes: number, withoutRaw: boolean): Outcome {
  return outcomeOf(() => {
    // Opened as `loadFold` opens it (the open reads and checks the last line), then read with its own fd.
    const ledger = openLedger({ path: file, batonSessionId: SESSION, clock: systemClock, ids: createUlidSource(), readOnly: true });
    const fd = fs.openSync(file, "r");
    try {
      return storedProjectionFold.batch(() => {
        let state = initialState(SESSION);
        forEachEvent(fd, file, 0, ledger.byteLength, 1, { batonSessionId: SESSION, withoutRaw }, (event) => (state = storedProjectionFold.fold(state, event)), chunkBytes);
        return state;
      });
    } finally {
      fs.closeSync(fd);
      void ledger.close();
    }
  });
}

describe("the load's fast fold", () => {
  test("≡ the full reduce, event by event, on generated ledgers (state deep-equal, or the same error)", () => {
    const extendedBefore = streamTail.extended;
    const chunksBefore = { ...loadChunks };
    let errors = 0;
    let states = 0;
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), fc.option(fc.constantFrom('{"v":3,"seq":', "{}", "x"), { nil: undefined }), fc.integer({ min: 16, max: 2048 }), (entries, torn, chunkBytes) => {
        const file = writeLedger(entries, torn);
        const expected = referenceFold(file);
        const actual = loadFold(file);
        const chunked = chunkedLoadFold(file, chunkBytes, false);
        const chunkedLean = chunkedLoadFold(file, chunkBytes, true);
        fs.rmSync(file);
        expect(actual).toEqual(expected);
        expect(chunked).toEqual(expected);
        expect(chunkedLean).toEqual(expected);
        if ("error" in expected) errors++;
        else states++;
      }),
      { numRuns: 400 },
    );
    // Not vacuous: the tail folded chunks, some ledgers opened and some were refused.
    expect(streamTail.extended - extendedBefore).toBeGreaterThan(100);
    expect(states).toBeGreaterThan(50);
    expect(errors).toBeGreaterThan(5);
    // Both ways of reading a chunk were taken (Bun's JSONL parser, and line by line).
    expect(loadChunks.parsed - chunksBefore.parsed).toBeGreaterThan(30);
    expect(loadChunks.byLine - chunksBefore.byLine).toBeGreaterThan(30);
    // Lines were parsed without their `raw`.
    expect(loadChunks.rawLeftOut - chunksBefore.rawLeftOut).toBeGreaterThan(100);
  });

  test("a ledger written before raw went last is scanned for cuts one chunk in 16, and its newer lines are cut again", () => {
    const older: Entry[] = Array.from({ length: 400 }, (_, i) => ({ t: "rawFirst", kind: "agent_message_chunk", messageId: "m1", turnId: "t_1", text: `old ${i} `, raw: { delta: `old ${i}` } }));
    const newer: Entry[] = Array.from({ length: 400 }, (_, i) => ({ t: "rawLast", kind: "agent_message_chunk", messageId: "m2", turnId: "t_1", text: `new ${i} `, raw: { delta: `new ${i}` } }));
    const file = writeLedger([...older, ...newer], undefined);
    const before = { ...loadChunks };
    const chunked = chunkedLoadFold(file, 1024, true);
    const scans = loadChunks.leanScans - before.leanScans;
    const chunks = loadChunks.parsed + loadChunks.byLine - before.parsed - before.byLine;
    expect(chunked).toEqual(referenceFold(file));
    fs.rmSync(file);
    // Two lines a chunk: the older half is tried once in 16 chunks, the newer half at every chunk (cut within 16).
    expect(chunks).toBeGreaterThan(300);
    expect(scans).toBeLessThan(chunks * 0.6);
    expect(scans).toBeGreaterThan(chunks * 0.4);
    expect(loadChunks.rawLeftOut - before.rawLeftOut).toBeGreaterThan(400 - 2 * 16);
  });

  test("a long run of chunks with unicode and escapes: one text block, the same as the full reduce", () => {
    const pieces = ["plain ", "é漢字🙂 ", '"quoted" ', "back\\slash\n", "\u0001", "", "end"];
    const entries: Entry[] = [];
    for (let i = 0; i < 500; i++) entries.push({ t: "chunk", kind: "agent_message_chunk", messageId: i < 250 ? "m1" : "m2", turnId: "t_1", text: pieces[i % pieces.length] ?? "" });
    const file = writeLedger(entries, '{"v":3,"seq":501');
    const expected = referenceFold(file);
    expect(loadFold(file)).toEqual(expected);
    expect("state" in expected && JSON.stringify(expected.state).includes("é漢字🙂")).toBe(true);
  });
});

/** The upsert rules of a tool call (EV-05) as a plain model: omitted keeps, `null` clears to the blank value, a value replaces; a `null` status is ignored. */
function modelToolCalls(updates: ReadonlyArray<{ readonly id: string; readonly turnId: string | undefined; readonly fields: Record<string, unknown> }>): Record<string, unknown> {
  const blank: Record<string, unknown> = { title: null, kind: null, content: [], locations: [], rawInput: null, rawOutput: null };
  const calls: Record<string, Record<string, unknown>> = {};
  updates.forEach((u, i) => {
    const call = (calls[u.id] ??= { toolCallId: u.id, title: null, kind: null, status: "pending", content: [], locations: [], rawInput: null, rawOutput: null, turnId: u.turnId ?? null, harnessTargetId: "codex", firstSeq: i + 1 });
    for (const key of Object.keys(blank)) if (key in u.fields) call[key] = u.fields[key] === null ? blank[key] : u.fields[key];
    if (u.fields["status"] !== undefined && u.fields["status"] !== null) call["status"] = u.fields["status"];
    call["turnId"] ??= u.turnId ?? null;
  });
  return calls;
}

test("tool call updates — a call's first update and in-place updates of a call the load created — ≡ a plain model of the upsert rules", () => {
  fc.assert(
    fc.property(fc.array(fc.record({ id: fc.constantFrom("c1", "c2", "c3"), turnId, fields: toolFields }), { minLength: 1, maxLength: 12 }), (updates) => {
      const file = writeLedger(updates.map((u) => ({ t: "toolUpdate" as const, ...u })), undefined);
      const loaded = loadFold(file);
      const reference = referenceFold(file);
      fs.rmSync(file);
      const model = modelToolCalls(updates);
      if (!("state" in loaded) || !("state" in reference)) throw new Error("a tool call ledger did not open");
      expect((loaded.state as { toolCalls: unknown }).toolCalls).toEqual(model);
      expect((reference.state as { toolCalls: unknown }).toolCalls).toEqual(model);
    }),
    { numRuns: 300 },
  );
});
