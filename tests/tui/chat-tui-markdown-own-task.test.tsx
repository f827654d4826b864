/**
 * A streamed answer's live markdown takes the text a publication added in a task of its own (#18,
 * timeline/agent-markdown.tsx `useTextInOwnTask`): OpenTUI's re-lex and re-style of the tail is not part of the
 * publication's commit, so a key or a timer can run between the two. Any other change is drawn in the commit itself.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { act } from "react";
import { MarkdownRenderable } from "@opentui/core";
import { mountChat, renderablesOf, type Mounted } from "./chat-tui-setup.tsx";

let mounted: Mounted;
let serial = 0;
const updates: MarkdownRenderable[] = [];
const proto = MarkdownRenderable.prototype as unknown as { updateBlocks(this: MarkdownRenderable, force?: boolean): void };
const original = proto.updateBlocks;

beforeAll(async () => {
  mounted = await mountChat({ width: 70, height: 30 });
  proto.updateBlocks = function (this: MarkdownRenderable, force?: boolean) {
    updates.push(this);
    original.call(this, force);
  };
});
afterAll(async () => {
  proto.updateBlocks = original;
  await mounted.destroy();
});
afterEach(() => {
  updates.length = 0;
});

const item = (id: string, text: string, streaming: boolean) => ({ kind: "agent" as const, id, author: "agent", text, streaming });
const live = (): MarkdownRenderable => renderablesOf(mounted.setup.renderer.root, MarkdownRenderable).at(-1) as MarkdownRenderable;

/** Commits in one synchronous act: the render, the commit and its effects, nothing scheduled for later tasks. */
function commitNow(text: string, id: string, streaming: boolean): void {
  act(() => mounted.store.commit({ timeline: { items: [item(id, text, streaming)] } }));
}

async function nextTask(): Promise<void> {
  await act(async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
  });
}

test("text a publication appends reaches the live markdown in the next task, not in the publication's commit", async () => {
  const id = `m${serial++}`;
  await mounted.commit({ timeline: { items: [item(id, "The first words of an answer", true)] } });
  expect(live().content).toBe("The first words of an answer");
  updates.length = 0;

  commitNow("The first words of an answer, and **more** of it", id, true);
  expect(live().content).toBe("The first words of an answer");
  expect(updates).toEqual([]);

  await nextTask();
  expect(live().content).toBe("The first words of an answer, and **more** of it");
  expect(updates).toContain(live());
  await mounted.render();
  expect(mounted.frame()).toContain("The first words of an answer, and more of it");
});

test("several publications before the next task: the live markdown takes the newest text once", async () => {
  const id = `m${serial++}`;
  await mounted.commit({ timeline: { items: [item(id, "one", true)] } });
  updates.length = 0;
  commitNow("one two", id, true);
  commitNow("one two three", id, true);
  expect(live().content).toBe("one");
  await nextTask();
  expect(live().content).toBe("one two three");
  expect(updates.filter((md) => md === live())).toHaveLength(1);
});

test("a text that does not extend the drawn one, and the end of streaming, are drawn in the publication's commit", async () => {
  const id = `m${serial++}`;
  await mounted.commit({ timeline: { items: [item(id, "A draft of the answer", true)] } });
  commitNow("A different answer", id, true);
  expect(live().content).toBe("A different answer");

  commitNow("A different answer, now complete.", id, false);
  expect(live().content).toBe("A different answer, now complete.");
  await mounted.render();
  expect(mounted.frame()).toContain("A different answer, now complete.");
});
