import { describe, expect, test } from "bun:test";
import { JsonRpcError, JsonRpcPeer, type JsonRpcTransport } from "../../src/rpc/jsonrpc.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { isBatonError } from "../../src/shared/errors.ts";
import type { Logger, LogLevel } from "../../src/shared/log.ts";

/** An in-memory transport: `feed` what the other side writes, read what we sent from `sent`. */
function memoryTransport() {
  const queue: (Uint8Array | string | Error | null)[] = [];
  let wake: (() => void) | undefined;
  const sent: Record<string, unknown>[] = [];
  let ended = false;
  const input: AsyncIterable<Uint8Array | string> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const next = queue.shift();
        if (next === null || next === undefined) return;
        if (next instanceof Error) throw next;
        yield next;
      }
    },
  };
  const push = (item: Uint8Array | string | Error | null) => {
    queue.push(item);
    wake?.();
  };
  const transport: JsonRpcTransport = {
    input,
    write(line) {
      if (ended) throw new Error("EPIPE");
      sent.push(JSON.parse(line) as Record<string, unknown>);
    },
    end() {
      ended = true;
    },
  };
  return {
    transport,
    sent,
    feed: (chunk: string | Uint8Array) => push(chunk),
    eof: () => push(null),
    fail: (error: Error) => push(error),
    get ended() {
      return ended;
    },
  };
}

function recordingLog() {
  const lines: { level: LogLevel; message: string }[] = [];
  const log: Logger = {
    log(level, message) {
      lines.push({ level, message });
    },
    child() {
      return log;
    },
  };
  return { log, lines };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("JsonRpcPeer", () => {
  test("request/response, including a response split across chunks and out-of-order replies", async () => {
    const t = memoryTransport();
    const peer = new JsonRpcPeer({ transport: t.transport });
    void peer.start();
    const a = peer.request("a", { x: 1 });
    const b = peer.request("b", undefined);
    expect(t.sent).toEqual([{ id: 1, method: "a", params: { x: 1 } }, { id: 2, method: "b" }]);
    t.feed('{"id":2,"result":"B"}\n{"id":1,"res');
    t.feed(new TextEncoder().encode('ult":{"ok":true}}\r\n'));
    expect(await b).toBe("B");
    expect(await a).toEqual({ ok: true });
  });

  test("an answer's awaiter runs before the lines read after it in the same chunk (wire order, as a loaded machine reads several lines at once)", async () => {
    const t = memoryTransport();
    const seen: string[] = [];
    const peer = new JsonRpcPeer({ transport: t.transport, onNotification: (method) => seen.push(method) });
    void peer.start();
    // Three awaits deep, as a steer's answer reaches the controller through the session and the adapter.
    const session = async () => {
      await peer.request("turn/steer", {});
      return "accepted";
    };
    const adapter = async () => await session();
    const controller = (async () => seen.push(`steer ${await adapter()}`))();
    t.feed('{"id":1,"result":{}}\n{"method":"item/completed"}\n{"method":"turn/completed"}\n');
    await controller;
    await tick();
    expect(seen).toEqual(["steer accepted", "item/completed", "turn/completed"]);
  });

  test("error responses reject with JsonRpcError carrying code and message", async () => {
    const t = memoryTransport();
    const peer = new JsonRpcPeer({ transport: t.transport });
    void peer.start();
    const p = peer.request("turn/steer", {});
    t.feed('{"id":1,"error":{"code":-32600,"message":"no active turn to steer"}}\n');
    const error = await p.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32600);
    expect((error as JsonRpcError).message).toBe("no active turn to steer");
    expect((error as JsonRpcError).method).toBe("turn/steer");
  });

  test("server-initiated requests use their own id space and are answered", async () => {
    const t = memoryTransport();
    const seen: unknown[] = [];
    const peer = new JsonRpcPeer({
      transport: t.transport,
      onRequest: async (method, params, id) => {
        seen.push({ method, params, id });
        if (method === "boom") throw new Error("handler failed");
        return { decision: "accept" };
      },
    });
    void peer.start();
    const ours = peer.request("mine", undefined); // our id 1
    t.feed('{"id":1,"method":"approve","params":{"p":1}}\n'); // their id 1: a request, not our response
    await tick();
    expect(seen).toEqual([{ method: "approve", params: { p: 1 }, id: 1 }]);
    expect(t.sent[1]).toEqual({ id: 1, result: { decision: "accept" } });
    t.feed('{"id":0,"method":"boom"}\n');
    await tick();
    expect(t.sent[2]).toEqual({ id: 0, error: { code: -32603, message: "handler failed" } });
    t.feed('{"id":1,"result":"mine"}\n');
    expect(await ours).toBe("mine");
  });

  test("a request without a handler gets method-not-found", async () => {
    const t = memoryTransport();
    const peer = new JsonRpcPeer({ transport: t.transport });
    void peer.start();
    t.feed('{"id":7,"method":"weird/thing","params":{}}\n');
    await tick();
    expect(t.sent).toEqual([{ id: 7, error: { code: -32601, message: "method not supported by this client: weird/thing" } }]);
  });

  test("notifications reach the handler; a throwing handler does not kill the peer", async () => {
    const t = memoryTransport();
    const got: string[] = [];
    const { log, lines } = recordingLog();
    const peer = new JsonRpcPeer({
      transport: t.transport,
      log,
      onNotification: (method) => {
        got.push(method);
        if (method === "bad") throw new Error("oops");
      },
    });
    void peer.start();
    t.feed('{"method":"bad"}\n{"method":"good","params":{}}\n');
    await tick();
    expect(got).toEqual(["bad", "good"]);
    expect(lines.some((l) => l.level === "error" && l.message.includes("bad"))).toBe(true);
    expect(peer.closed).toBe(false);
  });

  test("garbage and malformed lines are logged and skipped", async () => {
    const t = memoryTransport();
    const { log, lines } = recordingLog();
    const got: string[] = [];
    const peer = new JsonRpcPeer({ transport: t.transport, log, onNotification: (m) => got.push(m) });
    void peer.start();
    const p = peer.request("x", undefined);
    t.feed('WARNING: not json\n[1,2]\n{"foo":1}\n\n{"method":"ok"}\n{"id":1,"result":3}\n');
    expect(await p).toBe(3);
    expect(got).toEqual(["ok"]);
    expect(peer.skipped).toBe(3);
    expect(lines.filter((l) => l.level === "warn").length).toBe(3);
  });

  test("input end rejects every pending request and reports close once", async () => {
    const t = memoryTransport();
    const reasons: string[] = [];
    const peer = new JsonRpcPeer({ transport: t.transport, onClose: (r) => reasons.push(r) });
    const done = peer.start();
    const a = peer.request("a", undefined);
    const b = peer.request("b", undefined, { timeoutMs: 10_000 });
    t.eof();
    await done;
    for (const p of [a, b]) {
      const error = await p.catch((e: unknown) => e);
      expect(isBatonError(error, "harness_dead")).toBe(true);
    }
    expect(reasons).toEqual(["input ended"]);
    expect(peer.closed).toBe(true);
    expect(t.ended).toBe(true);
    await expect(peer.request("c", undefined)).rejects.toThrow(/closed/);
  });

  test("a failing input closes the peer with the failure as reason", async () => {
    const t = memoryTransport();
    const reasons: string[] = [];
    const peer = new JsonRpcPeer({ transport: t.transport, onClose: (r) => reasons.push(r) });
    const done = peer.start();
    const a = peer.request("a", undefined);
    t.fail(new Error("read ECONNRESET"));
    await done;
    await expect(a).rejects.toThrow(/ECONNRESET/);
    expect(reasons).toEqual(["input failed: read ECONNRESET"]);
  });

  test("a torn last line is still handled at end of input", async () => {
    const t = memoryTransport();
    const got: string[] = [];
    const peer = new JsonRpcPeer({ transport: t.transport, onNotification: (m) => got.push(m) });
    const done = peer.start();
    t.feed('{"method":"last"}');
    t.eof();
    await done;
    expect(got).toEqual(["last"]);
  });

  test("per-request timeout rejects; the late reply is ignored", async () => {
    const t = memoryTransport();
    const clock = new ManualClock();
    const peer = new JsonRpcPeer({ transport: t.transport, clock, name: "codex" });
    void peer.start();
    const p = peer.request("initialize", {}, { timeoutMs: 30_000 });
    const q = peer.request("other", {});
    clock.advance(29_999);
    let settled = false;
    void p.catch(() => (settled = true));
    await tick();
    expect(settled).toBe(false);
    clock.advance(1);
    const error = await p.catch((e: unknown) => e);
    expect(isBatonError(error, "timeout")).toBe(true);
    expect((error as Error).message).toBe("codex did not answer initialize within 30000 ms");
    t.feed('{"id":1,"result":"late"}\n{"id":2,"result":"on time"}\n');
    expect(await q).toBe("on time");
    expect(clock.pendingTimers()).toBe(0);
  });

  test("a write failure rejects that request", async () => {
    const t = memoryTransport();
    const peer = new JsonRpcPeer({ transport: t.transport });
    void peer.start();
    t.transport.end();
    const error = await peer.request("a", undefined).catch((e: unknown) => e);
    expect(isBatonError(error, "harness_dead")).toBe(true);
    expect((error as Error).message).toContain("EPIPE");
  });

  test("trace sees outbound and parsed inbound messages in order", async () => {
    const t = memoryTransport();
    const trace: [string, unknown][] = [];
    const peer = new JsonRpcPeer({ transport: t.transport, trace: (d, m) => trace.push([d, m]), onNotification: () => {} });
    void peer.start();
    const p = peer.request("a", { q: 1 });
    t.feed('{"method":"n","params":{}}\n{"id":1,"result":2}\n');
    await p;
    peer.notify("initialized");
    expect(trace).toEqual([
      ["out", { id: 1, method: "a", params: { q: 1 } }],
      ["in", { method: "n", params: {} }],
      ["in", { id: 1, result: 2 }],
      ["out", { method: "initialized" }],
    ]);
  });

  test("answers to server requests after close are dropped", async () => {
    const t = memoryTransport();
    let release: ((v: unknown) => void) | undefined;
    const peer = new JsonRpcPeer({
      transport: t.transport,
      onRequest: () => new Promise((resolve) => (release = resolve)),
    });
    void peer.start();
    t.feed('{"id":0,"method":"ask"}\n');
    await tick();
    peer.close("host closed");
    release?.({ decision: "accept" });
    await tick();
    expect(t.sent).toEqual([]);
  });

  test("with cancelMethod, a timed-out request is announced, remembered until its late answer, and rejected", async () => {
    const t = memoryTransport();
    const clock = new ManualClock();
    const peer = new JsonRpcPeer({ transport: t.transport, clock, name: "runner", cancelMethod: "$/cancelRequest" });
    void peer.start();
    const slow = peer.request("command/execute", { commandId: "sleep" }, { timeoutMs: 1000 });
    clock.advance(1000);
    expect(isBatonError(await slow.catch((e: unknown) => e), "timeout")).toBe(true);
    expect(t.sent[1]).toEqual({ method: "$/cancelRequest", params: { id: 1 } });
    expect(peer.oldestAbandoned()).toEqual({ id: 1, method: "command/execute", since: clock.now() });
    expect(peer.pendingCount).toBe(0);
    t.feed('{"id":1,"error":{"code":-32800,"message":"cancelled"}}\n');
    await tick();
    expect(peer.oldestAbandoned()).toBeUndefined();
  });

  test("an aborted request rejects with cancelled and announces the cancel", async () => {
    const t = memoryTransport();
    const peer = new JsonRpcPeer({ transport: t.transport, cancelMethod: "$/cancelRequest" });
    void peer.start();
    const controller = new AbortController();
    const p = peer.request("x", {}, { signal: controller.signal });
    controller.abort();
    expect(isBatonError(await p.catch((e: unknown) => e), "cancelled")).toBe(true);
    expect(t.sent).toEqual([{ id: 1, method: "x", params: {} }, { method: "$/cancelRequest", params: { id: 1 } }]);
    await expect(peer.request("y", {}, { signal: controller.signal })).rejects.toThrow(/cancelled before it was sent/);
  });

  test("the other side's cancel aborts that request's handler signal; its answer is still sent", async () => {
    const t = memoryTransport();
    const got: string[] = [];
    const peer = new JsonRpcPeer({
      transport: t.transport,
      cancelMethod: "$/cancelRequest",
      onNotification: (m) => got.push(m),
      onRequest: (_method, _params, _id, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("aborted by host")))),
    });
    void peer.start();
    t.feed('{"id":5,"method":"slow"}\n');
    await tick();
    t.feed('{"method":"$/cancelRequest","params":{"id":5}}\n');
    await tick();
    await tick();
    expect(got).toEqual([]);
    expect(t.sent).toEqual([{ id: 5, error: { code: -32603, message: "aborted by host" } }]);
  });

  test("onMalformed hears garbage and over-long lines; stampVersion adds jsonrpc 2.0; closedCode names the failure", async () => {
    const t = memoryTransport();
    const problems: string[] = [];
    const peer = new JsonRpcPeer({ transport: t.transport, onMalformed: (p) => problems.push(p), maxLineBytes: 64, stampVersion: true, closedCode: "plugin_failed" });
    const done = peer.start();
    const p = peer.request("a", undefined);
    expect(t.sent[0]).toEqual({ jsonrpc: "2.0", id: 1, method: "a" });
    t.feed(`hello\n{"method":"${"x".repeat(100)}"}\n`);
    await tick();
    expect(problems.length).toBe(2);
    expect(problems.some((p) => p.includes("non-JSON line skipped: hello"))).toBe(true);
    expect(problems.some((p) => p.includes("byte cap"))).toBe(true);
    t.eof();
    await done;
    expect(isBatonError(await p.catch((e: unknown) => e), "plugin_failed")).toBe(true);
  });
});
