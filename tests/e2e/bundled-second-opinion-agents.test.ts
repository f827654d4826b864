/**
 * baton/second-opinion with the real Codex and the real Claude Code against their mock model servers (#17), in
 * one real session over a git repository: a Codex apply_patch turn → a proposal that Claude reviews it (chosen
 * without settings: the other harness) → submitted, Claude's model request carries the turn's diff → Claude's
 * findings → a proposal to send them back → submitted, Codex's model request carries the findings.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import path from "node:path";
import { claudeDefinition } from "../../src/harness/claude/definition.ts";
import { codexDefinition } from "../../src/harness/codex/definition.ts";
import { bundledLoop } from "../support/bundled-loops.ts";
import { codexLastUserText } from "../support/crash-harnesses.ts";
import { initRepo } from "../support/git-repo.ts";
import { lastUserText, reply } from "../support/mock-anthropic/script.ts";
import { openRealSession } from "../support/session-host.ts";
import { useTwoAgents, type TwoAgents } from "../support/two-agents.ts";

setDefaultTimeout(150_000);

let agents: TwoAgents;
useTwoAgents((a) => (agents = a));

const TRACKER = { apiVersion: "secondopinion.baton.dev/v1alpha1", kind: "Tracker", name: "session" };
const FIX = 'return input.split(",").map((s) => s.trim());';

describe("baton/second-opinion between the real Codex and the real Claude Code", () => {
  test("a Codex edit → ask Claude (its request carries the diff) → Claude's findings → back to Codex (its request carries them)", async () => {
    const { codexMock, claudeMock, env, cwd } = agents;
    initRepo(cwd, { "parser.ts": 'export function parse(input: string): string[] {\n  return input.split(",");\n}\n' });
    const { session, cleanup } = await openRealSession({ definitions: [codexDefinition, claudeDefinition], cwd, env, settings: { generateTitles: false } });
    const loop = await bundledLoop(session, "second-opinion");
    try {
      await loop.until(async () => ((await loop.binding.resources?.get(TRACKER))?.status["seenRevision"] !== undefined ? true : undefined), "the first look");

      await codexMock.script([
        { kind: "apply_patch", patch: `*** Begin Patch\n*** Update File: parser.ts\n@@\n-  return input.split(",");\n+  ${FIX}\n*** End Patch` },
        { kind: "text", text: "parse() now trims each field." },
      ]);
      expect(await session.controller.submit("codex", [{ type: "text", text: "trim the fields in parse()" }], { displayText: "trim the fields in parse()" })).toBe("completed");
      expect(await Bun.file(path.join(cwd, "parser.ts")).text()).toContain(FIX);
      const [ask] = await loop.until(() => (loop.pending().length > 0 ? loop.pending() : undefined), "the proposal to ask Claude");
      expect(ask?.draft).toMatchObject({ type: "proposed_input", title: "Ask claude to review codex's change", targetId: "claude" });
      expect(ask?.draft.text).toContain(`+  ${FIX}`);
      // Codex names the file by its absolute path, git by its relative one: one file, named once.
      expect(ask?.draft.text).toContain("this change that codex just made (parser.ts).");
      const marker = /\[second-opinion review r-[0-9a-f]{12}\]/.exec(ask?.draft.text ?? "")?.[0] ?? "no marker";

      const findings = 'Finding 1: parse("") returns [""]; an empty input should give [].';
      await claudeMock.script(reply.text(findings, { match: { lastUserIncludes: "second-opinion review" } }));
      expect(await session.controller.proposals.submit(ask?.interactionId ?? "")).toBe("completed");
      const asked = (await claudeMock.modelRequests()).find((r) => lastUserText(r.body).includes(marker));
      expect(asked).toBeDefined();
      expect(lastUserText(asked?.body)).toContain(`+  ${FIX}`);
      expect(lastUserText(asked?.body)).toContain('-  return input.split(",");');

      const [back] = await loop.until(() => (loop.pending().length > 0 ? loop.pending() : undefined), "the proposal to send the findings back");
      expect(back?.draft).toMatchObject({ title: "Send claude's findings to codex", targetId: "codex" });
      expect(back?.draft.text).toContain(findings);

      await codexMock.reset();
      await codexMock.script([{ kind: "text", text: "I will handle the empty input." }]);
      expect(await session.controller.proposals.submit(back?.interactionId ?? "")).toBe("completed");
      const requests = await codexMock.requests();
      expect(requests.length).toBeGreaterThan(0);
      expect(codexLastUserText(requests[0]?.body)).toContain(findings);
      await loop.settle();
      expect(loop.opened()).toHaveLength(2);
      expect(loop.pending()).toEqual([]);
    } finally {
      await loop.rig.close();
      await cleanup();
    }
  });
});
