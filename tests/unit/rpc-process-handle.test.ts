/** The process handle (channel, capped lines, stderr ring, abort, group terminate) and runChild, on real processes. */
import { describe, expect, test } from "bun:test";
import { JsonRpcPeer } from "../../src/rpc/jsonrpc.ts";
import { describeExit, exitError, spawnProcess } from "../../src/rpc/process-handle.ts";
import { startRpcChild } from "../../src/rpc/rpc-child.ts";
import { runChild } from "../../src/rpc/run-child.ts";
import { waitUntil } from "../support/baton-process.ts";
import { isRunning } from "../support/processes.ts";

const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin" };
const cwd = process.cwd();

describe("spawnProcess", () => {
  test("stdout/stderr arrive line by line, long lines are cut at the cap, stderr is kept in a ring", async () => {
    const lines: string[] = [];
    const child = spawnProcess({
      label: "printer",
      file: "sh",
      args: ["-c", `printf 'one\\n\\033[31mred\\033[0m\\n'; printf '%0300d\\nafter\\n' 0 >&2; printf 'tail-without-newline'`],
      cwd,
      env,
      lineCapBytes: 100,
      stderrRingBytes: 64,
      onLine: (stream, line) => lines.push(`${stream}:${line}`),
    });
    expect(await child.exited).toEqual({ code: 0, signal: null });
    await Bun.sleep(20);
    expect(lines).toContain("stdout:one");
    expect(lines).toContain("stdout:red");
    expect(lines).toContain("stdout:tail-without-newline");
    expect(lines).toContain(`stderr:${"0".repeat(100)} … (line cut at 100 bytes)`);
    expect(lines).toContain("stderr:after");
    expect(child.stderrTail().length).toBeLessThanOrEqual(64);
    expect(child.stderrTail()).toContain("after");
  });

  test("a missing program is an exit that failed to start, with a typed error", async () => {
    const child = spawnProcess({ label: "ghost", file: "/nonexistent/ghost", args: [], cwd, env });
    const exit = await child.exited;
    expect(exit.error).toContain("ENOENT");
    expect(describeExit(exit)).toStartWith("failed to start:");
    expect(exitError("ghost", exit).code).toBe("harness_start_failed");
    expect(exitError("x", { code: 3, signal: null }, "boom\n").message).toBe("x: exit code 3 (boom)");
  });

  test("group: terminate kills the leader and a grandchild that ignores SIGTERM", async () => {
    const child = spawnProcess({
      label: "parent",
      file: "sh",
      args: ["-c", `sh -c 'trap "" TERM; echo $$; while true; do sleep 0.05; done' & wait`],
      cwd,
      env,
      onLine: (_stream, line) => grandchild.push(Number(line)),
    });
    const grandchild: number[] = [];
    await waitUntil(() => grandchild.length > 0, 5000, "the grandchild's pid");
    const pid = grandchild[0] as number;
    expect(isRunning(pid)).toBe(true);
    const exit = await child.terminate(300);
    expect(exit.signal === "SIGTERM" || exit.signal === "SIGKILL").toBe(true);
    await waitUntil(() => !isRunning(pid), 3000, "the grandchild to be gone");
  });

  test("an aborted signal terminates the child", async () => {
    const controller = new AbortController();
    const child = spawnProcess({ label: "sleeper", file: "sleep", args: ["30"], cwd, env, signal: controller.signal, killGraceMs: 200 });
    controller.abort();
    expect((await child.exited).signal).toBe("SIGTERM");
  });

  test("fd34 channel: a JSON-RPC round trip while the child's stdout stays out of the protocol", async () => {
    const script = `
      const fs = require("node:fs");
      const out = fs.createWriteStream("", { fd: 3 });
      console.log("plain stdout noise");
      fs.createReadStream("", { fd: 4 }).on("data", (d) => {
        for (const line of d.toString().split("\\n").filter(Boolean)) {
          const m = JSON.parse(line);
          out.write(JSON.stringify({ id: m.id, result: m.params.n * 2 }) + "\\n");
        }
      }).on("end", () => process.exit(0));`;
    const lines: string[] = [];
    const child = spawnProcess({ label: "doubler", file: process.execPath, args: ["-e", script], cwd, env, channel: "fd34", onLine: (_s, l) => lines.push(l) });
    const transport = child.transport;
    if (transport === undefined) throw new Error("no transport");
    const peer = new JsonRpcPeer({ transport, name: "doubler" });
    void peer.start();
    expect(await peer.request("double", { n: 21 })).toBe(42);
    peer.close("done");
    expect((await child.exited).code).toBe(0);
    expect(lines).toContain("plain stdout noise");
  });
});

describe("startRpcChild", () => {
  test("a stdio JSON-RPC round trip; close stops a child that ignores stdin EOF, and its whole group, and reaps it", async () => {
    // Answers requests, ignores EOF on stdin, and leaves a grandchild in its group.
    const script = `
      const { spawn } = require("node:child_process");
      const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
      process.stdin.on("data", (d) => {
        for (const line of d.toString().split("\\n").filter(Boolean)) {
          const m = JSON.parse(line);
          process.stdout.write(JSON.stringify({ id: m.id, result: { n: m.params.n * 2, grandchild: sleeper.pid } }) + "\\n");
        }
      });
      process.stdin.on("end", () => undefined);
      setInterval(() => undefined, 1000);`;
    const child = startRpcChild({ label: "doubler", file: process.execPath, args: ["-e", script], cwd, env }, {});
    const answer = (await child.peer.request("double", { n: 21 })) as { n: number; grandchild: number };
    expect(answer.n).toBe(42);
    expect(isRunning(answer.grandchild)).toBe(true);
    const exit = await child.close("done", { eofGraceMs: 100, termGraceMs: 300 });
    expect(exit.signal === "SIGTERM" || exit.signal === "SIGKILL").toBe(true);
    expect(child.process.exitInfo()).toEqual(exit);
    await waitUntil(() => !isRunning(answer.grandchild), 3000, "the grandchild to be gone");
  });

  test("a program that cannot start: a request is rejected (never left pending) and close resolves with the failed start", async () => {
    const child = startRpcChild({ label: "ghost", file: "/nonexistent/ghost", args: [], cwd, env }, {});
    const error = await child.peer.request("hello", {}, { timeoutMs: 5_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).not.toContain("timed out");
    const exit = await child.close("done");
    expect(exit.error).toContain("ENOENT");
  });
});

describe("runChild", () => {
  test("captures output and reports success", async () => {
    const result = await runChild({ label: "echo", file: "sh", args: ["-c", "echo hi; echo err >&2"], cwd, env, timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: true, stdout: "hi\n", stderr: "err\n", timedOut: false, summary: "exit code 0" });
  });

  test("a timeout kills the whole group and says so", async () => {
    const pids: number[] = [];
    const started = Date.now();
    const result = await runChild({ label: "hang", file: "sh", args: ["-c", "sleep 30 & echo $!; wait"], cwd, env, timeoutMs: 300 });
    pids.push(Number(result.stdout.trim()));
    expect(result.ok).toBe(false);
    expect(result.timedOut).toBe(true);
    expect(result.summary).toBe("timed out after 300 ms");
    expect(Date.now() - started).toBeLessThan(10_000);
    await waitUntil(() => !isRunning(pids[0] as number), 3000, "the background sleep to be gone");
  });

  test("output over the cap is truncated, not kept", async () => {
    const result = await runChild({ label: "flood", file: "sh", args: ["-c", "yes line | head -n 1000"], cwd, env, timeoutMs: 5000, maxOutputBytes: 50 });
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBeLessThanOrEqual(50);
  });
});
