import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import fsModule from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ManualClock } from "../../src/shared/clock.ts";
import { BatonError } from "../../src/shared/errors.ts";
import { MAX_LOG_ITEMS, MAX_LOG_STRING } from "../../src/store/log-bounds.ts";
import { createSessionLog, readLogRecords, type LogRecord, type SessionLog, type SessionLogOptions } from "../../src/store/session-log.ts";

const dirs: string[] = [];
const logs: SessionLog[] = [];

afterEach(async () => {
  for (const log of logs.splice(0)) await log.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-log-"));
  dirs.push(dir);
  return dir;
}

function newLog(extra: Partial<SessionLogOptions> = {}) {
  const dir = tempDir();
  const clock = new ManualClock();
  const log = createSessionLog({ path: path.join(dir, "session.log"), batonSessionId: "bs_1", clock, ...extra });
  logs.push(log);
  return { dir, clock, log };
}

describe("session log (LOG-01/02)", () => {
  test("with min level warn, info records are absent; the file is 0600", async () => {
    const { dir, log } = newLog({ minLevel: "warn" });
    log.log("info", "chatty");
    log.log("warn", "degraded");
    log.log("error", "failed");
    await log.flush();
    expect(readLogRecords(dir).map((record) => record.message)).toEqual(["degraded", "failed"]);
    expect(fs.statSync(path.join(dir, "session.log")).mode & 0o777).toBe(0o600);
    log.setMinLevel("debug");
    log.log("debug", "now visible");
    await log.close();
    expect(readLogRecords(dir).at(-1)?.message).toBe("now visible");
  });

  test("records carry the LOG-01 fields; children stamp component and harness attribution", async () => {
    const { dir, log } = newLog();
    const child = log.child("codex-adapter", { harness: "codex", harnessTargetId: "codex-work" });
    const cause = new Error("socket closed");
    const error = new BatonError("harness_dead", "codex exited", { cause });
    child.log("error", "turn failed", { turnId: "t_1", error, attributes: { exitCode: 1 } });
    log.log("info", "plain");
    await log.flush();
    const [failed, plain] = readLogRecords(dir);
    expect(failed).toMatchObject({
      timestamp: "2026-01-01T00:00:00.000Z",
      batonSessionId: "bs_1",
      level: "error",
      source: "harness",
      component: "codex-adapter",
      message: "turn failed",
      harness: "codex",
      harnessTargetId: "codex-work",
      turnId: "t_1",
      error: { name: "BatonError", message: "codex exited", code: "harness_dead", cause: { name: "Error", message: "socket closed" } },
      attributes: { exitCode: 1 },
    });
    expect(failed?.error?.stack).toContain("codex exited");
    expect(plain).toEqual({
      timestamp: "2026-01-01T00:00:00.000Z",
      batonSessionId: "bs_1",
      level: "info",
      source: "baton",
      component: "baton",
      message: "plain",
    });
  });

  test("host-stamped provenance cannot be overridden by the caller's fields", async () => {
    const { dir, log } = newLog();
    const plugin = log.childWith("plugin", { source: "plugin", pluginId: "p@mkt", pluginInstanceId: "pi_1", harnessTargetId: "codex" });
    plugin.log("info", "hello", { harnessTargetId: "forged" });
    await log.flush();
    expect(readLogRecords(dir)[0]).toMatchObject({ source: "plugin", pluginId: "p@mkt", pluginInstanceId: "pi_1", harnessTargetId: "codex" });
  });

  test("values are bounded: long strings, many items, deep nesting, cycles", async () => {
    const { dir, log } = newLog();
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic["self"] = cyclic;
    const deep = { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } };
    log.log("info", "bounded", {
      attributes: {
        long: "x".repeat(MAX_LOG_STRING + 500),
        many: Array.from({ length: 150 }, (_, i) => i),
        deep,
        cyclic,
        big: 12n,
        when: new Date(0),
        fn: function named() {},
      },
    });
    await log.flush();
    const attributes = readLogRecords(dir)[0]?.attributes as Record<string, unknown>;
    expect((attributes["long"] as string).startsWith("x".repeat(MAX_LOG_STRING))).toBe(true);
    expect(attributes["long"]).toEndWith("…[500 more chars]");
    expect(attributes["many"]).toHaveLength(MAX_LOG_ITEMS + 1);
    expect((attributes["many"] as unknown[]).at(-1)).toBe("…[50 more items]");
    expect(attributes["deep"]).toEqual({ a: { b: { c: { d: "[object]" } } } });
    expect(attributes["cyclic"]).toEqual({ name: "loop", self: "[circular]" });
    expect(attributes["big"]).toBe("12n");
    expect(attributes["when"]).toBe("1970-01-01T00:00:00.000Z");
    expect(attributes["fn"]).toBe("[function named]");
  });

  test("an entry over 64 KiB is replaced by a stub", async () => {
    const { dir, log } = newLog();
    const attributes = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, "y".repeat(8000)]));
    log.log("warn", "huge", { attributes });
    await log.flush();
    const [stub] = readLogRecords(dir);
    expect(stub?.message).toBe("huge");
    expect(stub?.attributes).toMatchObject({ truncated: true });
    expect((stub?.attributes as { originalBytes: number }).originalBytes).toBeGreaterThan(64 * 1024);
    expect(fs.statSync(path.join(dir, "session.log")).size).toBeLessThan(1024);
  });

  test("writes happen off the caller's stack, in order", async () => {
    const { dir, log } = newLog();
    for (let i = 0; i < 50; i++) log.log("info", `m${i}`);
    expect(fs.existsSync(path.join(dir, "session.log"))).toBe(false);
    await log.flush();
    expect(readLogRecords(dir).map((record) => record.message)).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
  });

  test("records logged in separate tasks share a write; flush writes at once; a lone record lands by itself", async () => {
    const original = fsModule.write;
    let writes = 0;
    fsModule.write = ((...args: Parameters<typeof fsModule.write>) => {
      writes++;
      return (original as (...rest: unknown[]) => void)(...args);
    }) as typeof fsModule.write;
    try {
      // As the native trace logs a stream's wire messages: each in a task of its own, a millisecond apart.
      const { dir, log } = newLog({ coalesceMs: 60_000 });
      for (let i = 0; i < 20; i++) {
        log.log("info", `m${i}`);
        await Bun.sleep(1);
      }
      expect(writes).toBe(0);
      await log.flush();
      expect(writes).toBe(1); // one per record before
      expect(readLogRecords(dir).map((record) => record.message)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
      // Without a flush, a record reaches the file once the coalescing delay is over.
      const lone = newLog({ coalesceMs: 20 });
      lone.log.log("info", "alone");
      for (let waited = 0; readLogRecords(lone.dir).at(-1)?.message !== "alone"; waited += 5) {
        if (waited > 5000) throw new Error("a lone record never reached the file without a flush");
        await Bun.sleep(5);
      }
    } finally {
      fsModule.write = original;
    }
  });

  test("a full queue drops entries and later writes a warning carrying the count", async () => {
    const { dir, log } = newLog({ maxQueueBytes: 64 * 1024 });
    const total = 100;
    for (let i = 0; i < total; i++) log.log("info", `entry ${i}`, { attributes: { pad: "z".repeat(2000) } });
    await log.flush();
    const records = readLogRecords(dir);
    const warning = records.find((record) => record.message.endsWith("log entries were dropped"));
    expect(warning).toBeDefined();
    const dropped = (warning?.attributes as { dropped: number }).dropped;
    expect(dropped).toBeGreaterThan(0);
    expect(records.length - 1 + dropped).toBe(total);
    expect(warning?.level).toBe("warn");
  });

  test("rotates at the size limit keeping one .1; readLogRecords reads .1 then the current file", async () => {
    const { dir, clock, log } = newLog({ maxFileBytes: 4096 });
    for (let i = 0; i < 120; i++) {
      clock.advance(1);
      log.log("info", `line ${i}`, { attributes: { pad: "p".repeat(100) } });
      if (i % 10 === 9) await log.flush();
    }
    await log.close();
    expect(fs.readdirSync(dir).sort()).toEqual(["session.log", "session.log.1"]);
    expect(fs.statSync(path.join(dir, "session.log")).size).toBeLessThanOrEqual(4096);
    expect(fs.statSync(path.join(dir, "session.log.1")).mode & 0o777).toBe(0o600);
    const records = readLogRecords(dir);
    expect(records.at(-1)?.message).toBe("line 119");
    const times = records.map((record: LogRecord) => record.timestamp);
    expect([...times].sort()).toEqual(times);
    expect(records.length).toBeLessThan(120);
  });

  test("failures never reach the caller; logging resumes when the file becomes writable", async () => {
    const dir = tempDir();
    const nested = path.join(dir, "not-yet");
    const log = createSessionLog({ path: path.join(nested, "session.log"), batonSessionId: "bs_1", clock: new ManualClock() });
    logs.push(log);
    const hostile = {
      get boom(): never {
        throw new Error("getter throws");
      },
    };
    expect(() => log.log("info", "lost", { attributes: hostile })).not.toThrow();
    expect(() => log.log("info", "lost too")).not.toThrow();
    await log.flush();
    fs.mkdirSync(nested);
    log.log("info", "back");
    await log.flush();
    const records = readLogRecords(nested);
    expect(records.map((record) => record.message)).toEqual(["back", "2 log entries were dropped"]);
  });

  test("a log the app forgets to close raises nothing when garbage-collected", async () => {
    const dir = tempDir();
    await (async () => {
      const forgotten = createSessionLog({ path: path.join(dir, "session.log"), batonSessionId: "bs_1", clock: new ManualClock() });
      forgotten.log("info", "never closed");
      await forgotten.flush();
    })();
    Bun.gc(true);
    await Bun.sleep(20);
    Bun.gc(true);
    expect(readLogRecords(dir).map((record) => record.message)).toEqual(["never closed"]);
  });

  test("after close, records are dropped silently", async () => {
    const { dir, log } = newLog();
    log.log("info", "before");
    await log.close();
    log.log("info", "after");
    await log.flush();
    expect(readLogRecords(dir).map((record) => record.message)).toEqual(["before"]);
  });

  test("readLogRecords skips damaged lines and a torn last record", () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, "session.log"),
      `${JSON.stringify({ level: "info", message: "ok" })}\nnot json\n{"level":"info","message":"tor`,
    );
    expect(readLogRecords(dir).map((record) => record.message)).toEqual(["ok"]);
    expect(readLogRecords(path.join(dir, "missing"))).toEqual([]);
  });
});
