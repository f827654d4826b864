/**
 * The TUI maps a long session windowed (#18): only the tail the screen shows is mapped at open, so a session opened
 * from a checkpoint leaves its old turns on disk (lazy nodes); older entries are mapped when the view asks. As a
 * property against the unwindowed mapping: random sessions (prompts, streamed answers, thoughts split in blocks,
 * tool calls, pinned and unpinned plans, notices, errors, resolved and pending cards, tasks kept out of the
 * transcript, enough entries to fill timeline pages) are written to a real ledger, checkpointed and reopened lazily;
 * the windowed mapper over the lazy state must give exactly the tail of what the full mapper gives over a full
 * replay — at open, while the session goes on (streamed chunks patched, new turns, local items), and at every step
 * of a scroll to the top, where both are the same transcript. The ↑ history is the window's prompts, and all of them
 * at the top.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { EventDraft } from "../../src/event/envelope.ts";
import { TargetDirectory } from "../../src/controller/targets.ts";
import { HarnessRegistry } from "../../src/harness/registry.ts";
import { initialState, storedProjectionFold, type ProjectionState } from "../../src/projection/index.ts";
import { Stub } from "../../src/projection/lazy.ts";
import { type BatonSessionId, type TargetId, type TurnId } from "../../src/shared/ids.ts";
import { loadState, writeCheckpoint, type StateFold } from "../../src/store/checkpoint.ts";
import { createTargetLooks, createTimelineMapper } from "../../src/tui/index.ts";
import type { LocalItem } from "../../src/tui/map-transcript.ts";
import { historyOf } from "../../src/tui/view-states.ts";
import type { TimelineItem } from "chat-tui";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { ledgerFiles } from "../support/ledger-files.ts";

const SESSION = "bs_00000000000000000000000009" as BatonSessionId;
const FOLD: StateFold<ProjectionState> = { ...storedProjectionFold, initial: () => initialState(SESSION) };
const TARGETS = ["fake", "other"] as const;
const lookOf = createTargetLooks(new TargetDirectory(new HarnessRegistry(TARGETS.map((id) => fakeDefinition({ turns: [] }, id)))));
const { file: ledgerFile, open } = ledgerFiles(SESSION, "baton-window-");

interface TurnSpec {
  readonly target: number;
  readonly blocks: readonly ("answer" | "thought" | "titled thoughts")[];
  readonly tools: number;
  readonly extras: readonly ("plan" | "notice" | "error" | "resolved card" | "task" | "hidden task" | "steer")[];
  /** Small tool calls on top (fills timeline pages). */
  readonly bulk: number;
}

const turnSpec: fc.Arbitrary<TurnSpec> = fc.record({
  target: fc.nat(TARGETS.length - 1),
  blocks: fc.array(fc.constantFrom("answer", "thought", "titled thoughts"), { maxLength: 4 }),
  tools: fc.nat(3),
  extras: fc.uniqueArray(fc.constantFrom("plan", "notice", "error", "resolved card", "task", "hidden task", "steer"), { maxLength: 3 }),
  bulk: fc.constantFrom(0, 0, 30, 120),
});

const text = (chars: number, salt: string): string => `${salt} `.repeat(Math.ceil(chars / (salt.length + 1))).slice(0, chars);

/** One turn's events; the last turn of a session may be left running (`running`), its plan pinned, its answer streaming. */
function* turnDrafts(spec: TurnSpec, turn: number, running: boolean): Generator<EventDraft> {
  const target = TARGETS[spec.target]!;
  const h = { source: { type: "harness", harnessTargetId: target }, harness: "fake", harnessTargetId: target } as const;
  const turnId = `t_${String(turn).padStart(5, "0")}` as TurnId;
  yield { kind: "user_message", source: { type: "user" }, turnId, harnessTargetId: target, payload: { messageId: `m_u_${turn}`, content: [{ type: "text", text: `ask ${turn}: ${text(30 + (turn % 5) * 40, "q")}` }], delivery: "prompt" } };
  yield { kind: "state_update", ...h, turnId, payload: { state: "running" } };
  for (const [b, block] of spec.blocks.entries()) {
    const thought = block !== "answer";
    const messageId = `${thought ? "rs" : "msg"}_${turn}_${b}`;
    const body = block === "titled thoughts" ? `**Plan ${turn}**\n${text(80, "a")}<!-- -->**Check**\n${text(60, "b")}<!-- -->${text(40, "c")}` : text(120 + b * 300, `w${turn}`);
    for (let at = 0; at < body.length; at += 100) yield { kind: thought ? "agent_thought_chunk" : "agent_message_chunk", ...h, turnId, payload: { messageId, content: { type: "text", text: body.slice(at, at + 100) } } };
  }
  for (let t = 0; t < spec.tools; t++) {
    const toolCallId = `call_${turn}_${t}`;
    yield { kind: "tool_call_update", ...h, turnId, payload: { toolCallId, title: `Run ${t}`, kind: "execute", status: "in_progress", rawInput: { command: ["bash", "-lc", `make ${t}`] } } };
    if (!running || t > 0) yield { kind: "tool_call_update", ...h, turnId, payload: { toolCallId, status: t === 2 ? "failed" : "completed", content: [{ type: "text", text: text(300, `out${turn}`) }] } };
  }
  for (let i = 0; i < spec.bulk; i++) yield { kind: "tool_call_update", ...h, turnId, payload: { toolCallId: `bulk_${turn}_${i}`, title: `Read ${i}`, kind: "read", status: "completed" } };
  for (const extra of spec.extras) {
    switch (extra) {
      case "plan":
        yield { kind: "plan_update", ...h, turnId, payload: { planId: `pl_${turn}`, entries: [{ content: `step of ${turn}`, priority: "high", status: "in_progress" }] } };
        break;
      case "notice":
        yield { kind: "_baton_notice", source: { type: "baton" }, turnId, harnessTargetId: target, payload: { level: "warning", title: `notice ${turn}`, detail: text(300, "d") } };
        break;
      case "error":
        yield { kind: "_baton_error_update", ...h, turnId, payload: { message: `boom ${turn}`, willRetry: false } };
        break;
      case "resolved card":
        yield { kind: "interaction.opened", ...h, turnId, payload: { interactionId: `ix_${turn}`, requester: { type: "harness", harnessTargetId: target }, draft: { type: "permission", title: `allow ${turn}?`, options: [{ optionId: "allow", name: "Allow", polarity: "allow", lifetime: "once" }] } } } as EventDraft;
        yield { kind: "interaction.resolved", source: { type: "user" }, turnId, payload: { interactionId: `ix_${turn}`, resolution: { outcome: "selected", optionId: "allow" } } } as EventDraft;
        break;
      case "task":
      case "hidden task":
        yield { kind: "task_update", ...h, turnId, payload: { taskId: `task_${turn}`, status: "completed", title: `task ${turn}`, ...(extra === "hidden task" ? { skipTranscript: true } : {}) } };
        break;
      case "steer":
        yield { kind: "user_message", source: { type: "user" }, turnId, harnessTargetId: target, payload: { messageId: `m_s_${turn}`, content: [{ type: "text", text: `also ${turn}` }], delivery: "steer" } };
        break;
    }
  }
  if (running) return;
  yield { kind: "state_update", ...h, turnId, payload: { state: "idle", stopReason: "end_turn" } };
  yield { kind: "_baton_turn_summary", source: { type: "baton" }, turnId, harnessTargetId: target, payload: { turnId, role: "driven", stopReason: "end_turn", userMessageId: `m_u_${turn}`, agentText: text(40, `sum${turn}`), toolCalls: [] } } as EventDraft;
}

const shownCount = (items: readonly TimelineItem[], hideThoughts: boolean): number => items.filter((item) => !item.id.startsWith("local-") && !(hideThoughts && item.kind === "thought")).length;

/** Whether a node of a lazily opened state is still on disk. */
const unread = (node: unknown): boolean => node instanceof Stub && !node.loaded;

describe("windowed timeline ≡ full mapping (property)", () => {
  test("a long session opened from a checkpoint: the window is the full mapping's tail at open, live and at every step up to the top", async () => {
    let windowed = 0;
    let leftOnDisk = 0;
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnSpec, { minLength: 2, maxLength: 30 }),
        fc.record({ want: fc.integer({ min: 1, max: 12 }), hideThoughts: fc.boolean(), running: fc.boolean(), target: fc.nat(TARGETS.length - 1), live: fc.array(turnSpec, { maxLength: 2 }) }),
        async (turns, run) => {
          const file = ledgerFile();
          const ledger = open(file);
          let state = FOLD.initial();
          for (const [turn, spec] of turns.entries()) {
            for (const draft of turnDrafts(spec, turn, run.running && turn === turns.length - 1)) state = FOLD.fold(state, ledger.append(draft));
          }
          expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
          await ledger.close();

          const reader = open(file);
          const lazy = loadState(reader, FOLD, { verify: "deferred" });
          expect(lazy.fromCheckpoint).toBe(true);
          let win = lazy.state;
          let full = loadState(reader, FOLD, { useCheckpoint: false }).state;
          const target = TARGETS[run.target] as TargetId;
          const fullMap = createTimelineMapper(lookOf, { hideThoughts: run.hideThoughts });
          const winMap = createTimelineMapper(lookOf, { hideThoughts: run.hideThoughts });
          let local: LocalItem[] = [];
          let want = run.want;

          const check = (dirty?: { type: "message"; id: string }[]): number => {
            const f = fullMap(full, target, local, dirty);
            const w = winMap(win, target, local, dirty, want);
            expect(w.entries).toBe(f.entries);
            expect(w.items).toEqual(f.items.slice(f.items.length - w.items.length));
            if (w.start > 0) expect(shownCount(w.items, run.hideThoughts)).toBeGreaterThanOrEqual(want);
            else expect(w.items).toEqual(f.items);
            expect(historyOf(win, w.start)).toEqual(historyOf(full).slice(historyOf(full).length - historyOf(win, w.start).length));
            return w.start;
          };

          // The first frame: the tail only; an early timeline page stays on disk.
          const first = check();
          if (first > 0) windowed++;
          if (first > 256 && unread(win.timeline.pages[0])) leftOnDisk++;
          if (first > 256) expect(unread(win.timeline.pages[0])).toBe(true);

          // The session goes on: streamed chunks (patched between full passes), local items, new turns.
          const h = { source: { type: "harness", harnessTargetId: "fake" }, harness: "fake", harnessTargetId: "fake" } as const;
          const appendBoth = (draft: EventDraft): void => {
            const event = reader.append(draft);
            win = FOLD.fold(win, event);
            full = FOLD.fold(full, event);
          };
          const liveTurn = `t_live` as TurnId;
          appendBoth({ kind: "state_update", ...h, turnId: liveTurn, payload: { state: "running" } });
          check();
          for (let c = 0; c < 3; c++) {
            appendBoth({ kind: "agent_message_chunk", ...h, turnId: liveTurn, payload: { messageId: "msg_live", content: { type: "text", text: ` word${c}` } } });
            check([{ type: "message", id: "msg_live" }]);
          }
          local = [...local, { after: win.timeline.length, item: { kind: "notice", id: "local-1", tone: "info", title: "status" } }];
          check();
          for (const [i, spec] of run.live.entries()) {
            for (const draft of turnDrafts(spec, turns.length + i, false)) appendBoth(draft);
            check();
          }

          // Scroll to the top: the view asks for one window more each time.
          for (let start = check(); start > 0; start = check()) {
            want += run.want;
            steps++;
          }
          await reader.close();
        },
      ),
      { numRuns: 30 },
    );
    // The property exercised what it is about.
    expect(windowed).toBeGreaterThan(10);
    expect(leftOnDisk).toBeGreaterThan(3);
    expect(steps).toBeGreaterThan(20);
  }, 120_000);
});
