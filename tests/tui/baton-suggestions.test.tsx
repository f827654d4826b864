/**
 * Suggestion cards (TUI-09, plugins.md §4) on the Baton screen: a real session and controller, fake harnesses.
 * Enter sends, `e` edits (the user may change text and target), Esc dismisses for good, a draft is never lost.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { act } from "react";
import { readLedgerFile } from "../../src/store/index.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { mountBaton, type BatonMounted } from "./baton-setup.tsx";

let mounted: BatonMounted | undefined;
afterEach(async () => {
  await mounted?.destroy();
  mounted = undefined;
});

const ledger = (m: BatonMounted): AnyEvent[] => readLedgerFile(m.opened.at(-1)!.ref.paths.ledger);
const resolutions = (m: BatonMounted) => ledger(m).filter((e) => e.kind === "interaction.resolved").map((e) => (e.payload as { resolution: { outcome: string } }).resolution);

async function propose(m: BatonMounted, extra: { targetId?: string; text?: string } = {}): Promise<string> {
  let id = "";
  await act(async () => {
    id = m.host.controller.proposals.open({ type: "baton" }, { text: extra.text ?? "continue the refactor", dedupeKey: `k-${Math.random()}`, title: "Codex hit its usage limit", ...extra }).interactionId;
    m.host.publish();
  });
  return id;
}

describe("suggestion card", () => {
  test("shows who suggests it, its text and keys; the footer counts it; the session stays idle", async () => {
    mounted = await mountBaton({ second: { turns: [] } });
    await propose(mounted, { targetId: "other" });
    const frame = await mounted.waitFor("Suggested by baton");
    expect(frame).toContain("Codex hit its usage limit");
    expect(frame).toContain("continue the refactor");
    expect(frame).toContain("Enter send · to Fake other · e edit · t target · Esc dismiss");
    expect(frame).toContain("1 suggestion");
    expect(frame).toContain("fake · idle");
    expect(mounted.host.controller.state.runState).toBe("idle");
  });

  test("Enter sends it to its target: resolution first, the prompt links to it", async () => {
    mounted = await mountBaton({ second: { turns: [[{ type: "text", text: "carried on" }]] } });
    await propose(mounted, { targetId: "other" });
    await mounted.waitFor("Suggested by baton");
    await mounted.keys((k) => k.pressEnter());
    const frame = await mounted.waitFor("carried on");
    expect(frame).not.toContain("Suggested by baton");
    expect(frame).toContain("sent to other");
    const events = ledger(mounted);
    const resolved = events.find((e) => e.kind === "interaction.resolved");
    const message = events.find((e) => e.kind === "user_message");
    expect(message?.parentEventId).toBe(resolved?.eventId);
    expect(mounted.adapters("other")[0]!.record.prompts[0]!.blocks).toEqual([{ type: "text", text: "continue the refactor" }]);
  });

  test("e loads it into the composer; the edited text goes to the target the user picked", async () => {
    mounted = await mountBaton({ script: { turns: [[{ type: "text", text: "fake did it" }]] }, second: { turns: [] } });
    await propose(mounted, { targetId: "other" });
    await mounted.waitFor("Suggested by baton");
    await mounted.keys((k) => k.pressKey("e"));
    await mounted.until(() => !mounted!.frame().includes("Suggested by baton"));
    expect(mounted.frame()).toContain("› continue the refactor");
    await mounted.type(" now");
    await mounted.keys((k) => k.pressKey("a", { ctrl: true }));
    await mounted.type("/fake ");
    await mounted.keys((k) => k.pressEnter());
    await mounted.waitFor("fake did it");
    expect(mounted.adapters("fake")[0]!.record.prompts[0]!.blocks).toEqual([{ type: "text", text: "continue the refactor now" }]);
    expect(mounted.adapters("other").flatMap((a) => a.record.prompts)).toEqual([]);
    expect(resolutions(mounted)).toEqual([expect.objectContaining({ outcome: "submitted", targetId: "fake", edited: true })]);
  });

  test("t picks the target from the configured ones; the card names it; Enter sends there with the relay's history", async () => {
    mounted = await mountBaton({ script: { turns: [[{ type: "text", text: "fake did it" }]] }, second: { turns: [[{ type: "text", text: "other carried on" }]] } });
    await mounted.submit("start the refactor");
    await mounted.waitFor("fake did it");
    await propose(mounted);
    let frame = await mounted.waitFor("Suggested by baton");
    expect(frame).toContain("Enter send · e edit · t target · Esc dismiss");
    await mounted.keys((k) => k.pressKey("t"));
    frame = await mounted.waitFor("Send the suggestion to");
    expect(frame).toMatch(/❯ Fake fake ✓  \/fake/);
    expect(frame).toContain("Fake other  /other");
    await mounted.keys((k) => k.pressArrow("down"));
    await mounted.keys((k) => k.pressEnter());
    frame = await mounted.waitFor("Enter send · to Fake other · e edit");
    expect(frame).not.toContain("Send the suggestion to");
    expect(resolutions(mounted)).toEqual([]);
    await mounted.keys((k) => k.pressEnter());
    await mounted.waitFor("other carried on");
    const other = mounted.adapters("other")[0]!.record;
    expect(other.prompts.map((p) => p.blocks)).toEqual([[{ type: "text", text: "continue the refactor" }]]);
    // The relay gave the other target the history it had not seen, as for a typed `/other …`.
    expect(other.synced.join("\n")).toContain("start the refactor");
    expect(other.synced.join("\n")).toContain("fake did it");
    expect(mounted.adapters("fake")[0]!.record.prompts).toHaveLength(1);
    expect(resolutions(mounted)).toEqual([expect.objectContaining({ outcome: "submitted", targetId: "other" })]);
  });

  test("t then e: the composer talks to the picked target; Esc in the picker keeps the card's target", async () => {
    mounted = await mountBaton({ script: { turns: [] }, second: { turns: [[{ type: "text", text: "other did it" }]] } });
    await propose(mounted);
    await mounted.waitFor("Suggested by baton");
    await mounted.keys((k) => k.pressKey("t"));
    await mounted.waitFor("Send the suggestion to");
    await mounted.escape();
    await mounted.until(() => !mounted!.frame().includes("Send the suggestion to"));
    expect(mounted.frame()).toContain("Enter send · e edit");
    await mounted.keys((k) => k.pressKey("t"));
    await mounted.waitFor("Send the suggestion to");
    await mounted.type("other");
    await mounted.waitFor(/❯ Fake other/);
    await mounted.keys((k) => k.pressEnter());
    await mounted.waitFor("Enter send · to Fake other");
    await mounted.keys((k) => k.pressKey("e"));
    await mounted.until(() => !mounted!.frame().includes("Suggested by baton"));
    expect(mounted.frame()).toMatch(/· other · idle[\s\S]*› continue the refactor/);
    await mounted.type(" please");
    await mounted.keys((k) => k.pressEnter());
    await mounted.waitFor("other did it");
    expect(mounted.adapters("other")[0]!.record.prompts[0]!.blocks).toEqual([{ type: "text", text: "continue the refactor please" }]);
    expect(mounted.adapters("fake").flatMap((a) => a.record.prompts)).toEqual([]);
    expect(resolutions(mounted)).toEqual([expect.objectContaining({ outcome: "submitted", targetId: "other", edited: true })]);
  });

  test("e with a draft in the composer refuses and changes nothing", async () => {
    mounted = await mountBaton();
    await mounted.type("my own draft");
    await propose(mounted);
    await mounted.waitFor("Suggested by baton");
    await mounted.keys((k) => k.pressKey("e"));
    const frame = await mounted.waitFor("Clear the composer before using this suggestion");
    expect(frame).toContain("Suggested by baton");
    expect(frame).toContain("my own draft");
    expect(resolutions(mounted)).toEqual([]);
  });

  test("Esc dismisses it for good: resolved dismissed, the card and the count are gone", async () => {
    mounted = await mountBaton();
    await propose(mounted);
    await mounted.waitFor("Suggested by baton");
    await mounted.escape();
    await mounted.until(() => !mounted!.frame().includes("Suggested by baton"));
    expect(mounted.frame()).not.toContain("1 suggestion");
    expect(resolutions(mounted)).toEqual([{ outcome: "dismissed" }]);
    expect(mounted.adapters()).toHaveLength(0);
  });

  test("a target that cannot be used puts the text back in the composer and keeps the suggestion", async () => {
    mounted = await mountBaton();
    await propose(mounted, { targetId: "gone" });
    await mounted.waitFor("Suggested by baton");
    await mounted.keys((k) => k.pressEnter());
    const frame = await mounted.waitFor("› continue the refactor");
    expect(frame).toContain("The suggestion was not sent");
    expect(resolutions(mounted)).toEqual([]);
    expect(mounted.host.controller.proposals.pending()).toHaveLength(1);
  });
});
