/**
 * `raw` stays bounded (issue 12.14): a wire message echoed verbatim (a 2 MB prompt in Codex's item/started,
 * a large tool output) is not stored a second time in `raw`; the line keeps a stand-in that says how large
 * it was and how it began. The payload — the one copy that counts — is untouched; small `raw`s are kept whole.
 */
import { afterEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EventDraft } from "../../src/event/envelope.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type BatonSessionId } from "../../src/shared/ids.ts";
import { openLedger } from "../../src/store/ledger.ts";
import { RAW_MAX_BYTES } from "../../src/store/ledger-files.ts";
import { readLedgerFile } from "../../src/store/ledger-read.ts";

const SESSION = "bs_00000000000000000000000001" as BatonSessionId;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function chunk(text: string, raw: unknown): EventDraft {
  return {
    kind: "agent_message",
    source: { type: "harness", harnessTargetId: "codex" },
    harnessTargetId: "codex",
    payload: { messageId: "m_1", content: [{ type: "text", text }] },
    raw,
  } as EventDraft;
}

test("a raw over the bound is replaced by its size and head; the payload and small raws are kept as they are", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-raw-"));
  dirs.push(dir);
  const file = path.join(dir, "session.jsonl");
  const ledger = openLedger({ path: file, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(1) });
  const big = "ünïcode prompt ".repeat(150_000); // ~2.4 MB as JSON
  const wire = { method: "item/started", params: { item: { type: "userMessage", content: [{ type: "text", text: big }] } } };
  const written = ledger.append(chunk(big, wire));
  ledger.append(chunk("small", { method: "item/completed", params: { id: 1 } }));
  await ledger.close();

  const size = fs.statSync(file).size;
  expect(size).toBeLessThan(Buffer.byteLength(big) + 4 * RAW_MAX_BYTES); // one copy of the prompt, not two
  const [first, second] = readLedgerFile(file);
  expect((first!.payload as { content: { text: string }[] }).content[0]!.text).toBe(big);
  const stand = first!.raw as { omitted: string; bytes: number; head: string };
  expect(stand.bytes).toBe(Buffer.byteLength(JSON.stringify(wire)));
  expect(stand.head.startsWith('{"method":"item/started"')).toBe(true);
  expect(stand.omitted).toContain(String(RAW_MAX_BYTES));
  expect(written.raw).toEqual(stand); // what is broadcast is what is on disk
  expect(second!.raw).toEqual({ method: "item/completed", params: { id: 1 } });
});

test("raw is written as the envelope's last key, wherever the draft put it (a load leaves it unparsed: ledger-load.ts)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-raw-"));
  dirs.push(dir);
  const file = path.join(dir, "session.jsonl");
  const ledger = openLedger({ path: file, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(1) });
  // As the host stamps an adapter's draft: the draft's keys (raw among them), then source and the target.
  const draft = { kind: "agent_message_chunk", payload: { messageId: "m_1", content: { type: "text", text: "Hi" } }, turnId: "t_1", raw: { method: "delta", params: { delta: "Hi" } }, source: { type: "harness", harnessTargetId: "codex" }, harness: "codex", harnessTargetId: "codex" };
  const written = ledger.append(draft as unknown as EventDraft);
  ledger.append(chunk("no raw", undefined));
  await ledger.close();
  const [line, second] = fs.readFileSync(file, "utf8").split("\n");
  expect(Object.keys(JSON.parse(line!)).at(-1)).toBe("raw");
  expect(line!.endsWith(`,"raw":${JSON.stringify(draft.raw)}}`)).toBe(true);
  expect(JSON.parse(line!)).toEqual(JSON.parse(JSON.stringify(written)));
  expect(Object.keys(JSON.parse(second!))).not.toContain("raw");
});
