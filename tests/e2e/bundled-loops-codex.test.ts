/**
 * The bundled test-watch with the real Codex against the mock model server, in a real session (#17): Codex's
 * apply_patch breaks a.txt, the turn's summary is a Turn resource whose watch wakes the TestWatch, the failing
 * run becomes one `proposed_input` interaction in the ledger for codex with the failing line; another editing
 * turn with the same failure proposes nothing; the proposal, submitted, is Codex's next prompt (the mock's
 * recorded request carries it), its fix turn passes and the Board goes green; a new failure proposes again.
 * Nothing wakes a controller by hand.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { codexDefinition } from "../../src/harness/codex/definition.ts";
import { lastSummary } from "../../src/projection/index.ts";
import { bundledLoop } from "../support/bundled-loops.ts";
import { makeCodexHome } from "../support/codex-home.ts";
import { codexLastUserText } from "../support/crash-harnesses.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { openRealSession } from "../support/session-host.ts";

setDefaultTimeout(120_000);

let mock: MockResponses;
beforeAll(async () => {
  mock = await startMockResponses();
});
afterAll(async () => {
  await mock.stop();
});

const patch = (from: string, to: string) => ({ kind: "apply_patch" as const, patch: `*** Begin Patch\n*** Update File: a.txt\n@@\n-${from}\n+${to}\n*** End Patch` });

test("real Codex: apply_patch breaks the tests → one proposal to codex with the failing line; no duplicate; submitted, the fix passes and the Board is green; a new failure proposes again", async () => {
  const home = makeCodexHome({ baseUrl: mock.baseUrl, approvalPolicy: "never", sandboxMode: "danger-full-access" });
  const cwd = home.workdir;
  writeFileSync(path.join(cwd, "a.txt"), "ok\n");
  writeFileSync(path.join(cwd, "check.sh"), 'if grep -qx ok a.txt; then echo " 1 pass"; else echo "FAIL a.txt: expected ok, got $(cat a.txt)"; exit 1; fi\n');
  const { session, cleanup } = await openRealSession({ definitions: [codexDefinition], cwd, env: home.env, settings: { generateTitles: false } });
  const loop = await bundledLoop(session, "test-watch", { command: "sh ./check.sh" });
  const runs = async () => (await loop.binding.resources?.get({ apiVersion: "testwatch.baton.dev/v1alpha1", kind: "TestWatch", name: "project" }))?.status["run"] as { id: string; settled?: boolean } | undefined;
  const turn = async (text: string) => {
    const before = (await runs())?.id;
    expect(await session.controller.submit("codex", [{ type: "text", text }], { displayText: text })).toBe("completed");
    await loop.until(async () => {
      const run = await runs();
      return run !== undefined && run.id !== before && run.settled === true ? run : undefined;
    }, `the run after "${text}" to be acted on`);
  };
  try {
    await loop.until(() => (loop.board()[0] === "Tests: waiting for an edit" ? true : undefined), "test-watch's first look");

    await mock.script([patch("ok", "broken"), { kind: "text", text: "I changed a.txt." }]);
    await turn("change a.txt");
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("broken\n");
    expect(lastSummary(session.controller.state)?.toolCalls.map((t) => t.kind)).toContain("edit");
    const [card, ...more] = loop.pending();
    expect(more).toEqual([]);
    expect(card?.draft).toMatchObject({ type: "proposed_input", targetId: "codex", title: "Fix the failing tests" });
    expect(card?.draft.text).toContain("FAIL a.txt: expected ok, got broken");
    expect(loop.board()).toEqual(["Tests: failing (exit 1)"]);

    // An edit elsewhere, the same failure: no second card.
    await mock.script([{ kind: "apply_patch", patch: "*** Begin Patch\n*** Add File: notes.txt\n+a note\n*** End Patch" }, { kind: "text", text: "Added notes.txt." }]);
    await turn("add a note");
    expect(loop.opened()).toHaveLength(1);

    // Submitted as suggested: Codex receives the proposal's text; its fix passes; the Board goes green.
    await mock.reset();
    await mock.script([patch("broken", "ok"), { kind: "text", text: "Fixed." }]);
    const before = (await runs())?.id;
    expect(await session.controller.proposals.submit(card?.interactionId ?? "")).toBe("completed");
    expect(codexLastUserText((await mock.requests())[0]?.body)).toContain("FAIL a.txt: expected ok, got broken");
    await loop.until(async () => ((await runs())?.id !== before && loop.board()[0]?.startsWith("Tests: passing ✓") === true ? true : undefined), "the Board to go green");
    expect(loop.board()[0]).toMatch(/^Tests: passing ✓ \d+\.\d s$/);
    expect(loop.pending()).toEqual([]);

    // A new failure proposes again.
    await mock.script([patch("ok", "worse"), { kind: "text", text: "Changed it again." }]);
    await turn("change a.txt again");
    expect(loop.opened()).toHaveLength(2);
    expect(loop.pending()[0]?.draft.text).toContain("FAIL a.txt: expected ok, got worse");
  } finally {
    await loop.rig.close();
    await cleanup();
    home.cleanup();
  }
});
