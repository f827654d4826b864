/** #20.1 notifications when an agent waits: the schedule on a manual clock, given/when/then over the projection. */
import { describe, expect, test } from "bun:test";
import { AttentionNotifier, notificationSequence } from "../../src/tui/attention.ts";
import { reduce, replay, type ProjectionState } from "../../src/projection/index.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { createEventFactory, type EventFactory } from "../support/events.ts";

const EPOCH = Date.UTC(2026, 0, 1, 12, 0, 0);
const permission = { type: "permission" as const, title: "Run npm test", options: [{ optionId: "allow", name: "Allow", polarity: "allow" as const, lifetime: "once" as const }] };

function rig(options: { enabled?: boolean; afterMs?: number } = {}) {
  const clock = new ManualClock(EPOCH);
  const written: { at: number; text: string }[] = [];
  const notifier = new AttentionNotifier({
    clock,
    write: (sequence) => written.push({ at: clock.now() - EPOCH, text: sequence }),
    enabled: options.enabled ?? true,
    afterMs: options.afterMs ?? 20_000,
    label: (id) => (id === "codex" ? "Codex" : String(id)),
  });
  // Events are stamped at the manual clock's time, so an interaction's age is what the clock says.
  const f: EventFactory = createEventFactory({ epochMs: EPOCH });
  let state: ProjectionState = replay([]);
  const feed = (event: AnyEvent): void => {
    const stamped = { ...event, ts: new Date(clock.now()).toISOString() };
    state = reduce(state, stamped);
    notifier.onEvent(stamped, state);
  };
  return { clock, written, notifier, f, feed };
}

const at = (written: readonly { at: number }[]) => written.map((w) => w.at / 1000);

describe("attention notifications", () => {
  test("a turn's approval pending past afterSeconds notifies, then repeats after 30 s, 2 min, 10 min, 10 min", () => {
    const { clock, written, f, feed } = rig();
    feed(f.make("state_update", { state: "running" }, { turn: "t_1", target: "codex", source: "baton" }));
    feed(f.make("interaction.opened", { interactionId: "ix_1", requester: { type: "harness", harnessTargetId: "codex" }, draft: permission }, { turn: "t_1", target: "codex" }));
    clock.advance(19_999);
    expect(written).toEqual([]);
    clock.advance(1);
    expect(at(written)).toEqual([20]);
    clock.advance(30_000 + 120_000 + 600_000 + 600_000);
    expect(at(written)).toEqual([20, 50, 170, 770, 1370]);
    expect(written[0]?.text).toBe(notificationSequence("Codex is waiting for your approval"));
    expect(written[0]?.text).toBe("\u001b]9;Codex is waiting for your approval\u0007\u001b]777;notify;Baton;Codex is waiting for your approval\u0007\u0007");
  });

  test("answering it stops the repeats; a card without a turn (a suggestion) never notifies", () => {
    const { clock, written, f, feed } = rig();
    feed(f.make("state_update", { state: "running" }, { turn: "t_1", target: "codex", source: "baton" }));
    feed(f.make("interaction.opened", { interactionId: "ix_1", requester: { type: "harness", harnessTargetId: "codex" }, draft: permission }, { turn: "t_1", target: "codex" }));
    clock.advance(25_000);
    feed(f.make("interaction.resolved", { interactionId: "ix_1", resolution: { outcome: "selected", optionId: "allow" } }, { turn: "t_1", target: "codex", source: "user" }));
    feed(f.make("interaction.opened", { interactionId: "ix_2", requester: { type: "baton" }, draft: { type: "proposed_input", text: "go on", dedupeKey: "k" } }, { source: "baton" }));
    clock.advance(3_600_000);
    expect(at(written)).toEqual([20]);
  });

  test("enabled: false never notifies", () => {
    const { clock, written, f, feed, notifier } = rig({ enabled: false });
    feed(f.make("state_update", { state: "running" }, { turn: "t_1", target: "codex", source: "baton" }));
    feed(f.make("interaction.opened", { interactionId: "ix_1", requester: { type: "harness", harnessTargetId: "codex" }, draft: permission }, { turn: "t_1", target: "codex" }));
    notifier.setFocused(false);
    feed(f.make("_baton_turn_summary", { turnId: "t_1", toolCalls: [] }, { turn: "t_1", target: "codex", source: "baton" }));
    clock.advance(3_600_000);
    expect(written).toEqual([]);
  });

  test("a turn that ends while the terminal is unfocused notifies once; focused, it does not", () => {
    const { written, f, feed, notifier } = rig();
    feed(f.make("_baton_turn_summary", { turnId: "t_1", toolCalls: [] }, { turn: "t_1", target: "codex", source: "baton" }));
    expect(written).toEqual([]);
    notifier.setFocused(false);
    const summary = f.make("_baton_turn_summary", { turnId: "t_2", toolCalls: [] }, { turn: "t_2", target: "codex", source: "baton" });
    feed(summary);
    feed(summary);
    expect(written.map((w) => w.text)).toEqual([notificationSequence("Codex finished its turn")]);
  });
});
