import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import type { AnyEvent, EventDraft } from "../../src/event/envelope.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { BatonError } from "../../src/shared/errors.ts";
import { createSequentialIdSource, type EventId, type TurnId } from "../../src/shared/ids.ts";
import { readLedgerFile } from "../../src/store/ledger-read.ts";
import { createSessionStore, type SessionStore } from "../../src/store/session-store.ts";
import type { SessionRef } from "../../src/store/sessions.ts";
import { brand } from "../support/ids.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const tempDir = tempDirs();

const turnId = "t_00000000000000000000000001" as TurnId;

function drafts(parent: () => EventId | undefined): EventDraft[] {
  return [
    { kind: "user_message", source: { type: "user" }, turnId, payload: { messageId: "m_user", content: [{ type: "text", text: "hi" }] } },
    { kind: "state_update", source: { type: "baton" }, turnId, payload: { state: "running" } },
    {
      kind: "agent_message_chunk",
      source: { type: "harness", harnessTargetId: "codex" },
      harness: "codex",
      harnessTargetId: "codex",
      turnId,
      ...(parent() === undefined ? {} : { parentEventId: parent() as EventId }),
      payload: { messageId: "m_agent", content: { type: "text", text: "hello" } },
      raw: { method: "item/agentMessage/delta", params: { delta: "hello" } },
    },
    { kind: "state_update", source: { type: "baton" }, turnId, payload: { state: "idle", stopReason: "end_turn" } },
    { kind: "_baton_notice", source: { type: "baton" }, payload: { level: "info", title: "after the fork point" } },
  ];
}

async function sourceSession(): Promise<{ store: SessionStore; clock: ManualClock; source: SessionRef; events: AnyEvent[] }> {
  const clock = new ManualClock();
  const store = createSessionStore({ home: tempDir("baton-home-"), clock, ids: createSequentialIdSource() });
  const source = store.createSession({ cwd: tempDir("baton-src-"), preview: "hi" });
  const ledger = store.openLedger(source);
  const events: AnyEvent[] = [];
  for (let index = 0; index < 5; index++) {
    events.push(ledger.append(drafts(() => events[0]?.eventId)[index] as EventDraft));
    clock.advance(1000);
  }
  await ledger.close();
  return { store, clock, source, events };
}

describe("fork as storage", () => {
  test("given a source, when forked through seq 3 from another cwd, then the child holds the re-stamped prefix under the invoking cwd's project", async () => {
    const { store, source, events } = await sourceSession();
    const invokingCwd = tempDir("baton-elsewhere-");
    const child = store.forkSession(source.batonSessionId, 3, { cwd: invokingCwd, title: "child" });

    expect(child.projectDir).toBe(store.ensureProject(invokingCwd).dir);
    expect(child.projectDir).not.toBe(source.projectDir);
    expect(child.meta).toMatchObject({
      batonSessionId: child.batonSessionId,
      title: "child",
      preview: "hi",
      cwd: invokingCwd,
      harnessSessions: {},
      forkedFrom: { batonSessionId: source.batonSessionId, throughSeq: 3 },
    });

    const copied = readLedgerFile(child.paths.ledger);
    expect(copied.map((event) => event.seq)).toEqual([1, 2, 3]);
    copied.forEach((copy, index) => {
      const original = events[index] as AnyEvent;
      expect(copy.eventId).not.toBe(original.eventId);
      expect(copy.scope).toEqual({ type: "session", batonSessionId: child.batonSessionId });
      const { eventId: _a, scope: _b, parentEventId: _c, ...sameCopy } = copy;
      const { eventId: _d, scope: _e, parentEventId: _f, ...sameOriginal } = original;
      expect(sameCopy).toEqual(sameOriginal); // seq, ts, turnId, messageId, payload, raw kept
    });
    expect(copied[2]?.parentEventId).toBe(copied[0]?.eventId as EventId);
    expect(new Set(copied.map((event) => event.eventId)).size).toBe(3);

    const ledger = store.openLedger(child);
    expect(ledger.lastSeq).toBe(3);
    expect(ledger.append(drafts(() => undefined)[4] as EventDraft).seq).toBe(4);
    expect(readLedgerFile(source.paths.ledger)).toEqual(events); // source untouched
    expect(store.findSession(child.batonSessionId).meta.forkedFrom?.throughSeq).toBe(3);
    expect(fs.statSync(child.paths.ledger).mode & 0o777).toBe(0o600);
    expect(fs.statSync(child.paths.dir).mode & 0o777).toBe(0o700);
  });

  test("forking through the last seq copies everything; through 0 makes an empty child", async () => {
    const { store, source } = await sourceSession();
    const cwd = tempDir("baton-cwd-");
    expect(readLedgerFile(store.forkSession(source.batonSessionId, 5, { cwd }).paths.ledger)).toHaveLength(5);
    expect(readLedgerFile(store.forkSession(source.batonSessionId, 0, { cwd }).paths.ledger)).toHaveLength(0);
  });

  test.each([[6], [-1], [1.5]])("fork point %p is a usage error and leaves no directory behind", async (seq) => {
    const { store, source } = await sourceSession();
    const cwd = tempDir("baton-cwd-");
    let error: unknown;
    try {
      store.forkSession(source.batonSessionId, seq, { cwd });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BatonError);
    expect((error as BatonError).code).toBe("usage");
    expect(store.listSessions({ all: true }).sessions).toHaveLength(1);
  });

  test("a torn tail in the source is not copied", async () => {
    const { store, source } = await sourceSession();
    fs.appendFileSync(source.paths.ledger, '{"v":3,"seq":6,"kin');
    const child = store.forkSession(source.batonSessionId, 5, { cwd: tempDir("baton-cwd-") });
    expect(readLedgerFile(child.paths.ledger).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(fs.readFileSync(child.paths.ledger, "utf8").endsWith("\n")).toBe(true);
  });

  test("an unknown source id is session_not_found", async () => {
    const { store } = await sourceSession();
    expect(() => store.forkSession("bs_00000000000000000000000999", 1, { cwd: tempDir("baton-cwd-") })).toThrow(
      expect.objectContaining({ code: "session_not_found" }),
    );
  });
});

describe("fork keeps what the user chose (NAT-09)", () => {
  test("each target's model, effort and mode survive; the native binding, launch snapshot, epoch and sync point do not", async () => {
    const { store, source } = await sourceSession();
    store.updateMeta(source, (meta) => ({
      ...meta,
      harnessSessions: {
        codex: {
          harnessTargetId: brand.target("codex"),
          harness: "codex",
          model: "gpt-5.4",
          effort: "high",
          mode: "plan",
          harnessSessionId: "019a-thread",
          resumeState: { version: 1, data: { threadId: "019a-thread" } },
          launchSnapshot: { harnessTargetId: brand.target("codex"), harness: "codex", harnessSessionKey: "codex-thread", cwd: source.meta.cwd, model: "gpt-5.4" },
          contextEpochId: brand.epoch("ctxe_1"),
          syncedSeq: 4,
        },
        claude: { harnessTargetId: brand.target("claude"), harness: "claude", model: "opus", harnessSessionId: "c0ffee" },
      },
    }));
    const child = store.forkSession(source.batonSessionId, 5, { cwd: tempDir("baton-cwd-") });
    const expected = {
      codex: { harnessTargetId: brand.target("codex"), harness: "codex", model: "gpt-5.4", effort: "high", mode: "plan" },
      claude: { harnessTargetId: brand.target("claude"), harness: "claude", model: "opus" },
    };
    expect(child.meta.harnessSessions).toEqual(expected);
    expect(store.findSession(child.batonSessionId).meta.harnessSessions).toEqual(expected);
  });
});
