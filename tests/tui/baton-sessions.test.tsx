/**
 * Session-level commands on the Baton screen: /sessions and /new (refused while busy), /compact,
 * /implement-plan, question cards, recovery notice, history seeded from the ledger, and a reviewed golden frame.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { HarnessRegistry } from "../../src/harness/registry.ts";
import { readLedgerFile } from "../../src/store/index.ts";
import type { TurnId } from "../../src/shared/ids.ts";
import { IMPLEMENT_PLAN_TEXT, shortCwd } from "../../src/tui/index.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { makeTestHome, openTestSession } from "../support/session-host.ts";
import { mountBaton, tidy, type BatonMounted } from "./baton-setup.tsx";
import { brand } from "../support/ids.ts";

let mounted: BatonMounted | undefined;
afterEach(async () => {
  await mounted?.destroy();
  mounted = undefined;
});

describe("Baton screen: sessions and control commands", () => {
  test("/new opens a fresh session (the old one is closed and unlocked); /sessions lists both and switches back", async () => {
    mounted = await mountBaton({ script: { turns: [[{ type: "text", text: "answer one" }]] } });
    const firstId = mounted.host.session.sessionId;
    await mounted.submit("first prompt");
    await mounted.waitFor("answer one");
    await mounted.waitFor("fake · idle");
    await mounted.submit("/new");
    await mounted.waitFor(/New session bs_/);
    const secondId = mounted.host.session.sessionId;
    expect(secondId).not.toBe(firstId);
    expect(mounted.frame()).toContain(`baton · session ${secondId}`);
    expect(mounted.frame()).not.toContain("answer one");
    // The first session's lock was released: it can be opened by someone else now.
    const probe = await openTestSession(mounted.home, { definitions: [fakeDefinition({ turns: [] })], choice: { kind: "id", id: firstId } });
    await probe.close();
    await mounted.submit("/sessions");
    // The picker opens at once and fills when the (asynchronous) listing arrives.
    const picker = await mounted.waitFor(/Sessions of this project[\s\S]*first prompt/);
    expect(picker).toContain("first prompt");
    expect(picker).toContain(`● chat @`);
    await mounted.type("first");
    await mounted.keys((k) => k.pressEnter());
    await mounted.waitFor(`Switched to session ${firstId}`);
    expect(mounted.frame()).toContain("answer one");
  });

  test("/sessions continues the chosen session on the target it last drove (#11.1)", async () => {
    mounted = await mountBaton({ script: { turns: [] }, second: { turns: [[{ type: "text", text: "other answered" }]] } });
    const firstId = mounted.host.session.sessionId;
    await mounted.submit("/other work on this");
    await mounted.waitFor("other answered");
    await mounted.waitFor("other · idle");
    await mounted.submit("/new");
    await mounted.waitFor(/New session bs_/);
    await mounted.submit("/fake");
    await mounted.until(() => mounted!.host.target === "fake");
    await mounted.submit("/sessions");
    await mounted.waitFor(/Sessions of this project[\s\S]*work on this/);
    await mounted.type("work on");
    await mounted.keys((k) => k.pressEnter());
    await mounted.until(() => mounted!.host.session.sessionId === firstId);
    expect(mounted.host.target).toBe(brand.target("other"));
    await mounted.waitFor("Message Fake other");
  });

  test("/sessions rows (TREE-01/02): forks indented under their source, ● on the current one, id · cwd · last activity · targets", async () => {
    mounted = await mountBaton({ width: 140, script: { turns: [[{ type: "text", text: "answer one" }]] } });
    const firstId = mounted.host.session.sessionId;
    await mounted.submit("first prompt");
    await mounted.waitFor("fake · idle");
    // meta.json is written behind; the fork reads it from disk.
    await mounted.until(() => mounted!.home.store.findSession(firstId).meta.harnessSessions["fake"] !== undefined);
    const fork = mounted.home.store.forkSession(firstId, 1, { cwd: mounted.home.cwd, title: "the fork" });
    await mounted.submit("/sessions");
    const frame = await mounted.waitFor(/the fork/);
    const lines = frame.split("\n");
    const current = lines.find((line) => line.includes("● first prompt")) ?? "";
    const child = lines.find((line) => line.includes("└ the fork")) ?? "";
    expect(current).not.toBe("");
    expect(child).not.toBe("");
    expect(lines.indexOf(child)).toBeGreaterThan(lines.indexOf(current));
    const updated = mounted.opened[0]!.meta().updatedAt!.replace("T", " ").slice(0, 16);
    const items = mounted.host.store.get("composer").picker?.items ?? [];
    expect(items.map((item) => item.label)).toEqual(["● first prompt", "└ the fork"]);
    expect(items[0]?.detail).toBe(`${firstId} · ${shortCwd(mounted.home.cwd)} · ${updated} · fake`);
    expect(items[1]?.detail).toBe(`${fork.batonSessionId} · ${shortCwd(mounted.home.cwd)} · ${fork.meta.createdAt.replace("T", " ").slice(0, 16)} · fake`);
    await mounted.escape();
  });

  test("/new and /sessions are refused while a turn runs; the other session is not opened", async () => {
    mounted = await mountBaton({ script: { turns: [[{ type: "waitForCancel" }]] } });
    await mounted.submit("busy work");
    await mounted.waitFor("Esc to interrupt");
    await mounted.submit("/new");
    await mounted.waitFor("Wait for the current turn to finish");
    expect(mounted.opened).toHaveLength(1);
    await mounted.submit("/sessions");
    expect(mounted.frame()).not.toContain("Sessions of this project");
    await mounted.escape();
  });

  test("/compact runs a control turn and records it in the transcript: Context compacted (N → M tokens) (#11.15)", async () => {
    const context = (contextUsed: number) => ({ type: "emit" as const, draft: { kind: "context_usage_update", payload: { contextUsed, contextSize: 200_000 } } });
    mounted = await mountBaton({
      script: { turns: [[{ type: "text", text: "hi" }, context(48_210)]], compactSteps: [{ type: "text", text: "summary" }, context(3_050)] },
    });
    await mounted.submit("hello");
    await mounted.waitFor("fake · idle");
    await mounted.submit("/compact");
    await mounted.waitFor("Context compacted (48,210 → 3,050 tokens)");
    const ledger = readLedgerFile(mounted.opened[0]!.ref.paths.ledger);
    expect(ledger.filter((e) => e.kind === "user_message")).toHaveLength(1);
    expect(ledger.filter((e) => e.kind === "_baton_notice").map((e) => e.payload)).toEqual([{ level: "info", title: "Context compacted (48,210 → 3,050 tokens)" }]);
  });

  test("a compaction that fails says so in the transcript", async () => {
    mounted = await mountBaton({ script: { turns: [[{ type: "text", text: "hi" }]], compactSteps: [{ type: "end", stopReason: "failed" }] } });
    await mounted.submit("hello");
    await mounted.waitFor("fake · idle");
    await mounted.submit("/compact");
    await mounted.waitFor("Compaction failed (failed)");
  });

  test("/implement-plan leaves plan mode and sends the latest proposed plan", async () => {
    mounted = await mountBaton({ script: { turns: [[{ type: "text", text: "planned" }], [{ type: "text", text: "implementing" }]] } });
    await mounted.keys((k) => k.pressTab({ shift: true }));
    await mounted.waitFor("plan mode (shift+tab to cycle)");
    await mounted.submit("make a plan");
    await mounted.waitFor("planned");
    await mounted.waitFor("fake · idle");
    mounted.host.controller.pipeline.append({
      kind: "proposed_plan",
      payload: { planId: "plan-1", content: "1. Write the test\n2. Fix the bug" },
      source: { type: "harness", harnessTargetId: "fake" },
      harnessTargetId: "fake",
    });
    await mounted.waitFor("Proposed plan");
    await mounted.submit("/implement-plan");
    await mounted.waitFor("implementing");
    expect(mounted.frame()).not.toContain("shift+tab to cycle");
    const prompt = mounted.adapters()[0]!.record.prompts[1]!.blocks[0] as { text: string };
    expect(prompt.text).toBe("Implement the following proposed plan:\n\n1. Write the test\n2. Fix the bug");
    expect(mounted.host.session.title()).toBe("make a plan");
    expect(IMPLEMENT_PLAN_TEXT).toBe("Implement the plan.");
  });

  test("@ lists other sessions of the store grouped under 'session'; Tab inserts @session:<id>", async () => {
    const home = makeTestHome();
    try {
      const other = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })] });
      other.controller.pipeline.append({ kind: "user_message", payload: { messageId: "m_1", content: [{ type: "text", text: "refactor the parser" }] }, source: { type: "user" }, harnessTargetId: "fake" });
      const otherId = other.ref.batonSessionId;
      await other.close();
      // After the close: an open session's meta.json is its own process's to write (close writes it).
      home.store.updateMeta(other.ref, (meta) => ({ ...meta, preview: "refactor the parser" }));
      mounted = await mountBaton({ home });
      await mounted.type(`look at @${otherId.slice(0, 8)}`);
      const popup = await mounted.waitFor("refactor the parser");
      expect(popup).toContain("session");
      await mounted.keys((k) => k.pressTab());
      expect(mounted.draft()).toBe(`look at @session:${otherId} `);
    } finally {
      await mounted?.destroy();
      mounted = undefined;
      home.cleanup();
    }
  });

  test("an @session reference that was pasted is not expanded; the same reference typed is (#11.12)", async () => {
    const home = makeTestHome();
    try {
      const other = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })] });
      const otherId = other.ref.batonSessionId;
      await other.close();
      mounted = await mountBaton({ home, script: { turns: [[{ type: "text", text: "one" }], [{ type: "text", text: "two" }]] } });
      await mounted.keys((k) => k.pasteBracketedText(`a pasted note about @session:${otherId}`));
      await mounted.type(" — what do you think?");
      await mounted.keys((k) => k.pressEnter());
      await mounted.waitFor("one");
      await mounted.waitFor("fake · idle");
      const pasted = mounted.adapters()[0]!.record.prompts[0]!.blocks[0] as { text: string };
      expect(pasted.text).toBe(`a pasted note about @session:${otherId} — what do you think?`);
      await mounted.submit(`now look at @session:${otherId}`);
      await mounted.waitFor("two");
      const typed = mounted.adapters()[0]!.record.prompts[1]!.blocks[0] as { text: string };
      expect(typed.text).toStartWith("<baton-context>");
      expect(typed.text).toContain(`Session ${otherId}`);
    } finally {
      await mounted?.destroy();
      mounted = undefined;
      home.cleanup();
    }
  });

  test("a question card answers with the chosen label", async () => {
    mounted = await mountBaton({ script: { turns: [[{ type: "question", question: "Ship it?" }, { type: "text", text: "shipped" }]] } });
    await mounted.submit("ask me");
    const card = await mounted.waitFor("Ship it?");
    expect(card).toContain("yes");
    await mounted.keys((k) => k.pressKey("1"));
    await mounted.waitFor("shipped");
    expect(mounted.adapters()[0]!.record.answers).toEqual([{ outcome: "answered", answers: { q1: ["yes"] } }]);
  });

  test("reopening a session a dead process left running shows the recovery toast and its history", async () => {
    const home = makeTestHome();
    try {
      const crashed = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })] });
      const append = crashed.controller.pipeline.append;
      append({ kind: "user_message", payload: { messageId: "m_1", content: [{ type: "text", text: "earlier prompt" }] }, source: { type: "user" }, turnId: "t_1" as TurnId, harnessTargetId: "fake" });
      append({ kind: "state_update", payload: { state: "running" }, source: { type: "baton" }, turnId: "t_1" as TurnId, harnessTargetId: "fake" });
      await crashed.ledger.close();
      crashed.lock.release();
      mounted = await mountBaton({ home, choice: { kind: "id", id: crashed.ref.batonSessionId } });
      const frame = await mounted.waitFor("Recovered an interrupted turn from a previous baton run");
      expect(frame).toContain("› earlier prompt");
      expect(frame).toContain("fake · idle");
      await mounted.keys((k) => k.pressArrow("up"));
      expect(mounted.draft()).toBe("earlier prompt");
    } finally {
      await mounted?.destroy();
      mounted = undefined;
      home.cleanup();
    }
  });

  test("golden frame: a finished turn with a thought, a command and markdown (80x24)", async () => {
    mounted = await mountBaton({
      width: 80,
      height: 24,
      script: {
        turns: [
          [
            { type: "thought", text: "**Looking around**\nChecking the files first." },
            { type: "tool", id: "tool-ls", title: "ls", output: "a.ts\nb.ts" },
            { type: "text", text: "There are **two** files." },
            { type: "usage", input: 1200, output: 345 },
          ],
        ],
      },
    });
    await mounted.submit("what files are there?");
    await mounted.waitFor("turns:1");
    const frame = tidy(mounted.frame()).replace(/bs_[0-9A-Z]{6,}…?/g, "bs_<id>").replace(/cwd:\S+/, "cwd:<cwd>");
    expect(frame).toMatchSnapshot();
  });
});

describe("registry", () => {
  test("two fake targets register with their own ids (sanity for the fixtures above)", () => {
    const registry = new HarnessRegistry([fakeDefinition({ turns: [] }, "fake"), fakeDefinition({ turns: [] }, "other")]);
    expect(registry.listTargets().map((t) => t.id)).toEqual([brand.target("fake"), brand.target("other")]);
  });
});
