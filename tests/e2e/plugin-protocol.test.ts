/**
 * The supervisor against scripted runners (real child processes speaking on fd 3/4): round trips, every
 * kind of protocol violation fails the runner closed with `protocol`, a known-but-unwired method is an
 * error answer (not a violation), a runner that cannot start is `spawn`, a runner over its memory cap is
 * `memory`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { RunnerSupervisor, type RunnerFailure, type SupervisorTimings } from "../../src/plugin/supervisor.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { silentLogger } from "../../src/shared/log.ts";
import { waitUntil } from "../support/baton-process.ts";
import { createPluginRig, fixtureVariant, tempDir, type PluginRig } from "../support/plugin-rig.ts";

/** A runner that answers pings and then does `after` (JS with `send(obj)` and `msg` in scope). */
function script(after: string, onEnd = "process.exit(0)"): string {
  return `
    const fs = require("node:fs");
    const out = fs.createWriteStream("", { fd: 3 });
    const send = (m) => out.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
    let buffered = "";
    fs.createReadStream("", { fd: 4 }).on("data", (d) => {
      buffered += d;
      let i;
      while ((i = buffered.indexOf("\\n")) >= 0) {
        const msg = JSON.parse(buffered.slice(0, i));
        buffered = buffered.slice(i + 1);
        if (msg.method === "runner/ping") send({ id: msg.id, result: { rssBytes: 1, pendingCalls: 0 } });
        else { ${after} }
      }
    }).on("end", () => { ${onEnd} });`;
}

let dirs: string[] = [];
let supervisors: RunnerSupervisor[] = [];
let rigs: PluginRig[] = [];
afterEach(async () => {
  for (const s of supervisors) await s.close();
  for (const r of rigs) await r.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  supervisors = [];
  rigs = [];
  dirs = [];
});

interface Scripted {
  readonly command?: { file: string; args: string[] };
  readonly timings?: Partial<SupervisorTimings>;
  readonly clock?: ManualClock;
  /** What the runner does when fd 4 ends (default: exit 0). */
  readonly onEnd?: string;
}

function start(body: string, options: Scripted = {}): { supervisor: RunnerSupervisor; failures: RunnerFailure[]; requests: string[]; output: string[] } {
  const dir = tempDir("baton-protocol-");
  dirs.push(dir);
  const file = path.join(dir, "runner.js");
  writeFileSync(file, script(body, options.onEnd));
  const failures: RunnerFailure[] = [];
  const requests: string[] = [];
  const output: string[] = [];
  const supervisor = new RunnerSupervisor({
    label: "scripted runner",
    command: options.command ?? { file: process.execPath, args: [file] },
    cwd: dir,
    env: { PATH: process.env["PATH"] ?? "" },
    memoryMb: 1024,
    log: silentLogger,
    timings: { heartbeatMs: 100, pingTimeoutMs: 500, ...options.timings },
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    onOutput: (_stream, line) => output.push(line),
    onNotification: () => undefined,
    onRequest: async (method) => {
      requests.push(method);
      throw new Error(`${method} is not available to plugins in this version of Baton`);
    },
    onFailure: (failure) => failures.push(failure),
  });
  supervisors.push(supervisor);
  return { supervisor, failures, requests, output };
}

describe("runner protocol", () => {
  test("round trip: a call is answered and validated; heartbeats keep it alive", async () => {
    const { supervisor, failures } = start(`if (msg.method === "command/execute") send({ id: msg.id, result: { kind: "message", text: "ok:" + msg.params.argument } });`);
    expect(await supervisor.call("command/execute", { commandId: "x", argument: "1" })).toEqual({ kind: "message", text: "ok:1" });
    await Bun.sleep(400);
    expect(failures).toEqual([]);
  });

  test.each([
    ["an unknown method from the runner", `send({ id: 99, method: "fs/readEverything", params: {} });`, "unknown method 'fs/readEverything'"],
    ["an unknown notification", `send({ method: "shell/run", params: {} });`, "unknown notification 'shell/run'"],
    ["invalid notification params", `send({ method: "toast/show", params: { text: "" } });`, "invalid toast/show from the runner"],
    ["an invalid result", `if (msg.method === "command/execute") send({ id: msg.id, result: { kind: "picture" } });`, "invalid result for command/execute"],
    ["a line that is not JSON-RPC", `out.write("[1,2,3]\\n");`, "not a JSON-RPC message"],
  ])("%s fails it closed with protocol", async (_name, body, detail) => {
    const { supervisor, failures } = start(body);
    await supervisor.call("command/execute", { commandId: "x", argument: "" }).catch(() => undefined);
    await waitUntil(() => failures.length > 0, 5000, "the violation");
    expect(failures).toHaveLength(1);
    expect(failures[0]?.code).toBe("protocol");
    expect(failures[0]?.detail).toContain(detail);
    await expect(supervisor.call("runner/ping", {})).rejects.toThrow(/has stopped/);
  });

  test("a known method the host does not serve yet is an error answer, not a violation", async () => {
    const { supervisor, failures, requests } = start(
      `if (msg.method === "command/execute") send({ id: 7, method: "resource/get", params: { apiVersion: "a.dev/v1", kind: "K", name: "n" } }); if (msg.id === 7 && msg.error) send({ id: 1, result: { kind: "message", text: msg.error.message } });`,
    );
    const result = await supervisor.call("command/execute", { commandId: "x", argument: "" });
    expect(result).toEqual({ kind: "message", text: "resource/get is not available to plugins in this version of Baton" });
    expect(requests).toEqual(["resource/get"]);
    expect(failures).toEqual([]);
  });

  test("a call still unanswered after its cancel is hung (pings alone do not keep a runner alive)", async () => {
    const { supervisor, failures } = start(`/* answers pings only: command/execute and its cancel go unanswered */`, {
      timings: { deadlines: { "command/execute": 200 }, hungAfterCancelMs: 300 },
    });
    const error = (await supervisor.call("command/execute", { commandId: "x", argument: "" }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("did not answer command/execute within 200 ms");
    await waitUntil(() => failures.length > 0, 5000, "the hung verdict");
    expect(failures[0]).toMatchObject({ code: "hung" });
    expect(failures[0]?.detail).toContain("command/execute was still unanswered");
  });

  test("a runner that cannot start fails with spawn", async () => {
    const { failures } = start("", { command: { file: "/nonexistent/bun", args: [] } });
    await waitUntil(() => failures.length > 0, 5000, "the spawn failure");
    expect(failures[0]?.code).toBe("spawn");
  });

  // Close on a manual clock: the grace period passes only when the test says so, so these show the order of
  // close's steps, not how long they take.
  test("close: a runner that answers shutdown exits as soon as its channel ends, before any grace passes", async () => {
    const clock = new ManualClock();
    const { supervisor } = start(`if (msg.method === "runner/shutdown") send({ id: msg.id, result: {} });`, { clock, timings: { heartbeatMs: 3_600_000 } });
    await supervisor.close();
    expect(supervisor.child.exitInfo()).toMatchObject({ code: 0, signal: null });
  });

  test("close: a runner that ignores shutdown and its channel's end is signalled after one grace period, not two", async () => {
    const clock = new ManualClock();
    const { supervisor, output } = start(`if (msg.method === "runner/shutdown") console.error("shutdown ignored");`, {
      clock,
      timings: { heartbeatMs: 3_600_000, closeGraceMs: 2_000 },
      onEnd: "setInterval(() => undefined, 1000)",
    });
    const closed = supervisor.close();
    await waitUntil(() => output.includes("shutdown ignored"), 5000, "the runner to see the shutdown");
    clock.advance(2_000);
    await waitUntil(() => supervisor.child.exitInfo() !== undefined, 5000, "the runner to be signalled once the grace passed");
    expect(supervisor.child.exitInfo()?.signal).toBe("SIGTERM");
    await closed;
  });

  test("the real runner over its memory cap fails with memory", async () => {
    const rig = createPluginRig({ timings: { heartbeatMs: 200 } });
    rigs.push(rig);
    const small = fixtureVariant(path.join(rig.root, "small"), { manifest: (m) => (m["limits"] = { memoryMb: 32 }) });
    // The first ping may land before or after activation completes: either way the verdict is memory.
    await rig.installAndEnable(small).catch(() => undefined);
    await waitUntil(() => rig.updates.some((u) => u.state === "failed"), 10_000, "the memory cap");
    expect(rig.updates.at(-1)?.reason?.code).toBe("memory");
    expect(rig.updates.at(-1)?.reason?.detail).toContain("over its 32 MB limit");
  });
});
