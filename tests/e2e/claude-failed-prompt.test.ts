/**
 * #12.9: a Claude prompt whose API request failed never reaches the model again. The real Claude Code (Agent SDK)
 * against the mock Anthropic API: a reply scripted to fail whenever the newest user text contains POISON stands for
 * a prompt that makes the API fail — before the fix Claude Code merged the failed prompt into the next user message,
 * so every later turn failed too.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { ResumeState } from "../../src/harness/contract.ts";
import { DROPPED_PROMPT_NOTICE } from "../../src/harness/claude/rewind.ts";
import { makeClaudeEnv } from "../support/claude-env.ts";
import type { ClaudeHost } from "../support/claude-host.ts";
import { useMockAnthropic, withClaudeRig, type ClaudeRig } from "../support/claude-rig.ts";
import { allMessageText, lastUserText, reply, type ScriptedReply } from "../support/mock-anthropic/script.ts";

setDefaultTimeout(60_000);
const mock = useMockAnthropic();

/** A 500 for every request whose newest user text carries POISON (one queued reply per possible request). */
const poisoned = (count: number): ScriptedReply[] => Array.from({ length: count }, () => ({ ...reply.error(500, "the API chokes on this prompt"), match: { lastUserIncludes: "POISON" } }));

async function turn(rig: ClaudeRig, text: string): Promise<{ turnId: ReturnType<ClaudeHost["prompt"]>["turnId"]; stopReason: unknown }> {
  const input = rig.host.prompt(text);
  expect(await rig.adapter.sendTurn(rig.handle, input)).toEqual({ accepted: true, effective: "new_turn" });
  const idle = await rig.host.waitForIdle(input.turnId, 30_000);
  return { turnId: input.turnId, stopReason: (idle.payload as { stopReason?: unknown }).stopReason };
}

const notices = (rig: ClaudeRig, turnId: string) => rig.host.ofTurn(turnId as never).filter((e) => e.kind === "_baton_notice").map((e) => (e.payload as { title: string }).title);

describe("a failed Claude prompt is never sent again", () => {
  test("after an API error the next turn sends only the new prompt, on the same native session, with the good history", async () => {
    await mock.script(reply.text("Noted: kiwi."), ...poisoned(3), reply.text("Hello again."), reply.text("Still here."));
    await withClaudeRig(mock.url, async (rig) => {
      expect((await turn(rig, "remember: kiwi")).stopReason).toBe("end_turn");
      const failed = await turn(rig, "C500 POISON");
      expect(failed.stopReason).toBe("failed");
      expect(notices(rig, failed.turnId)).toContain(DROPPED_PROMPT_NOTICE);

      expect((await turn(rig, "hello again")).stopReason).toBe("end_turn");
      const third = (await mock.modelRequests()).at(-1)!;
      expect(lastUserText(third.body)).toContain("hello again");
      expect(allMessageText(third.body)).not.toContain("POISON");
      expect(allMessageText(third.body)).toContain("remember: kiwi");
      expect(allMessageText(third.body)).toContain("Noted: kiwi.");
      const sessionIds = new Set(rig.host.identities.map((identity) => identity.harnessSessionId));
      expect(sessionIds.size).toBe(1);
      expect(third.headers["x-claude-code-session-id"]).toBe([...sessionIds][0] as string);
      expect(rig.host.fresh).toEqual([]);

      expect((await turn(rig, "and once more")).stopReason).toBe("end_turn");
      expect(allMessageText((await mock.modelRequests()).at(-1)!.body)).not.toContain("POISON");
    });
  });

  test("when the very first prompt fails, a fresh native session starts without it (and the host is told before the next turn)", async () => {
    await mock.script(...poisoned(3), reply.text("Fresh start."));
    await withClaudeRig(mock.url, async (rig) => {
      expect((await turn(rig, "POISON first")).stopReason).toBe("failed");
      expect(rig.host.fresh).toHaveLength(1);
      expect((await turn(rig, "second try")).stopReason).toBe("end_turn");
      expect(allMessageText((await mock.modelRequests()).at(-1)!.body)).not.toContain("POISON");
      const last = rig.host.identities.at(-1)!;
      expect(last.fresh).toBe(true);
      expect(rig.host.identities[0]?.harnessSessionId).not.toBe(last.harnessSessionId);
    });
  });

  test("Baton restarted between the failure and the next turn: the resume state still leaves the prompt behind", async () => {
    await mock.script(reply.text("Noted: kiwi."), ...poisoned(3), reply.text("Back."));
    const env = makeClaudeEnv({ baseUrl: mock.url });
    try {
      let stored: ResumeState | undefined;
      await withClaudeRig(
        mock.url,
        async (rig) => {
          await turn(rig, "remember: kiwi");
          expect((await turn(rig, "C500 POISON")).stopReason).toBe("failed");
          stored = rig.host.identities.at(-1)?.resumeState;
          expect(stored?.data["resumeAt"]).toBeString();
        },
        { env },
      );
      await withClaudeRig(
        mock.url,
        async (rig) => {
          expect((await turn(rig, "hello after a restart")).stopReason).toBe("end_turn");
          const last = (await mock.modelRequests()).at(-1)!;
          expect(allMessageText(last.body)).not.toContain("POISON");
          expect(allMessageText(last.body)).toContain("remember: kiwi");
          // Once a run used it, the resume point is dropped from the resume state.
          expect(rig.host.identities.at(-1)?.resumeState.data).toEqual({ sessionId: stored?.data["sessionId"] });
        },
        { env, ...(stored === undefined ? {} : { resumeState: stored }) },
      );
    } finally {
      env.cleanup();
    }
  });

  test("a resumed session whose first turn in this process fails: the entry before the prompt is found in the transcript", async () => {
    await mock.script(reply.text("Noted: kiwi."), ...poisoned(3), reply.text("Found it."));
    const env = makeClaudeEnv({ baseUrl: mock.url });
    try {
      let resumeState: ResumeState | undefined;
      await withClaudeRig(
        mock.url,
        async (rig) => {
          await turn(rig, "remember: kiwi");
          resumeState = rig.host.identities.at(-1)?.resumeState;
        },
        { env },
      );
      await withClaudeRig(
        mock.url,
        async (rig) => {
          expect((await turn(rig, "C500 POISON")).stopReason).toBe("failed");
          expect(rig.host.identities.at(-1)?.resumeState.data["dropPrompt"]).toBeString();
          expect((await turn(rig, "what did I ask you to remember?")).stopReason).toBe("end_turn");
          const last = (await mock.modelRequests()).at(-1)!;
          expect(allMessageText(last.body)).not.toContain("POISON");
          expect(allMessageText(last.body)).toContain("remember: kiwi");
          expect(rig.host.fresh).toEqual([]);
          expect(last.headers["x-claude-code-session-id"]).toBe(resumeState?.data["sessionId"] as string);
        },
        { env, ...(resumeState === undefined ? {} : { resumeState }) },
      );
    } finally {
      env.cleanup();
    }
  });
});
