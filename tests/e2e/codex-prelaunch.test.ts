/**
 * The Codex prelaunch (issue #18, src/harness/codex/prelaunch.ts): `baton exec` starts `codex app-server` as soon as
 * it knows the target is Codex, and the adapter adopts that process only when it is exactly the one it would start.
 * Real `baton` (bin/baton.cjs where a process's start or end is the point), real Codex, the project's mock model.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CodexAdapter } from "../../src/harness/codex/adapter.ts";
import { resolveInstalledCodex } from "../../src/harness/codex/executable.ts";
import { CodexPrelaunch, launchDifference, type AppServerLaunchKey } from "../../src/harness/codex/prelaunch.ts";
import { CLIENT_VERSION } from "../../src/harness/codex/app-server.ts";
import { describeError } from "../../src/shared/errors.ts";
import { createUlidSource } from "../../src/shared/ids.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { silentLogger } from "../../src/shared/log.ts";
import { execSessionId, useCodexCliRig } from "../support/codex-cli-rig.ts";
import { runBaton, spawnBaton, waitUntil } from "../support/baton-process.ts";
import { commandOf, descendants, isRunning, tryKill } from "../support/processes.ts";
import { RecordingSink, ScriptedInteractions } from "../support/recording-host.ts";

const rig = useCodexCliRig({ fresh: "each" });
const codex = resolveInstalledCodex();

/** Live processes (not zombies) whose environment carries `marker` — whatever Baton started in this test. */
function markedProcesses(marker: string, except: readonly number[] = []): { pid: number; command: string }[] {
  const out: { pid: number; command: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (except.includes(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(marker) && isRunning(pid)) out.push({ pid, command: commandOf(pid) });
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/**
 * config.yaml with a Codex command that appends one line to `starts` each time an app-server starts, then runs the
 * real one (`stop`: stops itself first, so the handshake never gets an answer).
 */
function wrapCodex(starts: string, options: { stop?: boolean } = {}): void {
  const script = `echo started >> '${starts}'; ${options.stop === true ? "kill -STOP $$; " : ""}exec '${codex}' app-server`;
  mkdirSync(rig.batonHome, { recursive: true });
  writeFileSync(path.join(rig.batonHome, "config.yaml"), `harnesses:\n  codex:\n    command: ["sh", "-c", ${JSON.stringify(script)}]\n`);
}

const startsIn = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).length : 0);

describe.skipIf(codex === undefined)("baton exec prelaunches Codex", () => {
  test("one app-server per run: the prelaunched one is adopted (handshake and all in the native trace), none left after exit", async () => {
    const starts = path.join(rig.home.root, "starts.log");
    wrapCodex(starts);
    const marker = `BATON_TEST_MARKER=${crypto.randomUUID()}`;
    const env = { ...rig.env, [marker.split("=")[0]!]: marker.split("=")[1]! };
    await rig.mock.script([{ kind: "text", text: "adopted." }]);
    const result = await runBaton(["exec", "--agent", "codex", "hello"], { env, cwd: rig.home.workdir, launcher: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("adopted.\n");
    expect(startsIn(starts)).toBe(1);
    // What the process said before the session adopted it reached the session's trace, in order.
    const id = execSessionId(result.stderr);
    const projects = path.join(rig.batonHome, "projects");
    const dir = readdirSync(projects).map((project) => path.join(projects, project, "sessions", id)).find((candidate) => existsSync(candidate))!;
    const trace = readFileSync(path.join(dir, "native-codex.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { dir: string; msg: { id?: number; method?: string; result?: unknown } });
    expect(trace[0]).toMatchObject({ dir: "out", msg: { method: "initialize" } });
    expect(trace.find((line) => line.dir === "in" && line.msg.id === trace[0]!.msg.id)?.msg.result).toBeDefined();
    expect(trace.findIndex((line) => line.msg.method === "initialized")).toBeLessThan(trace.findIndex((line) => line.msg.method === "thread/start"));
    expect(markedProcesses(marker)).toEqual([]);
  }, 60_000);

  test("its app-server exits beside the session's close, and baton exits only once it is reaped, the session still locked", async () => {
    // After stdin EOF, the app-server's process (a shell around the real one) takes 400 ms more, then notes whether
    // the session's lock is still there.
    const notes = path.join(rig.home.root, "notes.log");
    const script = `'${codex}' app-server; sleep 0.4; if [ -n "$(find '${rig.batonHome}/projects' -name lock)" ]; then echo exited-locked >> '${notes}'; else echo exited-unlocked >> '${notes}'; fi`;
    mkdirSync(rig.batonHome, { recursive: true });
    writeFileSync(path.join(rig.batonHome, "config.yaml"), `harnesses:\n  codex:\n    command: ["sh", "-c", ${JSON.stringify(script)}]\n`);
    await rig.mock.script([{ kind: "text", text: "done." }]);
    const result = await runBaton(["exec", "--agent", "codex", "hello"], { env: rig.env, cwd: rig.home.workdir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("done.\n");
    expect(existsSync(notes) ? readFileSync(notes, "utf8") : "").toBe("exited-locked\n");
  }, 60_000);

  test("an error after the prelaunch (no such session): the app-server is stopped and reaped before baton exits", async () => {
    const starts = path.join(rig.home.root, "starts.log");
    wrapCodex(starts);
    const marker = `BATON_TEST_MARKER=${crypto.randomUUID()}`;
    const env = { ...rig.env, [marker.split("=")[0]!]: marker.split("=")[1]! };
    const result = await runBaton(["exec", "--agent", "codex", "--session", "bs_01JZZZZZZZZZZZZZZZZZZZZZZZ", "hello"], { env, cwd: rig.home.workdir, launcher: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("bs_01JZZZZZZZZZZZZZZZZZZZZZZZ");
    // It was started (before the session was looked up) …
    expect(startsIn(starts)).toBe(1);
    // … and is gone the moment baton has exited (not left to the watchdog, which would only start then).
    expect(markedProcesses(marker).filter((p) => !p.command.includes("baton-watchdog"))).toEqual([]);
    await waitUntil(() => markedProcesses(marker).length === 0, 5_000, "no process of this run left");
  }, 60_000);

  for (const how of ["SIGINT", "kill -9 of baton", "kill -9 of the launcher"] as const) {
    test(`${how} while the prelaunched app-server is still in its handshake: no codex process remains`, async () => {
      const starts = path.join(rig.home.root, "starts.log");
      wrapCodex(starts, { stop: true });
      const marker = `BATON_TEST_MARKER=${crypto.randomUUID()}`;
      const env = { ...rig.env, [marker.split("=")[0]!]: marker.split("=")[1]! };
      // A terminal's Ctrl+C reaches the whole foreground group (the launcher itself ignores it).
      const child = spawnBaton(["exec", "--agent", "codex", "hello"], { env, cwd: rig.home.workdir, launcher: true, group: true });
      try {
        await waitUntil(() => startsIn(starts) === 1, 20_000, "the app-server's start");
        const baton = descendants(child.pid).find((pid) => commandOf(pid).includes("main.ts"));
        expect(baton).toBeDefined();
        if (how === "SIGINT") child.signalGroup("SIGINT");
        else if (how === "kill -9 of baton") tryKill(baton!);
        else child.signal("SIGKILL");
        if (how === "SIGINT") expect((await child.done).code).toBe(130);
        // The launcher's death reaches Baton by polling; Baton's, the watchdog at once (TERM, then KILL after 1 s).
        await waitUntil(() => markedProcesses(marker).length === 0, 10_000, `no process of this run left after ${how}`);
      } finally {
        for (const { pid } of markedProcesses(marker)) tryKill(pid);
        child.signal("SIGKILL");
      }
    }, 60_000);
  }
});

describe.skipIf(codex === undefined)("the adapter adopts only an exact match", () => {
  const openWith = async (env: Record<string, string>, prelaunch: CodexPrelaunch | undefined, settings: Record<string, unknown> = {}) => {
    const sink = new RecordingSink();
    const adapter = new CodexAdapter({ settings, prelaunch });
    const handle = await adapter.open(
      { targetId: "codex", cwd: rig.home.workdir, env, interactions: new ScriptedInteractions(), ids: createUlidSource(), clock: systemClock, log: silentLogger },
      sink,
      sink,
    );
    return { adapter, handle };
  };
  const keyOf = (env: Record<string, string>, argv = [codex!, "app-server"]): AppServerLaunchKey => ({ argv, cwd: rig.home.workdir, env, clientVersion: CLIENT_VERSION });
  const env = () => ({ ...rig.home.env, BATON_CODEX_BIN: codex! });

  test("what differs is named: command, directory, client version, environment (a value, a key more or less)", () => {
    const base = keyOf({ A: "1", CODEX_HOME: "/x" });
    expect(launchDifference(base, base)).toBeUndefined();
    expect(launchDifference(base, { ...base, env: { CODEX_HOME: "/x", A: "1" } })).toBeUndefined();
    expect(launchDifference(base, { ...base, argv: [codex!, "app-server", "--x"] })).toBe("the command differs");
    expect(launchDifference(base, { ...base, cwd: "/" })).toBe("the working directory differs");
    expect(launchDifference(base, { ...base, clientVersion: "9" })).toBe("the client version differs");
    expect(launchDifference(base, { ...base, env: { A: "1", CODEX_HOME: "/y" } })).toBe("the environment differs");
    expect(launchDifference(base, { ...base, env: { A: "1" } })).toBe("the environment differs");
    expect(launchDifference(base, { ...base, env: { A: "1", CODEX_HOME: "/x", B: "" } })).toBe("the environment differs");
  });

  test("the same launch adopts the prelaunched pid; another CODEX_HOME starts its own and the prelaunched one is reaped", async () => {
    const prelaunch = new CodexPrelaunch();
    const started = prelaunch.start(keyOf(env()), systemClock);
    const same = await openWith(env(), prelaunch);
    expect(same.adapter.processId(same.handle)).toBe(started.child.process.pid!);
    await same.adapter.close(same.handle);

    const other = prelaunch.start(keyOf(env()), systemClock);
    const elsewhere = { ...env(), CODEX_HOME: path.join(rig.home.root, "codex-home-2") };
    mkdirSync(elsewhere.CODEX_HOME, { recursive: true });
    writeFileSync(path.join(elsewhere.CODEX_HOME, "config.toml"), readFileSync(path.join(rig.home.codexHome, "config.toml")));
    const opened = await openWith(elsewhere, prelaunch);
    expect(opened.adapter.processId(opened.handle)).not.toBe(other.child.process.pid!);
    const exit = await other.child.process.exited;
    expect(exit.error).toBeUndefined();
    await opened.adapter.close(opened.handle);
    await prelaunch.release();
  }, 60_000);

  // The same failure through a prelaunched process as through the adapter's own spawn: message and hint, word for word.
  const failures: { name: string; command: () => string[] }[] = [
    { name: "a binary that does not exist", command: () => ["/nonexistent/codex", "app-server"] },
    { name: "an app-server that dies during the handshake", command: () => ["sh", "-c", "echo 'codex: cannot start' >&2; exit 3"] },
    { name: "an app-server that answers garbage and exits", command: () => ["sh", "-c", "read line; echo not-json; exit 0"] },
  ];
  for (const failure of failures) {
    test(`${failure.name}: the same error as without a prelaunch`, async () => {
      const settings = { command: failure.command() };
      const errorOf = async (prelaunch: CodexPrelaunch | undefined) => {
        try {
          await openWith(env(), prelaunch, settings);
        } catch (error) {
          const { hint, code } = error as { hint?: string; code?: string };
          return { code, message: describeError(error), hint };
        }
        throw new Error("open succeeded");
      };
      const direct = await errorOf(undefined);
      const prelaunch = new CodexPrelaunch();
      const started = prelaunch.start(keyOf(env(), failure.command()), systemClock);
      // Let the prelaunched process fail before anyone adopts it (the case a prelaunch adds).
      await started.child.process.exited;
      const adopted = await errorOf(prelaunch);
      await prelaunch.release();
      expect(adopted).toEqual(direct);
      expect(direct.code).toBe("harness_start_failed");
    }, 30_000);
  }
});
