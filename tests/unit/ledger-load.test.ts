/**
 * The load's read (`src/store/ledger-load.ts`): a read of 256 KiB parsed whole by Bun's JSONL parser when that is
 * provably the same as parsing its lines one by one, else line by line. Every line is still checked: a corrupt
 * line in a parsed chunk is refused naming `path:line` with the words the line reader uses (EV-04), a fold that
 * refuses an event fails the load at its line (ATT-05), and what the JSONL parser would read differently — a value
 * across two lines, a byte order mark, invalid UTF-8, blank lines — is read by lines, as before.
 */
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { initialState, plainState, storedProjectionFold } from "../../src/projection/index.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { describeError } from "../../src/shared/errors.ts";
import { createUlidSource, type BatonSessionId } from "../../src/shared/ids.ts";
import { loadState } from "../../src/store/checkpoint.ts";
import { openLedger } from "../../src/store/ledger.ts";
import { loadChunks } from "../../src/store/ledger-load.ts";
import { readLedgerFile } from "../../src/store/ledger-read.ts";

const SESSION = "bs_01KLEDGERLOAD0000000000000" as BatonSessionId;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-ledger-load-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const harness = { source: { type: "harness", harnessTargetId: "codex" }, harness: "codex", harnessTargetId: "codex", turnId: "t_1" };
const TEXT = "the quick brown fox jumps over the lazy dog ".repeat(20);

function envelope(seq: number, kind: string, payload: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { v: 3, eventId: `ev_${String(seq).padStart(8, "0")}`, seq, ts: "2026-01-01T00:00:00.000Z", scope: { type: "session", batonSessionId: SESSION }, kind, ...harness, payload, ...extra };
}

function chunk(seq: number): Record<string, unknown> {
  return envelope(seq, "agent_message_chunk", { messageId: `m_${Math.floor(seq / 100)}`, content: { type: "text", text: TEXT } }, { raw: { params: { delta: TEXT } } });
}

/** `count` chunk lines (~1.9 KB each: 600 are ~4.5 reads of 256 KiB), line `n` (1-based) replaced by `edit`. */
function ledgerWith(count: number, edits: Record<number, (line: string, seq: number) => string> = {}): string {
  const lines: string[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const line = JSON.stringify(chunk(seq));
    lines.push(edits[seq]?.(line, seq) ?? line);
  }
  const file = path.join(dir, `session-${Math.random().toString(36).slice(2)}.jsonl`);
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

type Outcome = { readonly json: string } | { readonly error: string };

function load(file: string): Outcome {
  const ledger = openLedger({ path: file, batonSessionId: SESSION, clock: systemClock, ids: createUlidSource(), readOnly: true });
  try {
    return { json: JSON.stringify(plainState(loadState(ledger, { ...storedProjectionFold, initial: () => initialState(SESSION) }, { useCheckpoint: false }).state)) };
  } catch (error) {
    return { error: describeError(error) };
  } finally {
    void ledger.close();
  }
}

/** The line reader's verdict on the same file (`readEventsFromFd`: decoded and checked line by line). */
function lineReaderError(file: string): string | undefined {
  try {
    readLedgerFile(file, SESSION);
    return undefined;
  } catch (error) {
    return describeError(error);
  }
}

/** Loads `file`; returns what it gave and how many chunks went each way during the load. */
function loadCounted(file: string): { readonly outcome: Outcome; readonly parsed: number; readonly byLine: number } {
  const before = { ...loadChunks };
  const outcome = load(file);
  return { outcome, parsed: loadChunks.parsed - before.parsed, byLine: loadChunks.byLine - before.byLine };
}

const LINE = 300; // in the third 256 KiB read

describe("a corrupt line in a chunk the JSONL parser reads is refused naming path:line (EV-04)", () => {
  const cases: Record<string, (line: string, seq: number) => string> = {
    "an older envelope version": (line) => line.replace('"v":3', '"v":2'),
    "an invalid payload": (line) => line.replace(/"messageId":"m_\d+"/, '"messageId":""'),
    "a seq that does not increase": (line) => line.replace(`"seq":${LINE}`, '"seq":3'),
    "another session's scope": (line) => line.replace(SESSION, "bs_someone_else"),
    "a missing payload": (line) => line.replace(/"payload":\{"messageId":"m_\d+","content":\{[^}]*\}\},/, ""),
    "a scalar": () => "42",
  };
  for (const [name, edit] of Object.entries(cases)) {
    test(name, () => {
      const file = ledgerWith(600, { [LINE]: edit });
      const { outcome, parsed, byLine } = loadCounted(file);
      const expected = lineReaderError(file);
      expect(expected).toContain(`corrupt ledger line ${file}:${LINE}: `);
      expect(outcome).toEqual({ error: expected! });
      expect(parsed).toBeGreaterThanOrEqual(2); // the corrupt line was met in a parsed chunk, not by the line reader
      expect(byLine).toBe(0);
    });
  }

  test("a delivery attempt `accepted` before `prepared`: the fold refuses it at its line (ATT-05)", () => {
    const file = ledgerWith(600, {
      [LINE]: (_line, seq) => JSON.stringify(envelope(seq, "_baton_delivery_attempt_update", { attemptId: "att_1", phase: "accepted" }, { source: { type: "baton" } })),
    });
    const { outcome, parsed } = loadCounted(file);
    expect(outcome).toEqual({ error: `corrupt ledger line ${file}:${LINE}: delivery attempt att_1: attempt phase 'accepted' before 'prepared'` });
    expect(parsed).toBeGreaterThanOrEqual(2);
  });
});

describe("what the JSONL parser would read differently is read line by line", () => {
  test("a value across two lines is two corrupt lines, not one event (the first is refused)", () => {
    // The JSONL parser takes `{…,\n…}` as one value; the ledger's rule is one event per line.
    const file = ledgerWith(600, { [LINE]: (line) => line.replace('"kind":', '\n"kind":') });
    const { outcome, byLine } = loadCounted(file);
    expect(outcome).toEqual({ error: lineReaderError(file)! });
    expect((outcome as { error: string }).error).toContain(`corrupt ledger line ${file}:${LINE}: invalid JSON`);
    expect(byLine).toBe(1);
  });

  test("a byte order mark before the first line is refused, as the line reader refuses it", () => {
    const file = ledgerWith(10);
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fs.readFileSync(file)]));
    const { outcome, byLine } = loadCounted(file);
    expect((outcome as { error: string }).error).toContain(`corrupt ledger line ${file}:1: invalid JSON`);
    expect(byLine).toBe(1);
  });

  test("invalid UTF-8 in a text: the same replacement characters as the line reader", () => {
    const file = ledgerWith(600);
    const bytes = fs.readFileSync(file);
    const at = bytes.indexOf('"text":"the quick', bytes.length - 5000) + '"text":"the '.length;
    bytes[at] = 0xff; // a lone continuation byte where the "q" was
    fs.writeFileSync(file, bytes);
    const { outcome, byLine } = loadCounted(file);
    expect(byLine).toBe(1);
    let state = initialState(SESSION);
    for (const event of readLedgerFile(file, SESSION)) state = storedProjectionFold.fold(state, event);
    expect(outcome).toEqual({ json: JSON.stringify(plainState(state)) });
    expect((outcome as { json: string }).json).toContain("the \ufffduick");
  });

  test("blank and CRLF lines in one chunk, parsed chunks after it: the same state, and line numbers still true", () => {
    const file = ledgerWith(900, { 10: (line) => `${line}\n   `, 20: (line) => `${line}\r`, 850: (line) => line.replace('"v":3', '"v":4') });
    const { outcome, parsed, byLine } = loadCounted(file);
    expect(byLine).toBe(1);
    expect(parsed).toBeGreaterThanOrEqual(2);
    // 850 events and one blank line before the edited event: it is line 851.
    expect(outcome).toEqual({ error: lineReaderError(file)! });
    expect((outcome as { error: string }).error).toContain(`corrupt ledger line ${file}:851: envelope version 4`);
  });

  test("a clean ledger opens from parsed chunks only, to the state the line reader's events fold to", () => {
    const file = ledgerWith(600);
    const { outcome, parsed, byLine } = loadCounted(file);
    expect(byLine).toBe(0);
    expect(parsed).toBeGreaterThanOrEqual(2);
    let state = initialState(SESSION);
    for (const event of readLedgerFile(file, SESSION)) state = storedProjectionFold.fold(state, event);
    expect(outcome).toEqual({ json: JSON.stringify(plainState(state)) });
  });
});
