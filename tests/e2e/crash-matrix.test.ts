/**
 * Sessions survive `kill -9` (issue 7): a real turn against a real harness (mock model server), Baton
 * stopped by a failpoint at an exact point and then SIGKILLed. Reopening must load the ledger, keep the
 * user's message, close the turn with a recovery notice, leave the attempt not_accepted or uncertain
 * (never re-sent), cancel a pending approval with reason recovery, take the lock over, and run the next
 * prompt. Prints the matrix (point × harness → outcome).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { RECOVERY_NOTICE } from "../../src/controller/recovery.ts";
import { BATON_LAUNCHER, runBaton, spawnBaton, waitUntil } from "../support/baton-process.ts";
import { EXIT_MARKER, processesIn, Tmux } from "../support/tmux.ts";
import { claudeAcpHarness, crashHarnesses, type CrashHarness } from "../support/crash-harnesses.ts";
import { descendants, isStopped, tryKill } from "../support/processes.ts";
import { ledgerOf, lockFile, newestSession } from "../support/session-files.ts";

interface Point {
  readonly name: string;
  readonly failpoint: string;
  /** What the model does in the killed turn. */
  readonly turn: "text" | "slow" | "approval";
  /** Run the killed turn in a fork of a session with one finished turn (so a context snapshot is made). */
  readonly fork?: boolean;
  readonly attempt: readonly ("none" | "not_accepted" | "uncertain")[];
}

const POINTS: readonly Point[] = [
  { name: "after user_message", failpoint: "after:user_message", turn: "text", attempt: ["none"] },
  { name: "after prepared", failpoint: "after:_baton_delivery_attempt_update:prepared", turn: "text", attempt: ["not_accepted"] },
  { name: "after dispatching", failpoint: "after:_baton_delivery_attempt_update:dispatching", turn: "text", attempt: ["uncertain"] },
  { name: "mid-stream", failpoint: "after:agent_message_chunk", turn: "slow", attempt: ["uncertain"] },
  { name: "approval pending", failpoint: "after:interaction.opened", turn: "approval", attempt: ["uncertain"] },
  { name: "snapshot before receipt", failpoint: "after:_baton_context_snapshot", turn: "text", fork: true, attempt: ["none"] },
];

const matrix: string[] = [];

for (const harness of [...crashHarnesses(), claudeAcpHarness()]) {
  describe(`kill -9 recovery: ${harness.name}`, () => {
    beforeAll(async () => {
      await harness.start();
    });
    afterAll(async () => {
      await harness.stop();
      if (matrix.length > 0) console.log(`\ncrash matrix (point × harness → outcome)\n${matrix.join("\n")}\n`);
    });

    for (const point of POINTS) {
      test(point.name, async () => {
        const env = await harness.freshEnv();
        let sessionArgs: string[] = [];
        if (point.fork) {
          await harness.scriptText("the first answer", "first question");
          const first = await runBaton(["exec", "--agent", harness.target, "first question"], { env: env.env, cwd: env.cwd });
          expect(first.code).toBe(0);
          const forked = await runBaton(["fork", "--last"], { env: env.env, cwd: env.cwd });
          const child = /→ (bs_\w+)/.exec(forked.stdout)?.[1];
          expect(child).toBeDefined();
          sessionArgs = ["--session", child!];
        }
        const prompt = `the prompt that was killed (${point.name})`;
        if (point.turn === "text") await harness.scriptText("never seen", prompt);
        if (point.turn === "slow") await harness.scriptSlow(prompt);
        if (point.turn === "approval") await harness.scriptApproval(prompt);

        const child = spawnBaton(["exec", "--agent", harness.target, ...sessionArgs, "--approve", "deny", prompt], {
          env: { ...env.env, BATON_FAILPOINT: point.failpoint },
          cwd: env.cwd,
        });
        await waitUntil(() => isStopped(child.pid) || child.exited(), 45_000, `baton to reach ${point.failpoint}`);
        if (!isStopped(child.pid)) throw new Error(`baton exited before ${point.failpoint}:\n${child.stderr()}`);
        const harnessChildren = descendants(child.pid);
        process.kill(child.pid, "SIGKILL");
        await child.done;
        for (const pid of harnessChildren) tryKill(pid);

        const sessionId = sessionArgs[1] ?? newestSession(env.batonHome);
        const before = ledgerOf(env.batonHome, sessionId);
        const killedTurn = before.find((e) => e.kind === "user_message" && JSON.stringify(e.payload).includes(prompt))?.turnId;
        expect(killedTurn).toBeDefined();
        const lock = lockFile(env.batonHome, sessionId);
        expect(existsSync(lock)).toBe(true);

        // Whatever the killed turn did not consume is dropped: the next turn must be answered by its own reply.
        await harness.resetScript();
        await harness.scriptText("after recovery", "the next prompt");
        const requestsBefore = await harness.promptsSeen();
        const next = await runBaton(["exec", "--agent", harness.target, "--session", sessionId, "the next prompt"], { env: env.env, cwd: env.cwd });
        expect(next.code).toBe(0);
        expect(next.stdout).toContain("after recovery");

        const after = ledgerOf(env.batonHome, sessionId);
        const ofTurn = after.filter((e) => e.turnId === killedTurn);
        expect(ofTurn.some((e) => e.kind === "user_message")).toBe(true);
        expect(ofTurn.some((e) => e.kind === "_baton_notice" && e.payload["title"] === RECOVERY_NOTICE)).toBe(true);
        expect(ofTurn.filter((e) => e.kind === "state_update" && e.payload["state"] === "idle").length).toBe(1);
        expect(ofTurn.filter((e) => e.kind === "_baton_turn_summary").length).toBe(1);
        const attempts = ofTurn.filter((e) => e.kind === "_baton_delivery_attempt_update");
        const last = attempts.at(-1);
        const outcome = !last ? "none" : last.payload["phase"] === "uncertain" ? "uncertain" : String(last.payload["outcome"] ?? last.payload["phase"]);
        expect(point.attempt).toContain(outcome as "none");
        const opened = ofTurn.filter((e) => e.kind === "interaction.opened").length;
        const recovered = ofTurn.filter((e) => e.kind === "interaction.resolved" && JSON.stringify(e.payload).includes('"recovery"')).length;
        expect(recovered).toBe(opened);
        // never re-sent by itself: the only new prompt the model saw is the next one
        const newPrompts = (await harness.promptsSeen()).slice(requestsBefore.length);
        expect(newPrompts.some((text) => text.includes("the next prompt"))).toBe(true);
        expect(newPrompts.some((text) => text.endsWith(prompt))).toBe(false);
        if (point.fork) {
          // the snapshot had no receipt: the same history is delivered again with the next turn
          const snapshots = after.filter((e) => e.kind === "_baton_context_snapshot");
          expect(snapshots.length).toBe(2);
          expect(snapshots[1]!.payload["afterSeq"]).toBe(snapshots[0]!.payload["afterSeq"]);
          expect(after.filter((e) => e.kind === "_baton_context_delivery_receipt").length).toBe(1);
          const bodies = await harness.requestsSeen();
          expect(bodies.some((text) => text.includes("first question") && text.includes("the next prompt"))).toBe(true);
        }
        matrix.push(`  ${point.name.padEnd(26)} × ${harness.name.padEnd(7)} → attempt ${outcome}${opened ? `, ${opened} approval cancelled/recovery` : ""}, lock taken over, next prompt ok`);
      }, 90_000);
    }
  });
}


/**
 * kill -9 with two queued follow-ups (issue 12.1): the TUI in tmux runs a slow turn on the harness's target;
 * two prompts for a second target of the same harness are queued behind it (recorded as queued); Baton is
 * SIGKILLed. Reopened, both come back paused — exec says so and runs only its own prompt, the TUI shows
 * them with the paused hint — and the model never sees either.
 */
for (const harness of crashHarnesses()) {
  describe(`kill -9 with two queued follow-ups: ${harness.name}`, () => {
    let tmux: Tmux | undefined;
    beforeAll(async () => {
      await harness.start();
    });
    afterAll(async () => {
      tmux?.kill();
      await harness.stop();
    });

    test("both are restored paused, neither is sent", async () => {
      const env = await harness.freshEnv();
      const second = `${harness.target}-2`;
      mkdirSync(env.batonHome, { recursive: true });
      writeFileSync(path.join(env.batonHome, "config.yaml"), `targets:\n  ${second}:\n    harness: ${harness.target}\n`);
      await harness.scriptSlow("the slow turn");
      const screenEnv = { ...env.env, TERM: "screen-256color", LANG: "C.UTF-8" };
      const t = (tmux = Tmux.start({ command: ["node", BATON_LAUNCHER, "--agent", harness.target], env: screenEnv, cwd: env.cwd }));
      const sessionId = /baton · session (bs_\w+)/.exec(await t.waitFor(/baton · session bs_\w+/, 20_000))?.[1] ?? "";
      t.type("the slow turn");
      t.keys("Enter");
      await t.waitFor("slow slow", 40_000);
      t.type(`/${second} the first queued follow-up`);
      t.keys("Enter");
      t.type("the second queued follow-up");
      t.keys("Enter");
      await waitUntil(() => ledgerOf(env.batonHome, sessionId).filter((e) => e.kind === "_baton_input_queued").length === 2, 20_000, "two queued follow-ups on disk");
      const [baton] = processesIn(env.cwd, "bun");
      expect(baton).toBeDefined();
      const harnessChildren = descendants(baton!);
      process.kill(baton!, "SIGKILL");
      for (const pid of harnessChildren) tryKill(pid);
      await t.waitFor(EXIT_MARKER, 20_000);
      t.kill();
      tmux = undefined;

      await harness.resetScript();
      await harness.scriptText("after recovery", "the next prompt");
      const next = await runBaton(["exec", "--agent", harness.target, "--session", sessionId, "the next prompt"], { env: env.env, cwd: env.cwd });
      expect({ code: next.code, stderr: next.stderr }).toEqual({ code: 0, stderr: expect.stringContaining(`2 prompts queued before Baton stopped are paused and not sent; open the session to send or drop them: baton -s ${sessionId}`) });
      expect(next.stdout).toContain("after recovery");

      const again = (tmux = Tmux.start({ command: ["node", BATON_LAUNCHER, "--session", sessionId], env: screenEnv, cwd: env.cwd }));
      const screen = await again.waitFor("paused after recovery: Enter to send, ↑ to edit, Esc to drop", 20_000);
      expect(screen).toContain("the first queued follow-up");
      expect(screen).toContain("the second queued follow-up");
      again.type("/exit");
      again.keys("Enter");
      await again.waitFor(EXIT_MARKER, 20_000);
      again.kill();
      tmux = undefined;

      const ledger = ledgerOf(env.batonHome, sessionId);
      const queued = ledger.filter((e) => e.kind === "_baton_input_queued").map((e) => String(e.payload["messageId"]));
      expect(queued.length).toBe(2);
      // still queued: neither admitted (no user message), recalled nor dropped
      const mentions = ledger.filter((e) => queued.some((id) => JSON.stringify(e.payload).includes(id)));
      expect(mentions.map((e) => e.kind)).toEqual(["_baton_input_queued", "_baton_input_queued"]);
      const killedTurn = ledger.find((e) => e.kind === "user_message" && JSON.stringify(e.payload).includes("the slow turn"))?.turnId;
      expect(ledger.some((e) => e.turnId === killedTurn && e.kind === "_baton_notice" && e.payload["title"] === RECOVERY_NOTICE)).toBe(true);
      const prompts = await harness.promptsSeen();
      expect(prompts.some((text) => text.includes("queued follow-up"))).toBe(false);
      expect(prompts.some((text) => text.includes("the next prompt"))).toBe(true);
      matrix.push(`  ${"two queued follow-ups".padEnd(26)} × ${harness.name.padEnd(7)} → both restored paused (exec and TUI), neither sent`);
    }, 150_000);
  });
}

export type { CrashHarness };
