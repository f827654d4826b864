/**
 * How Baton's agents are started, signalled and stopped (issue 11.2, 11.4, 12.12), with the real `baton`, the
 * real Codex and the real Claude Code against their mock model servers. Baton runs through the npm launcher
 * (bin/baton.cjs) as the leader of its own session and process group, the way a shell runs a foreground job, so
 * "Ctrl+C" and "the terminal hung up" are the signals a terminal sends to that whole group.
 *
 * Prints how long each agent outlived its Baton (the figures for issue 12.12).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { BATON_ENTRY, runBaton, spawnBaton, waitUntil, type BatonChild } from "../support/baton-process.ts";
import { claudeAcpHarness, crashHarnesses, type CrashEnv } from "../support/crash-harnesses.ts";
import { commandOf, descendants, isRunning, processGroupOf, tryKill } from "../support/processes.ts";
import { ledgerOf, lockFile, newestSession, type LedgerLine } from "../support/session-files.ts";

/** A generous bound for "gone": the requirement is 2 s; the printed figures show the real time. */
const GONE_WITHIN_MS = 10_000;

const figures: string[] = [];

/** Resolves with how long it took until none of `pids` runs (zombies count as gone). */
async function goneAfter(pids: readonly number[], what: string): Promise<number> {
  const start = Date.now();
  await waitUntil(() => pids.every((pid) => !isRunning(pid)), GONE_WITHIN_MS, what);
  return Date.now() - start;
}

/** The harness's own processes among `pids` (not Baton, its launcher or a watchdog). */
function agentsAmong(pids: readonly number[], harness: string): number[] {
  return pids.filter((pid) => {
    const command = commandOf(pid);
    return command.includes(harness) && !/baton\.cjs|src\/app\/main\.ts|baton-watchdog/.test(command);
  });
}

function describePids(pids: readonly number[]): string {
  return pids.filter(isRunning).map((pid) => `${pid} ${commandOf(pid).slice(0, 80)}`).join("; ");
}

/** The turn that ran the prompt, its summary and terminals. */
function turnOf(ledger: readonly LedgerLine[], prompt: string): { summaries: LedgerLine[]; idles: LedgerLine[] } {
  const turnId = ledger.find((e) => e.kind === "user_message" && JSON.stringify(e.payload).includes(prompt))?.turnId;
  expect(turnId).toBeDefined();
  const ofTurn = ledger.filter((e) => e.turnId === turnId);
  return {
    summaries: ofTurn.filter((e) => e.kind === "_baton_turn_summary"),
    idles: ofTurn.filter((e) => e.kind === "state_update" && e.payload["state"] === "idle"),
  };
}

/** Exactly one terminal and one summary, both cancelled; the lock is released. */
function expectCancelledAndReleased(env: CrashEnv, prompt: string): void {
  const sessionId = newestSession(env.batonHome);
  const turn = turnOf(ledgerOf(env.batonHome, sessionId), prompt);
  expect(turn.idles.length).toBe(1);
  expect(turn.idles[0]!.payload["stopReason"]).toBe("cancelled");
  expect(turn.summaries.length).toBe(1);
  expect(turn.summaries[0]!.payload["stopReason"]).toBe("cancelled");
  expect(existsSync(lockFile(env.batonHome, sessionId))).toBe(false);
}

// claude-agent-acp: an ACP agent is started the same way (own process group, watchdog), so the same holds for it.
for (const harness of [...crashHarnesses(), claudeAcpHarness()]) {
  describe(`process lifecycle: ${harness.name}`, () => {
    const started: BatonChild[] = [];
    const seen = new Set<number>();

    beforeAll(async () => {
      await harness.start();
    });
    afterAll(async () => {
      for (const pid of seen) tryKill(pid);
      await harness.stop();
      if (figures.length > 0 && harness.name === "claude-agent-acp") console.log(`\nagent lifetime after its Baton (harness × how Baton ended → agent gone after)\n${figures.join("\n")}\n`);
    });

    /** Start `baton <args>` (launcher, own process group) on a slow turn and wait until it streams. */
    async function slowTurn(args: readonly string[], prompt: string, options: { launcher?: boolean; words?: number } = {}) {
      const env = await harness.freshEnv();
      await harness.scriptSlow(prompt, options.words);
      const child = spawnBaton(args, { env: env.env, cwd: env.cwd, launcher: options.launcher ?? true, group: true });
      started.push(child);
      await waitUntil(() => child.stdout().includes("slow") || child.exited(), 45_000, "streamed text");
      if (child.exited()) throw new Error(`baton exited before streaming:\n${child.stderr()}`);
      const processes = descendants(child.pid);
      for (const pid of processes) seen.add(pid);
      return { env, child, processes };
    }

    test("the agent runs outside the terminal's foreground process group", async () => {
      const prompt = "which group are you in";
      const { child, processes } = await slowTurn(["exec", "--agent", harness.target, prompt], prompt);
      const agents = agentsAmong(processes, harness.name);
      expect(agents.length).toBeGreaterThan(0);
      for (const pid of agents) expect(processGroupOf(pid)).not.toBe(child.pid);
      child.signal("SIGTERM");
      await child.done;
      await goneAfter(processes, "every process of the run to end");
    }, 90_000);

    test("Ctrl+C in exec (SIGINT to the whole foreground group) cancels the turn: exit 130, nothing left running", async () => {
      const prompt = "interrupt me from the terminal";
      const { env, child, processes } = await slowTurn(["exec", "--agent", harness.target, prompt], prompt);
      child.signalGroup("SIGINT");
      const result = await child.done;
      expect(result.stderr).not.toContain("killed by SIGINT");
      expect(result.code).toBe(130);
      expect(result.stderr).toMatch(/ cancelled$/m);
      expectCancelledAndReleased(env, prompt);
      await goneAfter(processes, `every process of the run to end (left: ${describePids(processes)})`);
    }, 90_000);

    test("Ctrl+C in repl cancels the turn and the repl goes on", async () => {
      const env = await harness.freshEnv();
      const prompt = "interrupt me in the repl";
      await harness.scriptSlow(prompt);
      const child = spawnBaton(["repl", "--agent", harness.target], { env: env.env, cwd: env.cwd, launcher: true, group: true });
      started.push(child);
      await waitUntil(() => child.stdout().includes("you> "), 30_000, "the prompt");
      child.write(`${prompt}\n`);
      await waitUntil(() => child.stdout().includes("slow"), 45_000, "streamed text");
      const processes = descendants(child.pid);
      for (const pid of processes) seen.add(pid);
      child.signalGroup("SIGINT");
      await waitUntil(() => child.stdout().includes("— turn done"), 30_000, "the end of the turn");
      expect(child.stdout()).toContain("— turn done (cancelled");
      await harness.scriptText("still here", "are you still there");
      child.write("are you still there\n");
      await waitUntil(() => child.stdout().split("— turn done").length > 2, 45_000, "the second turn");
      expect(child.stdout()).toContain("still here");
      child.write("/exit\n");
      const result = await child.done;
      expect(result.code).toBe(0);
      await goneAfter(processes, `every process of the run to end (left: ${describePids(processes)})`);
    }, 120_000);

    for (const how of [
      { name: "SIGTERM to baton (as `timeout` sends it)", signal: "SIGTERM" as const, group: false, code: 143 },
      { name: "SIGHUP to the group (the terminal hung up)", signal: "SIGHUP" as const, group: true, code: 129 },
    ]) {
      test(`${how.name} runs the normal shutdown: turn cancelled, lock released, exit ${how.code}`, async () => {
        const prompt = `end me with ${how.signal}`;
        const { env, child, processes } = await slowTurn(["exec", "--agent", harness.target, prompt], prompt);
        if (how.group) child.signalGroup(how.signal);
        else child.signal(how.signal);
        const result = await child.done;
        expect(result.code).toBe(how.code);
        expectCancelledAndReleased(env, prompt);
        const ms = await goneAfter(processes, `every process of the run to end (left: ${describePids(processes)})`);
        figures.push(`  ${harness.name.padEnd(16)} × ${how.signal.padEnd(8)} → ${ms} ms after baton exited`);
      }, 90_000);
    }

    test("kill -9 of the launcher (bin/baton.cjs): Baton notices and shuts down normally, nothing left running", async () => {
      const prompt = "lose my launcher";
      const { env, child, processes } = await slowTurn(["exec", "--agent", harness.target, prompt], prompt);
      process.kill(child.pid, "SIGKILL");
      await child.done;
      await goneAfter(processes, `every process of the run to end (left: ${describePids(processes)})`);
      expectCancelledAndReleased(env, prompt);
    }, 90_000);

    test("kill -9 of Baton alone: its agent stops by itself (no Baton cooperation)", async () => {
      const prompt = "keep talking after baton dies";
      // A turn of about a minute: an agent that only notices its Baton at the end of the turn outlives it.
      const { child, processes } = await slowTurn(["exec", "--agent", harness.target, prompt], prompt, { launcher: false, words: 600 });
      const agents = agentsAmong(processes, harness.name);
      expect(agents.length).toBeGreaterThan(0);
      process.kill(child.pid, "SIGKILL");
      await child.done;
      const ms = await goneAfter(agents, `the agent to stop (left: ${describePids(agents)})`);
      const all = ms + (await goneAfter(processes, `every process of the run to end (left: ${describePids(processes)})`));
      figures.push(`  ${harness.name.padEnd(16)} × kill -9  → agent gone ${ms} ms, watchdog too ${all} ms after baton died`);
    }, 90_000);
  });
}

describe("a crashed owner that is still a zombie (issue 11.5)", () => {
  const harness = crashHarnesses().find((h) => h.name === "codex")!;
  let parent: Bun.Subprocess<"ignore", "pipe", "inherit"> | undefined;
  beforeAll(async () => {
    await harness.start();
  });
  afterAll(async () => {
    parent?.kill("SIGKILL");
    await parent?.exited;
    await harness.stop();
  });

  test("does not hold its session: the next baton takes the lock over and runs the prompt", async () => {
    const env = await harness.freshEnv();
    const prompt = "crash while you talk";
    await harness.scriptSlow(prompt, 300);
    const out = path.join(env.batonHome, "..", "crashed-baton.out");
    // sh starts baton in the background and execs into sleep, which never reaps it: after kill -9 it stays a zombie.
    const script = 'bun="$1"; entry="$2"; out="$3"; shift 3; "$bun" "$entry" "$@" >"$out" 2>&1 & echo "$!"; exec sleep 600';
    parent = Bun.spawn(["sh", "-c", script, "sh", process.execPath, BATON_ENTRY, out, "exec", "--agent", harness.target, prompt], {
      env: env.env,
      cwd: env.cwd,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "inherit",
    });
    const reader = parent.stdout.getReader();
    const pid = Number(new TextDecoder().decode((await reader.read()).value).trim());
    reader.releaseLock();
    expect(pid).toBeGreaterThan(0);
    await waitUntil(() => existsSync(out) && readFileSync(out, "utf8").includes("slow"), 45_000, "streamed text");
    process.kill(pid, "SIGKILL");
    await waitUntil(() => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") === true, 10_000, "a zombie");

    const sessionId = newestSession(env.batonHome);
    await harness.resetScript();
    await harness.scriptText("after the crash", "the next prompt");
    const next = await runBaton(["exec", "--agent", harness.target, "--session", sessionId, "the next prompt"], { env: env.env, cwd: env.cwd });
    expect(next.stderr).not.toContain("in use by");
    expect(next.code).toBe(0);
    expect(next.stdout).toContain("after the crash");
    expect(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0]).toBe("Z");
  }, 90_000);
});
