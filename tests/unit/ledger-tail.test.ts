import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import type { EventDraft } from "../../src/event/envelope.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type BatonSessionId } from "../../src/shared/ids.ts";
import { openLedger, type OpenLedgerOptions } from "../../src/store/ledger.ts";
import { readLines } from "../../src/store/ledger-lines.ts";
import { readLedgerFile, scanLedger } from "../../src/store/ledger-read.ts";
import { thrownBatonError } from "../support/errors.ts";

const SESSION = "bs_00000000000000000000000001" as BatonSessionId;
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-tail-"));
  dirs.push(dir);
  return dir;
}

let nextIdBlock = 1000;

/** Each open gets fresh ids, so reopened ledgers never mint an eventId twice. */
function options(file: string, clock = new ManualClock()): OpenLedgerOptions {
  nextIdBlock += 1000;
  return { path: file, batonSessionId: SESSION, clock, ids: createSequentialIdSource(nextIdBlock) };
}

function notice(title: string): EventDraft {
  return { kind: "_baton_notice", source: { type: "baton" }, payload: { level: "info", title } };
}

/** Write `count` events through a ledger and return the file path and each line's end offset. */
function writeLedger(count: number, titles: (i: number) => string = (i) => `event ${i} ✓`): { file: string; ends: number[] } {
  const file = path.join(tempDir(), "session.jsonl");
  const ledger = openLedger(options(file));
  const ends: number[] = [];
  for (let i = 1; i <= count; i++) {
    ledger.append(notice(titles(i)));
    ends.push(ledger.byteLength);
  }
  return { file, ends };
}


describe("torn tail (EV-04)", () => {
  test("given a last line cut mid-JSON, readers ignore it and the first append moves it to a .partial sidecar", () => {
    const { file, ends } = writeLedger(3);
    const full = fs.readFileSync(file);
    const cut = (ends[1] ?? 0) + 17;
    fs.truncateSync(file, cut);
    const fragment = full.subarray(ends[1], cut);

    expect(readLedgerFile(file).map((event) => event.seq)).toEqual([1, 2]);
    const clock = new ManualClock(Date.parse("2026-03-01T00:00:00.000Z"));
    const ledger = openLedger(options(file, clock));
    expect(ledger.lastSeq).toBe(2);
    expect(ledger.tornTailBytes).toBe(17);
    expect(fs.statSync(file).size).toBe(cut); // opening alone changes nothing

    expect(ledger.append(notice("after repair")).seq).toBe(3);
    const sidecar = `${file}.partial-${clock.now()}`;
    expect(fs.readFileSync(sidecar)).toEqual(fragment);
    expect(fs.statSync(sidecar).mode & 0o777).toBe(0o600);
    expect(readLedgerFile(file).map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(scanLedger(file).problems).toEqual([]);
  });

  test("a file holding only a torn line opens at seq 0 and repairs to a clean ledger", () => {
    const file = path.join(tempDir(), "session.jsonl");
    fs.writeFileSync(file, '{"v":3,"eventId":"ev_x","se');
    const ledger = openLedger(options(file));
    expect(ledger.lastSeq).toBe(0);
    expect(ledger.byteLength).toBe(0);
    ledger.append(notice("first"));
    expect(readLedgerFile(file).map((event) => event.seq)).toEqual([1]);
    expect(fs.readdirSync(path.dirname(file)).filter((name) => name.includes(".partial-"))).toHaveLength(1);
  });

  test("a read-only open never repairs", () => {
    const { file, ends } = writeLedger(2);
    fs.truncateSync(file, (ends[0] ?? 0) + 5);
    const ledger = openLedger({ ...options(file), readOnly: true });
    expect(ledger.lastSeq).toBe(1);
    expect(fs.statSync(file).size).toBe((ends[0] ?? 0) + 5);
  });

  test("property: truncating the file at any byte loses at most the torn event and the rest loads", () => {
    const { file, ends } = writeLedger(6, (i) => `e${i} ${"ü".repeat(i * 3)} 🚀`);
    const original = fs.readFileSync(file);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: original.byteLength }), (cut) => {
        fs.writeFileSync(file, original.subarray(0, cut));
        const complete = ends.filter((end) => end <= cut).length;
        expect(readLedgerFile(file).map((event) => event.seq)).toEqual(Array.from({ length: complete }, (_, i) => i + 1));
        const ledger = openLedger(options(file));
        expect(ledger.lastSeq).toBe(complete);
        expect(ledger.append(notice("resume")).seq).toBe(complete + 1);
        expect(readLedgerFile(file)).toHaveLength(complete + 1);
        for (const name of fs.readdirSync(path.dirname(file))) {
          if (name.includes(".partial-")) fs.unlinkSync(path.join(path.dirname(file), name));
        }
      }),
      { numRuns: 150 },
    );
  });

  test("a last line longer than the 64 KiB tail window is found", () => {
    const big = "x".repeat(200_000);
    const { file } = writeLedger(3, (i) => (i === 3 ? big : `small ${i}`));
    const ledger = openLedger(options(file));
    expect(ledger.lastSeq).toBe(3);
    expect(ledger.byteLength).toBe(fs.statSync(file).size);
    fs.appendFileSync(file, `{"v":3,${"y".repeat(150_000)}`); // a long torn tail too
    const reopened = openLedger(options(file));
    expect(reopened.lastSeq).toBe(3);
    expect(reopened.tornTailBytes).toBe(150_007);
  });

  test("blank lines and CRLF terminators are tolerated", () => {
    const { file } = writeLedger(2);
    const text = fs.readFileSync(file, "utf8").replace("\n", "\r\n\n   \n");
    fs.writeFileSync(file, `${text}\n`);
    expect(readLedgerFile(file).map((event) => event.seq)).toEqual([1, 2]);
    expect(openLedger(options(file)).lastSeq).toBe(2);
  });
});

describe("corrupt lines", () => {
  test("a corrupt middle line is ledger_corrupt naming the file and 1-based line", () => {
    const { file } = writeLedger(4);
    const lines = fs.readFileSync(file, "utf8").split("\n");
    lines[2] = '{"v":3, this is not json';
    fs.writeFileSync(file, lines.join("\n"));
    const error = thrownBatonError(() => readLedgerFile(file));
    expect(error.code).toBe("ledger_corrupt");
    expect(error.message).toContain(`${file}:3`);
    // Opening still works (only the tail is read) but reading through the bad line fails the same way.
    const ledger = openLedger(options(file));
    expect(ledger.lastSeq).toBe(4);
    const viaLedger = thrownBatonError(() => [...ledger.readEvents()]);
    expect(viaLedger.message).toContain(`${file}:3`);
  });

  test("reading from a byte offset still reports the true line number", () => {
    const { file, ends } = writeLedger(5);
    const lines = fs.readFileSync(file, "utf8").split("\n");
    lines[3] = '{"v":3,"eventId":"ev_1","seq":4}'; // valid JSON, not an envelope
    fs.writeFileSync(file, lines.join("\n"));
    const ledger = openLedger(options(file));
    const error = thrownBatonError(() => [...ledger.readEvents({ fromOffset: ends[1] ?? 0 })]);
    expect(error.message).toContain(`${file}:4`);
    expect(error.message).toContain("missing 'kind'");
  });

  test("a corrupt last complete line is a hard error at open", () => {
    const { file } = writeLedger(2);
    fs.appendFileSync(file, "garbage\n");
    const error = thrownBatonError(() => openLedger(options(file)));
    expect(error.code).toBe("ledger_corrupt");
    expect(error.message).toContain(`${file}:3`);
  });

  test("unknown kinds are kept by readers (EV-08)", () => {
    const { file } = writeLedger(1);
    fs.appendFileSync(
      file,
      `${JSON.stringify({ v: 3, eventId: "ev_future", seq: 2, ts: "2026-01-01T00:00:00.000Z", scope: { type: "session", batonSessionId: SESSION }, source: { type: "baton" }, kind: "from_the_future", payload: { x: 1 } })}\n`,
    );
    expect(readLedgerFile(file).map((event) => event.kind)).toEqual(["_baton_notice", "from_the_future"]);
    expect(openLedger(options(file)).lastSeq).toBe(2);
  });
});

describe("scanLedger (doctor)", () => {
  test("reports every problem without throwing", () => {
    const { file } = writeLedger(5);
    const lines = fs.readFileSync(file, "utf8").split("\n");
    lines[1] = "not json";
    const third = JSON.parse(lines[2] ?? "{}") as Record<string, unknown>;
    lines[2] = JSON.stringify({ ...third, payload: { level: "loud" } }); // invalid payload
    const fourth = JSON.parse(lines[3] ?? "{}") as Record<string, unknown>;
    lines[3] = JSON.stringify({ ...fourth, seq: 1 }); // seq goes backwards
    fs.writeFileSync(file, `${lines.join("\n")}{"torn`);
    const scan = scanLedger(file, SESSION);
    expect(scan.problems.map((problem) => [problem.kind, problem.line])).toEqual([
      ["corrupt_line", 2],
      ["invalid_payload", 3],
      ["seq_not_increasing", 4],
      ["torn_tail", undefined],
    ]);
    expect(scan.events).toBe(4);
    expect(scan.lastSeq).toBe(5);
    expect(scan.tornTailBytes).toBe(6);
  });

  test("flags events scoped to another session and unreadable files", () => {
    const { file } = writeLedger(1);
    expect(scanLedger(file, "bs_someone_else").problems.map((problem) => problem.kind)).toEqual(["foreign_scope"]);
    expect(scanLedger(path.join(tempDir(), "missing.jsonl")).problems.map((problem) => problem.kind)).toEqual(["unreadable"]);
  });
});

describe("line splitter", () => {
  test("property: any chunk size yields the same lines, byte offsets and line numbers as a naive split", () => {
    const file = path.join(tempDir(), "lines.jsonl");
    const lineArb = fc.oneof(fc.string({ maxLength: 12, unit: "grapheme" }), fc.constant(""), fc.constant("  "), fc.constant("x\r"));
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 12 }), fc.integer({ min: 1, max: 40 }), fc.string({ maxLength: 5 }), (lines, chunk, torn) => {
        const clean = lines.map((line) => line.replace(/\n/g, ""));
        const body = clean.map((line) => `${line}\n`).join("");
        const tail = torn.replace(/\n/g, "");
        fs.writeFileSync(file, body + tail);
        const expected: Array<{ text: string; start: number; end: number; line: number }> = [];
        let offset = 0;
        clean.forEach((line, index) => {
          const bytes = Buffer.byteLength(line) + 1;
          const text = line.endsWith("\r") ? line.slice(0, -1) : line;
          if (text.trim().length > 0) expected.push({ text, start: offset, end: offset + bytes, line: index + 1 });
          offset += bytes;
        });
        const fd = fs.openSync(file, "r");
        try {
          expect([...readLines(fd, 0, Buffer.byteLength(body), 1, chunk)]).toEqual(expected);
        } finally {
          fs.closeSync(fd);
        }
      }),
      { numRuns: 300 },
    );
  });
});
