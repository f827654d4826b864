/**
 * Frame-time bench for packages/chat-tui: mounts ChatApp in OpenTUI's test renderer with 100 / 2,000 /
 * 10,000 timeline items and measures (a) an idle frame and (b) a streaming frame (append to the last agent
 * message: store commit + React commit + layout + draw). Budget: ≤16 ms per frame at 10,000 items.
 *
 *   node_modules/.bin/bun bench/chat-tui-frame.tsx
 */
import { act } from "react";
import { testRender } from "@opentui/react/test-utils";
import { ChatApp, createChatStore, type TimelineItem } from "chat-tui";

const SIZES = [100, 2_000, 10_000] as const;
const FRAMES = 60;
const BUDGET_MS = 16;

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function makeItems(n: number): TimelineItem[] {
  const items: TimelineItem[] = [];
  for (let i = 0; i < n; i++) {
    switch (i % 4) {
      case 0:
        items.push({ kind: "user", id: `u${i}`, text: `Question number ${i}: please look at the failing test and fix it.` });
        break;
      case 1:
        items.push({
          kind: "tool",
          id: `t${i}`,
          title: "Ran",
          status: "completed",
          content: [
            { type: "command", command: `bun test tests/unit/case-${i}.test.ts` },
            { type: "output", text: Array.from({ length: 20 }, (_, j) => `  ✓ case ${i}.${j}`).join("\n") },
          ],
        });
        break;
      case 2:
        items.push({ kind: "thought", id: `th${i}`, title: "Thinking", text: `Considering option ${i}.\nChecking the log.` });
        break;
      default:
        items.push({ kind: "agent", id: `a${i}`, author: "codex", text: `Done with **step ${i}**.\n\n- checked\n- fixed` });
    }
  }
  return items;
}

function stats(samples: number[]): { median: number; p95: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { median: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] ?? 0 };
}

const fmt = (ms: number): string => `${ms.toFixed(2).padStart(7)} ms`;

async function benchSize(n: number): Promise<boolean> {
  const base = makeItems(n);
  const store = createChatStore({ timeline: { items: base }, footer: { left: `items: ${n}` } });
  const t0 = performance.now();
  const setup = await testRender(<ChatApp store={store} onIntent={() => {}} commands={[]} />, {
    width: 120,
    height: 40,
    exitOnCtrlC: false,
  });
  await act(async () => {
    await setup.renderOnce();
    await setup.renderOnce();
  });
  const mountMs = performance.now() - t0;

  const idle: number[] = [];
  for (let i = 0; i < FRAMES; i++) {
    const s = performance.now();
    await setup.renderOnce();
    idle.push(performance.now() - s);
  }

  const streaming: number[] = [];
  let text = "Streaming answer:";
  for (let i = 0; i < FRAMES; i++) {
    text += ` word${i}`;
    const items = [...base, { kind: "agent" as const, id: "live", author: "claude", text, streaming: true }];
    const s = performance.now();
    await act(async () => {
      store.commit({ timeline: { items } });
      await setup.renderOnce();
    });
    streaming.push(performance.now() - s);
  }
  await act(async () => {
    setup.renderer.destroy();
  });

  const a = stats(idle);
  const b = stats(streaming);
  const ok = b.median <= BUDGET_MS && a.median <= BUDGET_MS;
  process.stdout.write(
    `${String(n).padStart(6)} items | mount ${fmt(mountMs)} | idle frame median ${fmt(a.median)} p95 ${fmt(a.p95)} | ` +
      `streaming frame median ${fmt(b.median)} p95 ${fmt(b.p95)} max ${fmt(b.max)} | ${ok ? "ok" : "OVER BUDGET"}\n`,
  );
  return ok;
}

let allOk = true;
for (const n of SIZES) allOk = (await benchSize(n)) && allOk;
process.stdout.write(`budget ${BUDGET_MS} ms per frame: ${allOk ? "met" : "NOT met"}\n`);
process.exit(allOk ? 0 : 1);
