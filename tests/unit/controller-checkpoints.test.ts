/**
 * The controller's side of file checkpoints, over a scripted FileCheckpointPort (no git): dispatch waits until
 * the working tree has been read, not for the commit; before/after are recorded in order and compare with the
 * one recorded just before; a failing snapshot skips with a notice and the turn completes; "off" is told once
 * per session; a process that died before keeping a checkpoint's ref has it re-kept by the next one.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Controller } from "../../src/controller/controller.ts";
import { FileCheckpointRecorder } from "../../src/controller/file-checkpoints.ts";
import { DEFAULT_CONTROLLER_SETTINGS, type FileCheckpointPort } from "../../src/controller/ports.ts";
import type { AnyEvent, EventDraft } from "../../src/event/envelope.ts";
import { HarnessRegistry } from "../../src/harness/registry.ts";
import { initialState, replay } from "../../src/projection/index.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type BatonSessionId } from "../../src/shared/ids.ts";
import { silentLogger } from "../../src/shared/log.ts";
import { fakeDefinition, type FakeScript } from "../support/fake-adapter.ts";

type Shot = { commit: string; dirtyPaths?: readonly string[] } | { off: string };

/** A port whose snapshots resolve when the test says so; records every call. */
class ScriptedPort implements FileCheckpointPort {
  readonly calls: string[] = [];
  readonly kept: [string, string, string][] = [];
  private n = 0;
  constructor(private readonly behave: (n: number, previous: string | undefined) => { staged?: Promise<void>; result: Promise<Shot> }) {}

  async snapshot(label: string, previous?: string, staged?: () => void): Promise<Shot> {
    this.calls.push(`${label.split(" ").slice(3).join(" ")} prev=${previous ?? "-"}`);
    const plan = this.behave(++this.n, previous);
    await (plan.staged ?? Promise.resolve());
    staged?.();
    return plan.result;
  }

  async keep(turnId: string, boundary: "before" | "after", commit: string): Promise<void> {
    this.kept.push([turnId, boundary, commit]);
  }
}

const commit = (n: number): string => String(n).repeat(40).slice(0, 40);
const controllers: { shutdown(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of controllers.splice(0)) await c.shutdown();
});

function make(port: FileCheckpointPort, script: FakeScript, events: AnyEvent[] = []) {
  const ledger: AnyEvent[] = [...events];
  const definition = fakeDefinition(script);
  const recorder: FileCheckpointRecorder = new FileCheckpointRecorder({
    port,
    append: (draft) => controller.pipeline.append(draft),
    state: () => controller.state,
    log: silentLogger,
    sessionId: "bs_00000000000000000000000001",
  });
  const controller: Controller = new Controller({
    sessionId: "bs_00000000000000000000000001" as BatonSessionId,
    cwd: "/work",
    ledger: {
      append: (draft: EventDraft) => {
        const event = { ...draft, v: 3, eventId: `ev_${ledger.length + 1}`, seq: ledger.length + 1, ts: new Date().toISOString(), scope: { type: "session", batonSessionId: "bs_00000000000000000000000001" } } as AnyEvent;
        ledger.push(event);
        return event;
      },
      sync: async () => undefined,
    },
    meta: { read: () => ({ batonSessionId: "bs_00000000000000000000000001", cwd: "/work", createdAt: "", harnessSessions: {} }) as never, update: () => undefined },
    ids: createSequentialIdSource(100),
    clock: systemClock,
    log: silentLogger,
    env: {},
    settings: { ...DEFAULT_CONTROLLER_SETTINGS, generateTitles: false },
    registry: new HarnessRegistry([definition]),
    initialState: replay(events, initialState()),
    fileCheckpoints: recorder,
  });
  // Wired like openSession: the recorder appends through the controller's pipeline; close waits for it.
  const close = (): Promise<void> => controller.shutdown().then(() => recorder.settled());
  controllers.push({ shutdown: close });
  return { controller, ledger, definition, close };
}

const checkpointsOf = (ledger: AnyEvent[]) =>
  ledger.filter((e) => e.kind === "_baton_checkpoint").map((e) => {
    const p = e.payload as Record<string, unknown>;
    return [p["boundary"], p["commit"], p["dirtyPaths"], ...(p["dirtyUnknown"] ? ["unknown"] : [])];
  });

describe("controller file checkpoints", () => {
  test("dispatch waits until the files are read, not for the commit; before and after are recorded in order", async () => {
    let read: () => void = () => undefined;
    let commitFirst: (shot: Shot) => void = () => undefined;
    const port = new ScriptedPort((n) =>
      n === 1
        ? { staged: new Promise<void>((r) => (read = r)), result: new Promise<Shot>((r) => (commitFirst = r)) }
        : { result: Promise.resolve({ commit: commit(n), dirtyPaths: ["x.txt"] }) },
    );
    const { controller, ledger, definition, close } = make(port, { turns: [[{ type: "text", text: "done" }]] });
    const outcome = controller.submit("fake", [{ type: "text", text: "go" }]);
    await Bun.sleep(20);
    expect(definition.adapters[0]?.record.prompts ?? []).toHaveLength(0);
    read();
    await Bun.sleep(20);
    expect(definition.adapters[0]?.record.prompts).toHaveLength(1);
    expect(await outcome).toBe("completed");
    expect(checkpointsOf(ledger)).toEqual([]);
    commitFirst({ commit: commit(1) });
    await close();
    expect(checkpointsOf(ledger)).toEqual([
      ["before", commit(1), []],
      ["after", commit(2), ["x.txt"]],
    ]);
    const turnId = ledger.find((e) => e.kind === "user_message")!.turnId;
    expect(port.calls).toEqual([`before ${turnId} prev=-`, `after ${turnId} prev=${commit(1)}`]);
    expect(port.kept.map(([, b, c]) => [b, c])).toEqual([["before", commit(1)], ["after", commit(2)]]);
    const before = ledger.find((e) => e.kind === "_baton_checkpoint")!;
    const userMessage = ledger.find((e) => e.kind === "user_message")!;
    expect((before.payload as { throughSeq: number }).throughSeq).toBe(userMessage.seq - 1);
  });

  test("a failing snapshot skips the checkpoint with a notice; the turn completes; a failed comparison is recorded as unknown", async () => {
    const port = new ScriptedPort((n) => (n === 1 ? { result: Promise.reject(new Error("git exploded")) } : { result: Promise.resolve({ commit: commit(n) }) }));
    const { controller, ledger, close } = make(port, { turns: [[{ type: "text", text: "a" }], [{ type: "text", text: "b" }]] });
    expect(await controller.submit("fake", [{ type: "text", text: "one" }])).toBe("completed");
    expect(await controller.submit("fake", [{ type: "text", text: "two" }])).toBe("completed");
    await close();
    const notices = ledger.filter((e) => e.kind === "_baton_notice").map((e) => (e.payload as { title: string; detail: string }));
    expect(notices).toEqual([{ level: "warning", title: "File checkpoint skipped (before this turn)", detail: "git exploded" } as never]);
    // turn one has no before → no after; turn two compares with nothing recorded yet
    expect(checkpointsOf(ledger)).toEqual([
      ["before", commit(2), []],
      ["after", commit(3), [], "unknown"],
    ]);
  });

  test("no git worktree: one notice per session, nothing else, turns run", async () => {
    const port = new ScriptedPort(() => ({ result: Promise.resolve({ off: "/work is not in a git worktree" }) }));
    const first = make(port, { turns: [[{ type: "text", text: "a" }], [{ type: "text", text: "b" }]] });
    expect(await first.controller.submit("fake", [{ type: "text", text: "one" }])).toBe("completed");
    expect(await first.controller.submit("fake", [{ type: "text", text: "two" }])).toBe("completed");
    await first.close();
    const titles = (l: AnyEvent[]) => l.filter((e) => e.kind === "_baton_notice").map((e) => (e.payload as { title: string }).title);
    expect(titles(first.ledger)).toEqual(["File checkpoints are off"]);
    expect(port.calls).toHaveLength(1);
    // the next process of the same session does not say it again
    const second = make(new ScriptedPort(() => ({ result: Promise.resolve({ off: "still no git" }) })), { turns: [[{ type: "text", text: "c" }]] }, first.ledger);
    expect(await second.controller.submit("fake", [{ type: "text", text: "three" }])).toBe("completed");
    await second.close();
    expect(titles(second.ledger)).toEqual(["File checkpoints are off"]);
  });

  test("the next process re-keeps the last recorded checkpoint (its ref may not have been written before a crash)", async () => {
    const first = make(new ScriptedPort((n) => ({ result: Promise.resolve({ commit: commit(n) }) })), { turns: [[{ type: "text", text: "a" }]] });
    await first.controller.submit("fake", [{ type: "text", text: "one" }]);
    await first.close();
    const port = new ScriptedPort((n) => ({ result: Promise.resolve({ commit: commit(n + 4) }) }));
    const second = make(port, { turns: [[{ type: "text", text: "b" }]] }, first.ledger);
    await second.controller.submit("fake", [{ type: "text", text: "two" }]);
    await second.close();
    expect(port.kept[0]?.slice(1)).toEqual(["after", commit(2)]);
    expect(port.calls[0]).toContain(`prev=${commit(2)}`);
  });
});
