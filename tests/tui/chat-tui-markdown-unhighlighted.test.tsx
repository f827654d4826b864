/**
 * An agent message's code blocks and quotes show their text before tree-sitter has highlighted them (#18,
 * packages/chat-tui/src/markdown/unstyled-blocks.ts): OpenTUI's streaming markdown left a fenced block's rows
 * blank until its first highlight arrived. The highlighter here answers only when the test says so.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { act } from "react";
import { MockTreeSitterClient } from "@opentui/core/testing";
import { mountChat, tidy, type Mounted } from "./chat-tui-setup.tsx";

const client = new MockTreeSitterClient();
let mounted: Mounted;

beforeAll(async () => {
  mounted = await mountChat({ width: 60, height: 24, treeSitterClient: client });
});
afterAll(async () => {
  await mounted.destroy();
});

async function stream(id: string, text: string, streaming = true): Promise<string> {
  await mounted.commit({ timeline: { items: [{ kind: "agent", id, author: "agent", text, ...(streaming ? { streaming: true } : {}) }] } });
  await mounted.render();
  return tidy(mounted.frame());
}

async function highlightAll(): Promise<string> {
  for (let round = 0; round < 10 && client.isHighlighting(); round++) {
    await act(async () => {
      client.resolveAllHighlightOnce();
      await Promise.resolve();
    });
    await mounted.render();
  }
  await mounted.render();
  return tidy(mounted.frame());
}

test("a streamed code block shows its lines while its highlight is pending, and each new line as it arrives", async () => {
  const start = "Here is code:\n\n```ts\nconst a = 1;\nconst b = 2;";
  const first = await stream("m1", start);
  expect(client.isHighlighting()).toBe(true);
  expect(first).toContain("const a = 1;");
  expect(first).toContain("const b = 2;");
  const more = await stream("m1", `${start}\nconst c = 3;`);
  expect(more).toContain("const b = 2;\n   const c = 3;");
  // Highlighted, the block draws what the whole text draws when it is mounted at once.
  const done = `${start}\nconst c = 3;\n\`\`\`\n\nAfter.`;
  await stream("m1", done, false);
  const streamed = await highlightAll();
  await stream("m2", done, false);
  expect(await highlightAll()).toBe(streamed);
  expect(streamed).toContain("const c = 3;");
});

test("a quote shows its text while its highlight is pending", async () => {
  const frame = await stream("m3", "Intro.\n\n> quoted words here\n\nAfter.");
  expect(client.isHighlighting()).toBe(true);
  expect(frame).toContain("quoted words here");
  await highlightAll();
});
