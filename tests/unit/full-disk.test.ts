/**
 * A full disk never hangs, tears or reorders the ledger (issue 12.2), in process against the fake harness
 * and the real store: the first failed write stops the turn (in-memory terminal, harness stopped, queue
 * freed, one notice naming the file and the space), nothing is written after it, and reopening (with space)
 * continues with a contiguous seq, repairs a torn tail with a notice and closes the lost turn.
 */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import path from "node:path";
import { fakeDefinition, type FakeScript } from "../support/fake-adapter.ts";
import { kindsOf, ledgerOf, testSessions, waitFor, type HostOptions } from "../support/session-host.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { RECOVERY_NOTICE, TORN_TAIL_NOTICE } from "../../src/controller/recovery.ts";
import { nodeLedgerIo, readLedgerFile, setDiskFaults, type LedgerIo } from "../../src/store/index.ts";

const text = (value: string) => [{ type: "text" as const, text: value }];
const sessions = testSessions({ beforeCleanup: () => setDiskFaults(undefined) });
const open = (script: FakeScript | (() => FakeScript), extra: Partial<HostOptions> = {}, reuseHome = false) => sessions.open({ definitions: [fakeDefinition(script)], ...extra }, reuseHome);

/** Writes fail with ENOSPC once `full()` says so, after a short write of half the bytes (like a real disk). */
function diskIo(fills: (data: string) => boolean): LedgerIo & { failures: number } {
  let tore = false;
  let full = false;
  const io = {
    ...nodeLedgerIo,
    failures: 0,
    writeSync(fd: number, data: string | Uint8Array) {
      const asText = typeof data === "string" ? data : Buffer.from(data).toString("utf8");
      full ||= fills(asText);
      if (!full) return nodeLedgerIo.writeSync(fd, data);
      io.failures++;
      const bytes = Buffer.from(asText);
      if (!tore) {
        tore = true;
        return nodeLedgerIo.writeSync(fd, bytes.subarray(0, Math.floor(bytes.byteLength / 2)));
      }
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    },
  };
  return io;
}

/** Settles within `ms` or says it hung. */
async function settled<T>(promise: Promise<T>, ms = 3000): Promise<{ value?: T; error?: Error } | "hung"> {
  return Promise.race([
    promise.then((value) => ({ value }), (error: Error) => ({ error })),
    new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), ms)),
  ]);
}

function seqs(file: string): number[] {
  return readLedgerFile(file).map((event) => event.seq);
}

function contiguous(values: readonly number[]): boolean {
  return values.every((value, index) => value === index + 1);
}

async function reopen(s: OpenedSession, script: FakeScript = { turns: [[{ type: "text", text: "after" }]] }): Promise<OpenedSession> {
  await s.close();
  sessions.forget(s);
  return open(script, { choice: { kind: "id", id: s.ref.batonSessionId } }, true);
}

describe("a full disk stops the turn cleanly", () => {
  test("the turn summary cannot be written (the write in the finalizer): submit settles with the disk error instead of hanging", async () => {
    let full = false;
    const io = diskIo((data) => full || data.includes('"kind":"_baton_turn_summary"'));
    const s = await open({ turns: [[{ type: "text", text: "answer" }]] }, { ledgerIo: io });
    const outcome = await settled(s.controller.submit("fake", text("hello")));
    full = true;
    expect(outcome).not.toBe("hung");
    expect((outcome as { error?: Error }).error?.message).toMatch(/the disk is full: could not append to .*session\.jsonl \(\d[\d.]* [KMG]?B to write/);
    expect(s.controller.busy).toBe(false);
    // nothing half-written: the partial summary line was truncated away
    const bytes = fs.readFileSync(s.ref.paths.ledger);
    expect(bytes.at(-1)).toBe(0x0a);
    expect(kindsOf(ledgerOf(s))).not.toContain("_baton_turn_summary");
  });

  test("a streamed chunk flush fails: one notice with file and space, the turn and a queued follow-up settle, later prompts are refused, the harness is stopped", async () => {
    let full = false;
    const io = diskIo(() => full);
    const fake = fakeDefinition({ turns: [[{ type: "text", text: "before" }, { type: "wait", ms: 40 }, { type: "text", text: "after", chunks: 4 }, { type: "wait", ms: 2000 }]] });
    const s = await sessions.open({ definitions: [fake], ledgerIo: io });
    const notices: string[] = [];
    s.controller.onNotice((notice) => {
      if (notice.level === "error") notices.push(`${notice.level}: ${notice.text}`);
    });
    const first = s.controller.submit("fake", text("write a lot"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("agent_message"));
    const followUp = s.controller.submit("fake", text("then this"), {});
    full = true;
    const [a, b] = await Promise.all([settled(first), settled(followUp)]);
    expect(a).not.toBe("hung");
    expect(b).not.toBe("hung");
    expect((a as { error?: Error }).error?.message).toContain("the disk is full");
    expect((b as { error?: Error }).error?.message).toContain("the disk is full");
    expect(notices.length).toBe(1);
    expect(notices[0]).toMatch(/^error: the disk is full: could not append to .*session\.jsonl .*free there\)\. free some disk space/);
    expect(s.controller.busy).toBe(false);
    // the harness was stopped (its process closed), not left running a turn nobody records
    await waitFor(() => fake.adapters[0]!.record.closes > 0, 2000, "the harness to be closed");
    full = false;
    await expect(s.controller.submit("fake", text("again"))).rejects.toThrow(/stopped recording after a failed write \(the disk is full/);
    expect(notices.length).toBe(1);
    const written = seqs(s.ref.paths.ledger);
    // Reopening with space: contiguous seq, the lost turn closed with the recovery notice, the next turn runs.
    const reopened = await reopen(s);
    expect(reopened.recovery.turnsClosed).toBe(1);
    expect(await reopened.controller.submit("fake", text("once more"))).toBe("completed");
    const after = readLedgerFile(reopened.ref.paths.ledger);
    expect(contiguous(after.map((event) => event.seq))).toBe(true);
    expect(after.slice(0, written.length).map((event) => event.seq)).toEqual(written);
    expect(after.some((event) => event.kind === "_baton_notice" && (event.payload as { title: string }).title === RECOVERY_NOTICE)).toBe(true);
  });

  test("the admission cannot be written: the prompt is refused with the disk error and nothing of it is on disk", async () => {
    const io = diskIo((data) => data.includes('"kind":"user_message"'));
    const s = await open({ turns: [[{ type: "text", text: "never" }]] }, { ledgerIo: io });
    const outcome = await settled(s.controller.submit("fake", text("hello")));
    expect((outcome as { error?: Error }).error?.message).toContain("the disk is full");
    expect(readLedgerFile(s.ref.paths.ledger)).toEqual([]);
    expect(fs.statSync(s.ref.paths.ledger).size).toBe(0);
  });

  test("Baton's own meta.json cannot be written when the agent publishes its session: the turn fails with the disk error, never as the agent failing", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "text", text: "never" }]], beforeIdentity: () => setDiskFaults({ site: "meta" }) });
    const s = await sessions.open({ definitions: [fake] });
    const outcome = await settled(s.controller.submit("fake", text("hello")));
    expect(outcome).not.toBe("hung");
    const message = (outcome as { error?: Error }).error?.message ?? "";
    expect(message).toMatch(/^BatonSession bs_\w+ · fake: the disk is full: could not write .*meta\.json \(\d+ B to write, [\d.]+ [KMG]?B free there\)\. free some disk space/);
    // the adapter's open succeeded: the failure was never handed to it
    expect(fake.adapters[0]!.record.opens.length).toBe(1);
    expect(fake.adapters[0]!.record.prompts.length).toBe(0);
    expect(fs.readdirSync(path.dirname(s.ref.paths.meta)).filter((name) => name.includes(".tmp-"))).toEqual([]);
  });

  test("a torn tail left by a full disk is repaired when the session is reopened, with a notice on the timeline", async () => {
    const s = await open({ turns: [[{ type: "text", text: "answer" }]] });
    expect(await s.controller.submit("fake", text("hello"))).toBe("completed");
    await s.close();
    sessions.forget(s);
    fs.appendFileSync(s.ref.paths.ledger, '{"v":3,"eventId":"ev_torn","seq":');
    const reopened = await open({ turns: [] }, { choice: { kind: "id", id: s.ref.batonSessionId } }, true);
    expect(reopened.recovery.tornTail?.bytes).toBe(33);
    const events = ledgerOf(reopened);
    const notice = events.find((event) => event.kind === "_baton_notice" && (event.payload as { title: string }).title === TORN_TAIL_NOTICE);
    expect((notice?.payload as { detail?: string }).detail).toMatch(/33 bytes were moved to .*session\.jsonl\.partial-\d+/);
    expect(contiguous(events.map((event) => event.seq))).toBe(true);
    expect(fs.readFileSync(reopened.ref.paths.ledger).at(-1)).toBe(0x0a);
  });

  test("a torn tail cannot be moved aside on a full disk: opening fails in one sentence, leaves no 0-byte sidecar and releases the lock", async () => {
    const s = await open({ turns: [[{ type: "text", text: "answer" }]] });
    await s.controller.submit("fake", text("hello"));
    await s.close();
    sessions.forget(s);
    fs.appendFileSync(s.ref.paths.ledger, '{"v":3,"eventId":"ev_torn","seq":');
    setDiskFaults({ site: "sidecar" });
    await expect(open({ turns: [] }, { choice: { kind: "id", id: s.ref.batonSessionId } }, true)).rejects.toThrow(/the disk is full: could not save the torn tail to .*partial-\d+/);
    const dir = path.dirname(s.ref.paths.ledger);
    expect(fs.readdirSync(dir).filter((name) => name.includes("partial") || name.includes(".tmp-"))).toEqual([]);
    expect(fs.existsSync(path.join(dir, "lock"))).toBe(false);
  });

  test("a new session on a full disk: no half-created session directory, no lock temp files, one clear error", async () => {
    for (const site of ["session", "meta", "lock"] as const) {
      setDiskFaults({ site });
      const attempt = sessions.open({ definitions: [fakeDefinition({ turns: [] })] }, true);
      await expect(attempt).rejects.toThrow(/the disk is full: could not/);
      const projects = path.join(sessions.home.home, "projects");
      const leftovers = fs.existsSync(projects)
        ? fs.readdirSync(projects).flatMap((project) => {
            const sessionsDir = path.join(projects, project, "sessions");
            return fs.existsSync(sessionsDir) ? fs.readdirSync(sessionsDir) : [];
          })
        : [];
      expect({ site, leftovers }).toEqual({ site, leftovers: [] });
    }
  });
});
