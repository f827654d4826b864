/**
 * The Codex prestart (issue #18, src/app/codex-prestart.ts): `baton exec` spawns the app-server its last run with the
 * same `--agent` started, in the first milliseconds of the process, and the prelaunch takes it only when it is
 * exactly the launch it would start; otherwise it is stopped and reaped before Baton exits.
 * Real `baton` (bin/baton.cjs where a process's start or end is the point), real Codex, the project's mock model.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { resolveInstalledCodex } from "../../src/harness/codex/executable.ts";
import { execSessionId, useCodexCliRig } from "../support/codex-cli-rig.ts";
import { runBaton, spawnBaton, waitUntil } from "../support/baton-process.ts";
import { isRunning, tryKill } from "../support/processes.ts";

const rig = useCodexCliRig({ fresh: "each" });
const codex = resolveInstalledCodex();

const memoFile = () => path.join(rig.batonHome, "cache", "codex-prestart.json");
const memo = () => (existsSync(memoFile()) ? (JSON.parse(readFileSync(memoFile(), "utf8")) as { agent: string | null; argv: string[] }) : undefined);
const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);

/** config.yaml: debug logs (the adoption is a debug line), and a Codex command that notes each start in `starts`. */
function configure(starts: string): void {
  const script = `echo started >> '${starts}'; exec '${codex}' app-server`;
  mkdirSync(rig.batonHome, { recursive: true });
  writeFileSync(path.join(rig.batonHome, "config.yaml"), `logLevel: debug\nharnesses:\n  codex:\n    command: ["sh", "-c", ${JSON.stringify(script)}]\n`);
}

/** Remember, for `agent`, a command that is not the one Baton would start: it notes its pid, then reads stdin to EOF. */
function rememberStranger(agent: string | null, pids: string): void {
  mkdirSync(path.dirname(memoFile()), { recursive: true });
  writeFileSync(memoFile(), JSON.stringify({ format: 1, agent, argv: ["sh", "-c", `echo $$ >> '${pids}'; exec cat > /dev/null`] }));
}

function sessionLog(stderr: string): string {
  const id = execSessionId(stderr);
  const projects = path.join(rig.batonHome, "projects");
  const dir = readdirSync(projects).map((project) => path.join(projects, project, "sessions", id)).find((candidate) => existsSync(candidate));
  return dir === undefined ? "" : readFileSync(path.join(dir, "session.log"), "utf8");
}

describe.skipIf(codex === undefined)("baton exec prestarts Codex", () => {
  test("the second run takes the app-server started at entry: one start per run, the first run's command remembered", async () => {
    const starts = path.join(rig.home.root, "starts.log");
    configure(starts);
    await rig.mock.script([{ kind: "text", text: "first." }, { kind: "text", text: "second." }]);
    const first = await runBaton(["exec", "--agent", "codex", "hello"], { env: rig.env, cwd: rig.home.workdir, launcher: true });
    expect(first.code).toBe(0);
    expect(sessionLog(first.stderr)).not.toContain("started at entry");
    expect(memo()).toMatchObject({ agent: "codex", argv: ["sh", "-c", expect.stringContaining("app-server")] });
    const second = await runBaton(["exec", "--agent", "codex", "again"], { env: rig.env, cwd: rig.home.workdir, launcher: true });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("second.\n");
    expect(sessionLog(second.stderr)).toContain("started at entry");
    expect(lines(starts)).toHaveLength(2);
  }, 60_000);

  test("a new session without --agent is remembered for the default agent and taken by the next such run", async () => {
    const starts = path.join(rig.home.root, "starts.log");
    configure(starts);
    await rig.mock.script([{ kind: "text", text: "one." }, { kind: "text", text: "two." }]);
    expect((await runBaton(["exec", "hello"], { env: rig.env, cwd: rig.home.workdir })).code).toBe(0);
    expect(memo()?.agent).toBeNull();
    const second = await runBaton(["exec", "again"], { env: rig.env, cwd: rig.home.workdir });
    expect(second.code).toBe(0);
    expect(sessionLog(second.stderr)).toContain("started at entry");
    expect(lines(starts)).toHaveLength(2);
  }, 60_000);

  test("a remembered command that is not this run's launch is stopped and reaped; the run starts its own and remembers it", async () => {
    const pids = path.join(rig.home.root, "pids.log");
    rememberStranger("codex", pids);
    await rig.mock.script([{ kind: "text", text: "own." }]);
    const result = await runBaton(["exec", "--agent", "codex", "hello"], { env: rig.env, cwd: rig.home.workdir, launcher: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("own.\n");
    const [pid] = lines(pids).map(Number);
    expect(pid).toBeGreaterThan(0);
    // Reaped before baton exited: not running, not even a zombie.
    expect(isRunning(pid!)).toBe(false);
    expect(memo()?.argv).toEqual([codex!, "app-server"]);
  }, 60_000);

  test("an exec that fails before its harness starts (no prompt) stops the prestarted process before it exits", async () => {
    const pids = path.join(rig.home.root, "pids.log");
    rememberStranger("codex", pids);
    const result = await runBaton(["exec", "--agent", "codex"], { env: rig.env, cwd: rig.home.workdir, launcher: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("exec needs a prompt");
    const [pid] = lines(pids).map(Number);
    expect(pid).toBeGreaterThan(0);
    expect(isRunning(pid!)).toBe(false);
    // Nothing was learnt from a run that never reached its harness.
    expect(memo()?.argv[0]).toBe("sh");
  }, 30_000);

  test("kill -9 of baton before the prestarted process is taken: it ends on its stdin's EOF, nothing is left", async () => {
    const pids = path.join(rig.home.root, "pids.log");
    rememberStranger("codex", pids);
    // From the sources Baton takes ≈ 100 ms more to reach its harness: the kill lands before anything took the process.
    const child = spawnBaton(["exec", "--agent", "codex", "hello"], { env: { ...rig.env, BATON_START: "sources" }, cwd: rig.home.workdir });
    let pid: number | undefined;
    try {
      await waitUntil(() => lines(pids).length === 1, 10_000, "the prestarted process's start");
      pid = Number(lines(pids)[0]);
      child.signal("SIGKILL");
      await child.done;
      await waitUntil(() => !isRunning(pid!), 5_000, "the prestarted process's end");
    } finally {
      if (pid !== undefined && isRunning(pid)) tryKill(pid);
      child.signal("SIGKILL");
    }
  }, 30_000);

  test("nothing is prestarted for an exec whose target is not known yet (--continue, --session without --agent), nor for other commands", async () => {
    const pids = path.join(rig.home.root, "pids.log");
    rememberStranger(null, pids);
    await runBaton(["exec", "--continue", "hello"], { env: rig.env, cwd: rig.home.workdir });
    await runBaton(["exec", "--session", "bs_01JZZZZZZZZZZZZZZZZZZZZZZZ", "hello"], { env: rig.env, cwd: rig.home.workdir });
    await runBaton(["sessions"], { env: rig.env, cwd: rig.home.workdir });
    expect(lines(pids)).toEqual([]);
  }, 60_000);

  test("a memo that is not one (garbage, another format) starts nothing and is replaced by the run's launch", async () => {
    mkdirSync(rig.batonHome, { recursive: true });
    writeFileSync(path.join(rig.batonHome, "config.yaml"), "logLevel: debug\n");
    for (const text of ["{not json", JSON.stringify({ format: 99, agent: "codex", argv: ["sh"] }), JSON.stringify({ format: 1, agent: "codex", argv: [] })]) {
      mkdirSync(path.dirname(memoFile()), { recursive: true });
      writeFileSync(memoFile(), text);
      await rig.mock.script([{ kind: "text", text: "ok." }]);
      const result = await runBaton(["exec", "--agent", "codex", "hello"], { env: rig.env, cwd: rig.home.workdir });
      expect(result.code).toBe(0);
      expect(sessionLog(result.stderr)).not.toContain("started at entry");
      expect(memo()?.argv).toEqual([codex!, "app-server"]);
    }
  }, 60_000);
});
