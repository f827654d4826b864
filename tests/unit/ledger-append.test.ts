import { afterEach, describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { AnyEvent, EventDraft } from "../../src/event/envelope.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { isBatonError } from "../../src/shared/errors.ts";
import { createSequentialIdSource, type BatonSessionId, type TurnId } from "../../src/shared/ids.ts";
import type { Logger, LogLevel } from "../../src/shared/log.ts";
import { nodeLedgerIo, openLedger, type LedgerIo, type OpenLedgerOptions } from "../../src/store/ledger.ts";
import { readLedgerFile } from "../../src/store/ledger-read.ts";
import { SessionPipeline } from "../../src/controller/pipeline.ts";
import { silentLogger } from "../../src/shared/log.ts";

const SESSION = "bs_00000000000000000000000001" as BatonSessionId;
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempLedgerPath(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-ledger-"));
  dirs.push(dir);
  return path.join(dir, "session.jsonl");
}

function options(file: string, extra: Partial<OpenLedgerOptions> = {}): OpenLedgerOptions {
  return { path: file, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(), ...extra };
}

/** A line that is written at once (streamed `*_chunk` kinds are batched; see "streamed chunks" below). */
function chunk(text: string, messageId = "m_1"): EventDraft {
  return {
    kind: "tool_call_update",
    source: { type: "harness", harnessTargetId: "codex" },
    harness: "codex",
    harnessTargetId: "codex",
    turnId: "t_1" as TurnId,
    payload: { toolCallId: messageId, title: text },
    raw: { method: "item/agentMessage/delta", params: { delta: text } },
  };
}

function streamed(text: string): EventDraft {
  return {
    kind: "agent_message_chunk",
    source: { type: "harness", harnessTargetId: "codex" },
    turnId: "t_1" as TurnId,
    payload: { messageId: "m_1", content: { type: "text", text } },
  };
}

/** The session's one broadcaster over a ledger (the ledger itself only writes): append → tell listeners. */
function broadcaster(ledger: ReturnType<typeof openLedger>, log: Logger = silentLogger): SessionPipeline<null> {
  return new SessionPipeline(ledger, null, () => null, log);
}

function recordingLogger(): Logger & { entries: Array<{ level: LogLevel; message: string }> } {
  const entries: Array<{ level: LogLevel; message: string }> = [];
  const logger = {
    entries,
    log(level: LogLevel, message: string) {
      entries.push({ level, message });
    },
    child() {
      return logger;
    },
  };
  return logger;
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated`), { code });
}

describe("ledger append (EV-01..EV-03)", () => {
  test("given a draft, when appended, then the store stamps v, eventId, seq, ts and scope and overrides draft values", () => {
    const file = tempLedgerPath();
    const ledger = openLedger(options(file));
    const forged = { ...chunk("hi"), v: 99, seq: 42, eventId: "ev_forged", scope: { type: "session", batonSessionId: "bs_other" } };
    const event = ledger.append(forged as unknown as EventDraft);
    expect(event.v).toBe(3);
    expect(event.seq).toBe(1);
    expect(event.eventId as string).toBe("ev_00000000000000000000000001");
    expect(event.ts).toBe("2026-01-01T00:00:00.000Z");
    expect(event.scope).toEqual({ type: "session", batonSessionId: SESSION });
    const stored = readLedgerFile(file);
    expect(stored).toEqual([event]);
    expect(Object.keys(stored[0] as object).slice(0, 5)).toEqual(["v", "eventId", "seq", "ts", "scope"]);
  });

  test("raw wire is kept verbatim", () => {
    const file = tempLedgerPath();
    const ledger = openLedger(options(file));
    const raw = { jsonrpc: "2.0", method: "x", params: { nested: [1, "two", { three: null }], unicode: "é 🚀" } };
    ledger.append({ ...chunk("a"), raw });
    expect(readLedgerFile(file)[0]?.raw).toEqual(raw);
  });

  test("given a ledger with events, when reopened, then seq continues from the last stored value", async () => {
    const file = tempLedgerPath();
    const ids = createSequentialIdSource();
    const first = openLedger(options(file, { ids }));
    for (let i = 0; i < 5; i++) first.append(chunk(`c${i}`));
    await first.close();
    const second = openLedger(options(file, { ids }));
    expect(second.lastSeq).toBe(5);
    expect(second.position.eventId).toBe("ev_00000000000000000000000005");
    expect(second.byteLength).toBe(fs.statSync(file).size);
    expect(second.append(chunk("next")).seq).toBe(6);
    expect(readLedgerFile(file).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test("an empty or missing ledger starts at seq 1", () => {
    const file = tempLedgerPath();
    const ledger = openLedger(options(file));
    expect(ledger.lastSeq).toBe(0);
    expect(ledger.position).toEqual({ seq: 0, byteOffset: 0, eventId: undefined });
    expect(ledger.append(chunk("x")).seq).toBe(1);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  test.each([
    ["an invalid known payload", { ...chunk("x"), payload: { toolCallId: "" } }, /invalid tool_call_update payload/],
    ["a draft without source", { kind: "agent_message_chunk", payload: { messageId: "m", content: { type: "text", text: "x" } } }, /no source/],
    ["a draft without kind", { source: { type: "baton" }, payload: {} }, /no kind/],
    ["a payload that cannot be serialized", { ...chunk("x"), raw: { big: 10n } }, /cannot be serialized/],
  ])("%s is a contract_violation and nothing is written", (_name, draft, message) => {
    const file = tempLedgerPath();
    const ledger = openLedger(options(file));
    const pipeline = broadcaster(ledger);
    const seen: AnyEvent[] = [];
    pipeline.subscribe((event) => seen.push(event));
    let thrown: unknown;
    try {
      pipeline.append(draft as unknown as EventDraft);
    } catch (error) {
      thrown = error;
    }
    expect(isBatonError(thrown, "contract_violation")).toBe(true);
    expect((thrown as Error).message).toMatch(message);
    expect(fs.statSync(file).size).toBe(0);
    expect(ledger.lastSeq).toBe(0);
    expect(seen).toEqual([]);
  });

  test("listeners get each event after it is written, with its position", () => {
    const file = tempLedgerPath();
    const ledger = openLedger(options(file));
    const pipeline = broadcaster(ledger);
    const seen: Array<{ seq: number; sizeAtBroadcast: number; byteOffset: number }> = [];
    pipeline.subscribe((event) => {
      seen.push({ seq: event.seq, sizeAtBroadcast: fs.statSync(file).size, byteOffset: ledger.position.byteOffset });
    });
    pipeline.append(chunk("a"));
    pipeline.append(chunk("b"));
    expect(seen.map((entry) => entry.seq)).toEqual([1, 2]);
    for (const entry of seen) expect(entry.sizeAtBroadcast).toBe(entry.byteOffset);
  });

  test("a throwing listener is logged and neither fails the write nor starves other listeners", () => {
    const file = tempLedgerPath();
    const log = recordingLogger();
    const ledger = openLedger(options(file, { log }));
    const pipeline = broadcaster(ledger, log);
    const seen: number[] = [];
    pipeline.subscribe(() => {
      throw new Error("listener bug");
    });
    pipeline.subscribe((event) => seen.push(event.seq));
    expect(pipeline.append(chunk("a")).seq).toBe(1);
    expect(seen).toEqual([1]);
    expect(log.entries).toEqual([{ level: "error", message: "an event listener threw; the event is stored regardless" }]);
    expect(readLedgerFile(file)).toHaveLength(1);
  });

  test("a listener that appends does not reorder what other listeners see", () => {
    const file = tempLedgerPath();
    const pipeline = broadcaster(openLedger(options(file)));
    const first: number[] = [];
    const second: number[] = [];
    pipeline.subscribe((event) => {
      first.push(event.seq);
      if (event.seq === 1) pipeline.append(chunk("reaction"));
    });
    pipeline.subscribe((event) => second.push(event.seq));
    pipeline.append(chunk("a"));
    expect(first).toEqual([1, 2]);
    expect(second).toEqual([1, 2]);
  });

  test("unsubscribe stops delivery", () => {
    const pipeline = broadcaster(openLedger(options(tempLedgerPath())));
    const seen: number[] = [];
    const stop = pipeline.subscribe((event) => seen.push(event.seq));
    pipeline.append(chunk("a"));
    stop();
    pipeline.append(chunk("b"));
    expect(seen).toEqual([1]);
  });

  test("given a full disk, append throws disk_full naming the file and the bytes, seq does not advance, nothing is broadcast, and the ledger stops", async () => {
    const file = tempLedgerPath();
    let full = false;
    const io: LedgerIo = {
      ...nodeLedgerIo,
      writeSync(fd, data) {
        if (full) throw errno("ENOSPC");
        return nodeLedgerIo.writeSync(fd, data);
      },
    };
    const ledger = openLedger(options(file, { io }));
    const pipeline = broadcaster(ledger);
    const seen: number[] = [];
    pipeline.subscribe((event) => seen.push(event.seq));
    pipeline.append(chunk("a"));
    full = true;
    let thrown: unknown;
    try {
      pipeline.append(chunk("b"));
    } catch (error) {
      thrown = error;
    }
    expect(isBatonError(thrown, "disk_full")).toBe(true);
    expect((thrown as Error).message).toMatch(/^the disk is full: could not append to .*session\.jsonl \(\d+ B to write, [\d.]+ [KMG]?B free there\)$/);
    expect(ledger.lastSeq).toBe(1);
    expect(seen).toEqual([1]);
    expect(ledger.writeFailure).toBe(thrown as never);
    // Space comes back, but this ledger writes nothing more (its listeners may have seen more than the disk has).
    full = false;
    expect(() => ledger.append(chunk("c"))).toThrow(thrown as Error);
    await ledger.close();
    const reopened = openLedger(options(file));
    expect(reopened.append(chunk("c")).seq).toBe(2);
    expect(readLedgerFile(file).map((event) => event.seq)).toEqual([1, 2]);
    await reopened.close();
  });

  test("given a short write then an error, the partial line is truncated away at once and the ledger stops", async () => {
    const file = tempLedgerPath();
    let mode: "ok" | "partial" = "ok";
    let calls = 0;
    const io: LedgerIo = {
      ...nodeLedgerIo,
      writeSync(fd, data) {
        if (mode === "partial") {
          calls++;
          if (calls === 1) return nodeLedgerIo.writeSync(fd, Buffer.from(data).subarray(0, 10));
          throw errno("EIO");
        }
        return nodeLedgerIo.writeSync(fd, data);
      },
    };
    const ledger = openLedger(options(file, { io }));
    ledger.append(chunk("a"));
    const goodSize = fs.statSync(file).size;
    mode = "partial";
    expect(() => ledger.append(chunk("b"))).toThrow(expect.objectContaining({ code: "ledger_io" }));
    expect(fs.statSync(file).size).toBe(goodSize);
    mode = "ok";
    expect(() => ledger.append(chunk("c"))).toThrow(expect.objectContaining({ code: "ledger_io" }));
    await ledger.close();
    const reopened = openLedger(options(file));
    expect(reopened.tornTailBytes).toBe(0);
    expect(reopened.append(chunk("c")).seq).toBe(2);
    expect(readLedgerFile(file).map((event) => (event.payload as { title: string }).title)).toEqual(["a", "c"]);
    await reopened.close();
  });

  test("a short write without an error is completed, byte-exact even for multi-byte text", () => {
    const file = tempLedgerPath();
    const io: LedgerIo = {
      ...nodeLedgerIo,
      writeSync(fd, data) {
        const bytes = typeof data === "string" ? Buffer.from(data) : data;
        return nodeLedgerIo.writeSync(fd, bytes.subarray(0, Math.min(bytes.byteLength, 7)));
      },
    };
    const ledger = openLedger(options(file, { io }));
    ledger.append(chunk("héllo 🚀 wörld"));
    ledger.append(chunk("second"));
    expect(ledger.byteLength).toBe(fs.statSync(file).size);
    expect(readLedgerFile(file).map((event) => (event.payload as { title: string }).title)).toEqual([
      "héllo 🚀 wörld",
      "second",
    ]);
  });

  test("sync and appendDurable fdatasync; concurrent syncs share one call", async () => {
    const file = tempLedgerPath();
    let syncs = 0;
    const io: LedgerIo = {
      ...nodeLedgerIo,
      fdatasync: async (fd) => {
        syncs++;
        await nodeLedgerIo.fdatasync(fd);
      },
    };
    const ledger = openLedger(options(file, { io }));
    const event = await ledger.appendDurable(chunk("before side effect"));
    expect(event.seq).toBe(1);
    expect(syncs).toBe(1);
    await ledger.sync(); // nothing new
    expect(syncs).toBe(1);
    ledger.append(chunk("x"));
    await Promise.all([ledger.sync(), ledger.sync(), ledger.sync()]);
    expect(syncs).toBe(2);
    await ledger.close();
    expect(syncs).toBe(2);
  });

  test("a failing fdatasync rejects with a BatonError", async () => {
    const io: LedgerIo = { ...nodeLedgerIo, fdatasync: () => Promise.reject(errno("EIO")) };
    const ledger = openLedger(options(tempLedgerPath(), { io }));
    ledger.append(chunk("x"));
    await expect(ledger.sync()).rejects.toMatchObject({ code: "ledger_io" });
  });

  test("read-only and closed ledgers refuse appends", async () => {
    const file = tempLedgerPath();
    const writer = openLedger(options(file));
    writer.append(chunk("a"));
    const reader = openLedger(options(file, { readOnly: true }));
    expect(reader.lastSeq).toBe(1);
    expect(() => reader.append(chunk("b"))).toThrow(/read-only/);
    await writer.close();
    expect(() => writer.append(chunk("b"))).toThrow(/closed/);
  });

  test("opening a missing ledger read-only is session_not_found", () => {
    expect(() => openLedger(options(tempLedgerPath(), { readOnly: true }))).toThrow(
      expect.objectContaining({ code: "session_not_found" }),
    );
  });

  test("readEvents yields events with their byte offsets, from any line boundary", () => {
    const file = tempLedgerPath();
    const ledger = openLedger(options(file));
    const positions = [1, 2, 3].map((n) => {
      ledger.append(chunk(`c${n}`));
      return ledger.position;
    });
    const all = [...ledger.readEvents()];
    expect(all.map((located) => located.end)).toEqual(positions.map((position) => position.byteOffset));
    const tail = [...ledger.readEvents({ fromOffset: positions[0]?.byteOffset ?? 0 })];
    expect(tail.map((located) => located.event.seq)).toEqual([2, 3]);
  });

  test("appended lines survive kill -9 of the writing process right after append returns", async () => {
    const file = tempLedgerPath();
    const ledgerModule = path.resolve(import.meta.dir, "../../src/store/ledger.ts");
    const script = `
      const { openLedger } = await import(${JSON.stringify(ledgerModule)});
      const { systemClock } = await import(${JSON.stringify(path.resolve(import.meta.dir, "../../src/shared/clock.ts"))});
      const { createUlidSource } = await import(${JSON.stringify(path.resolve(import.meta.dir, "../../src/shared/ids.ts"))});
      const ledger = openLedger({ path: ${JSON.stringify(file)}, batonSessionId: "bs_x", clock: systemClock, ids: createUlidSource() });
      for (let i = 0; i < 200; i++) ledger.append({ kind: "_baton_notice", source: { type: "baton" }, payload: { level: "info", title: "n" + i } });
      process.kill(process.pid, "SIGKILL");
    `;
    const child = Bun.spawn([path.resolve("node_modules/.bin/bun"), "-e", script], { stdout: "ignore", stderr: "pipe" });
    const code = await child.exited;
    expect(child.signalCode ?? code).toBe("SIGKILL");
    const events = readLedgerFile(file);
    expect(events).toHaveLength(200);
    expect(events.at(-1)?.seq).toBe(200);
  });
});

describe("streamed chunks are batched (issue 2 durability rules)", () => {
  test("the first streamed chunk after open allocates no batch buffer (its 1 MiB set off a GC inside the first append, #18)", async () => {
    const ledger = openLedger(options(tempLedgerPath()));
    const allocations: number[] = [];
    const allocUnsafe = spyOn(Buffer, "allocUnsafe").mockImplementation(((size: number) => (allocations.push(size), new Uint8Array(size))) as never);
    try {
      ledger.append(streamed("first"));
    } finally {
      allocUnsafe.mockRestore();
    }
    expect(allocations.filter((size) => size >= 64 * 1024)).toEqual([]);
    await ledger.close();
    expect(readLedgerFile(ledger.path).map((event) => event.kind)).toEqual(["agent_message_chunk"]);
  });

  test("chunks are broadcast at once and written with the next line, in seq order, in one write", () => {
    const file = tempLedgerPath();
    const writes: number[] = [];
    const io: LedgerIo = { ...nodeLedgerIo, writeSync: (fd, data) => (writes.push(1), nodeLedgerIo.writeSync(fd, data)) };
    const ledger = openLedger(options(file, { io }));
    const pipeline = broadcaster(ledger);
    const heard: number[] = [];
    pipeline.subscribe((event) => heard.push(event.seq));
    pipeline.append(streamed("a"));
    pipeline.append(streamed("b"));
    expect(heard).toEqual([1, 2]);
    expect(fs.statSync(file).size).toBe(0);
    ledger.append(chunk("a full line"));
    expect(writes.length).toBe(1);
    expect(readLedgerFile(file).map((event) => event.seq)).toEqual([1, 2, 3]);
  });

  test("a timer writes a quiet stream within a few milliseconds", async () => {
    const file = tempLedgerPath();
    const ledger = openLedger(options(file));
    ledger.append(streamed("a"));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(readLedgerFile(file).length).toBe(1);
  });

  test("sync, position and close write pending chunks first", async () => {
    const file = tempLedgerPath();
    const ledger = openLedger(options(file));
    ledger.append(streamed("a"));
    expect(ledger.position.byteOffset).toBe(fs.statSync(file).size);
    ledger.append(streamed("b"));
    await ledger.sync();
    expect(readLedgerFile(file).length).toBe(2);
    ledger.append(streamed("c"));
    await ledger.close();
    expect(readLedgerFile(file).length).toBe(3);
  });

  test("a failed background chunk flush stops the ledger at once (listeners told); reopening continues with a contiguous seq", async () => {
    const file = tempLedgerPath();
    let failing = false;
    const io: LedgerIo = {
      ...nodeLedgerIo,
      writeSync: (fd, data) => {
        if (failing) throw errno("ENOSPC");
        return nodeLedgerIo.writeSync(fd, data);
      },
    };
    const ledger = openLedger(options(file, { io, log: recordingLogger() }));
    const failures: string[] = [];
    ledger.onWriteFailure((error) => failures.push(error.code));
    ledger.append(chunk("kept"));
    failing = true;
    expect(ledger.append(streamed("lost")).seq).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(failures).toEqual(["disk_full"]);
    // the chunk that never reached the disk no longer counts
    expect(ledger.lastSeq).toBe(1);
    failing = false;
    expect(() => ledger.append(chunk("after"))).toThrow(/disk is full/);
    expect(failures).toEqual(["disk_full"]);
    await ledger.close();
    const reopened = openLedger(options(file));
    reopened.append(chunk("after"));
    await reopened.close();
    expect(readLedgerFile(file).map((event) => `${event.seq}:${event.kind}`)).toEqual(["1:tool_call_update", "2:tool_call_update"]);
  });
});
