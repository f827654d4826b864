/**
 * Every line the ledger writes is exactly the JSON of the event `append` returned plus a newline, whichever way it
 * was encoded (#18): a short line straight into the batch buffer, a longer one measured first (and its `raw` cut
 * when over the bound), one larger than the batch written with it; streamed chunks batched, other kinds at once, in
 * any mix, in any characters (ASCII, 2-, 3- and 4-byte UTF-8, lone surrogates), around the lengths where the paths
 * meet. Read back from disk, byte for byte.
 */
import { afterEach, expect, test } from "bun:test";
import fc from "fast-check";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EventDraft } from "../../src/event/envelope.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type BatonSessionId } from "../../src/shared/ids.ts";
import { openLedger } from "../../src/store/ledger.ts";
import { RAW_MAX_BYTES } from "../../src/store/ledger-files.ts";

const SESSION = "bs_00000000000000000000000001" as BatonSessionId;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const piece = fc.constantFrom("a", "ü", "€", "😀", "\ud800", "\n", '"', "\\");
/** Texts around the lengths where the encodings meet: a third of the raw bound in characters, the bound, and small. */
const text = fc
  .tuple(piece, fc.constantFrom(1, 40, Math.floor(RAW_MAX_BYTES / 3) - 200, Math.floor(RAW_MAX_BYTES / 3) - 90, Math.floor(RAW_MAX_BYTES / 3), RAW_MAX_BYTES / 2, RAW_MAX_BYTES), fc.integer({ min: 0, max: 120 }))
  .map(([p, n, extra]) => p.repeat(Math.max(1, Math.floor(n / p.length)) + extra));

function draft(kind: "chunk" | "message", body: string, withRaw: boolean): EventDraft {
  const payload = kind === "chunk" ? { messageId: "m_1", content: { type: "text", text: body } } : { messageId: "m_1", content: [{ type: "text", text: body }] };
  return {
    kind: kind === "chunk" ? "agent_message_chunk" : "agent_message",
    source: { type: "harness", harnessTargetId: "codex" },
    harnessTargetId: "codex",
    payload,
    ...(withRaw ? { raw: { method: "item/agentMessage/delta", params: { delta: body } } } : {}),
  } as EventDraft;
}

test("each line on disk is the returned event's JSON and a newline, for short, measured and batch-sized lines", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom("chunk", "message") as fc.Arbitrary<"chunk" | "message">, text, fc.boolean()), { minLength: 1, maxLength: 12 }), async (drafts) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-lines-"));
      dirs.push(dir);
      const file = path.join(dir, "session.jsonl");
      const ledger = openLedger({ path: file, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(1) });
      const written = drafts.map(([kind, body, withRaw]) => JSON.stringify(ledger.append(draft(kind, body, withRaw))));
      await ledger.close();
      expect(fs.readFileSync(file)).toEqual(Buffer.from(written.map((json) => `${json}\n`).join("")));
    }),
    { numRuns: 60 },
  );
});

test("a line larger than the chunk batch is written whole, between the chunks before and after it", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-lines-"));
  dirs.push(dir);
  const file = path.join(dir, "session.jsonl");
  const ledger = openLedger({ path: file, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(1) });
  const written = [
    ledger.append(draft("chunk", "before", true)),
    ledger.append(draft("chunk", "€".repeat(600_000), false)),
    ledger.append(draft("chunk", "after", true)),
    ledger.append(draft("message", "done", true)),
  ].map((event) => `${JSON.stringify(event)}\n`);
  expect(Buffer.byteLength(written[1]!)).toBeGreaterThan(1024 * 1024);
  await ledger.close();
  expect(fs.readFileSync(file, "utf8")).toBe(written.join(""));
});
