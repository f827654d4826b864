/**
 * #20.2 the inbox, over real sessions in a temp BATON_HOME with the fake harness: every project's waiting sessions
 * from meta.json + checkpoint/tail (never a live process), newest first; live vs "was waiting … when Baton exited".
 */
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { readInbox, type InboxRow } from "../../src/app/inbox.ts";
import { fakeDefinition, type FakeScript } from "../support/fake-adapter.ts";
import { makeTestHome, openTestSession, waitFor, type TestHome } from "../support/session-host.ts";
import { runCliOnce } from "../support/cli-runner.ts";

const text = (value: string) => [{ type: "text" as const, text: value }];
let home: TestHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

function project(name: string): string {
  const dir = path.join(path.dirname(home!.cwd), name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

const inbox = (): InboxRow[] => {
  const problems: string[] = [];
  const rows = readInbox(home!.store, { onProblem: (file, message) => problems.push(`${file}: ${message}`) });
  expect(problems).toEqual([]);
  return rows;
};

const APPROVAL: FakeScript = { turns: [[{ type: "permission", title: "Run npm test" }, { type: "text", text: "tests pass" }]] };

describe("baton inbox", () => {
  test("a pending approval is listed live while its session is open, gone once answered", async () => {
    home = makeTestHome();
    const session = await openTestSession(home, { definitions: [fakeDefinition(APPROVAL)], settings: { generateTitles: false } });
    try {
      const turn = session.controller.submit("fake", text("run the tests"));
      await waitFor(() => session.controller.state.pendingInteractionIds.length === 1, 5000, "the approval card");
      const [row, ...more] = inbox();
      expect(more).toEqual([]);
      expect(row).toMatchObject({ id: session.ref.batonSessionId, project: session.ref.meta.cwd, agent: "fake", waitingFor: ["approval"], live: true, exited: false, summary: "waits for an approval: Run npm test" });
      const [pending] = session.controller.state.pendingInteractionIds;
      await session.controller.resolveInteraction(pending!, { outcome: "selected", optionId: "allow" });
      expect(await turn).toBe("completed");
      expect(inbox()).toEqual([]);
    } finally {
      await session.close();
    }
  });

  test("a session Baton closed while it waited reads 'was waiting for an approval when Baton exited'; a later turn clears it", async () => {
    home = makeTestHome();
    const first = await openTestSession(home, { definitions: [fakeDefinition(APPROVAL)], settings: { generateTitles: false } });
    const id = first.ref.batonSessionId;
    void first.controller.submit("fake", text("run the tests")).catch(() => undefined);
    await waitFor(() => first.controller.state.pendingInteractionIds.length === 1, 5000, "the approval card");
    await first.close();
    expect(inbox()).toEqual([expect.objectContaining({ id, live: false, exited: true, waitingFor: ["approval"], summary: "was waiting for an approval when Baton exited: Run npm test" })]);

    const again = await openTestSession(home, { definitions: [fakeDefinition({ turns: [[{ type: "text", text: "fine" }]] })], choice: { kind: "id", id }, settings: { generateTitles: false } });
    try {
      // Open again (its lock is held), it waits for nobody: the user is looking at it.
      expect(inbox()).toEqual([]);
      expect(await again.controller.submit("fake", text("carry on"))).toBe("completed");
    } finally {
      await again.close();
    }
    expect(inbox()).toEqual([]);
  });

  test("every project is listed, newest first; a suggestion counts, an idle session does not; --json prints the rows", async () => {
    home = makeTestHome();
    const a = await openTestSession(home, { definitions: [fakeDefinition(APPROVAL)], cwd: project("alpha"), settings: { generateTitles: false } });
    void a.controller.submit("fake", text("run the tests")).catch(() => undefined);
    await waitFor(() => a.controller.state.pendingInteractionIds.length === 1, 5000, "the approval card");
    await a.close();
    const idle = await openTestSession(home, { definitions: [fakeDefinition({ turns: [[{ type: "text", text: "hi" }]] })], cwd: project("beta"), settings: { generateTitles: false } });
    expect(await idle.controller.submit("fake", text("hello"))).toBe("completed");
    await idle.close();
    const b = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })], cwd: project("gamma"), settings: { generateTitles: false } });
    b.controller.proposals.open({ type: "baton" }, { text: "run the linter", dedupeKey: "lint", title: "Lint?" });
    await b.close();

    const rows = inbox();
    expect(rows.map((row) => [path.basename(row.project), row.waitingFor, row.summary])).toEqual([
      ["gamma", ["suggestion"], "1 suggestion"],
      ["alpha", ["approval"], "was waiting for an approval when Baton exited: Run npm test"],
    ]);

    const cli = { env: { BATON_HOME: home.home }, cwd: home.cwd, definitions: [fakeDefinition({ turns: [] })] };
    const json = await runCliOnce(["inbox", "--json"], cli);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(rows)));
    const plain = await runCliOnce(["inbox"], cli);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(`@${a.ref.batonSessionId}  ${a.ref.meta.cwd}  [fake]`);
    expect(plain.stdout).toContain("— was waiting for an approval when Baton exited: Run npm test");
  });

  test("meta.json's snapshot from the last close is used only while the ledger has its length; otherwise checkpoint + tail", async () => {
    home = makeTestHome();
    const a = await openTestSession(home, { definitions: [fakeDefinition(APPROVAL)], cwd: project("alpha"), settings: { generateTitles: false } });
    void a.controller.submit("fake", text("run the tests")).catch(() => undefined);
    await waitFor(() => a.controller.state.pendingInteractionIds.length === 1, 5000, "the approval card");
    await a.close();
    const b = await openTestSession(home, { definitions: [fakeDefinition({ turns: [[{ type: "text", text: "hi" }]] })], cwd: project("beta"), settings: { generateTitles: false } });
    expect(await b.controller.submit("fake", text("hello"))).toBe("completed");
    await b.close();
    const refA = home.store.findSession(a.ref.batonSessionId);
    const refB = home.store.findSession(b.ref.batonSessionId);
    expect(refA.meta.attention).toMatchObject({ ledgerBytes: fs.statSync(refA.paths.ledger).size, waiting: { pending: [], exitedWhile: { kind: "approval", title: "Run npm test" } }, lastTarget: "fake" });
    expect(refB.meta.attention).toMatchObject({ ledgerBytes: fs.statSync(refB.paths.ledger).size, waiting: null, lastTarget: "fake" });
    const withSnapshots = inbox();
    // The same rows from the ledgers alone (snapshots removed, or malformed).
    home.store.updateMeta(refA, ({ attention: _dropped, ...meta }) => meta);
    home.store.updateMeta(refB, (meta) => ({ ...meta, attention: { ledgerBytes: "many" } }));
    expect(inbox()).toEqual(withSnapshots);

    // Appended after the close (another process, a crash's tail): the snapshot no longer matches the ledger.
    home.store.updateMeta(refB, (meta) => ({ ...meta, attention: { ledgerBytes: fs.statSync(refB.paths.ledger).size, waiting: null, lastTarget: "fake" } }));
    expect(inbox().map((row) => row.id)).toEqual([refA.batonSessionId]);
    const ledger = home.store.openLedger(refB);
    ledger.append({ kind: "interaction.opened", source: { type: "baton" }, payload: { interactionId: "ix_later", requester: { type: "baton" }, draft: { type: "proposed_input", text: "lint it", dedupeKey: "lint" } } });
    await ledger.close();
    expect(inbox().map((row) => [row.id, row.summary])).toEqual([
      [refB.batonSessionId, "1 suggestion"],
      [refA.batonSessionId, "was waiting for an approval when Baton exited: Run npm test"],
    ]);
  });

  test("nothing waiting prints so; an unexpected argument is a usage error", async () => {
    home = makeTestHome();
    const cli = { env: { BATON_HOME: home.home }, cwd: home.cwd, definitions: [fakeDefinition({ turns: [] })] };
    const empty = await runCliOnce(["inbox"], cli);
    expect([empty.code, empty.stdout]).toEqual([0, "Nothing waits for you.\n"]);
    const bad = await runCliOnce(["inbox", "now"], cli);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unexpected argument 'now'");
  });
});
