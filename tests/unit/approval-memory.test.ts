/**
 * #20.4 approval memory owned by Baton, through the Controller with the fake adapter and a real store
 * ($BATON_HOME/state/approvals.json): a persistent choice becomes a rule; a matching request is answered by the
 * Controller with an `approval_review_update` receipt and no card; compound commands and revoked rules ask; a
 * corrupt rules file asks, with one warning, and is left as it was.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fakeDefinition, type FakeAction } from "../support/fake-adapter.ts";
import { ledgerOf, testSessions, waitFor } from "../support/session-host.ts";
import { ApprovalsFileStore, approvalsFile } from "../../src/store/index.ts";
import type { ApprovalRule } from "../../src/event/approval-rule.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { tableGet } from "../../src/projection/index.ts";
import { targetIdOf } from "../../src/shared/ids.ts";

const text = (value: string) => [{ type: "text" as const, text: value }];
const sessions = testSessions();
const ask = (command: string, always = true): FakeAction[] => [{ type: "permission", title: `Run ${command}?`, command, always }, { type: "text", text: "ran" }];

function kindCount(s: OpenedSession, kind: string): number {
  return ledgerOf(s).filter((e) => e.kind === kind).length;
}

function receipts(s: OpenedSession) {
  return ledgerOf(s).filter((e) => e.kind === "approval_review_update");
}

function notices(s: OpenedSession, level: string) {
  return ledgerOf(s)
    .filter((e) => e.kind === "_baton_notice" && (e.payload as { level: string }).level === level)
    .map((e) => e.payload as { title: string; detail?: string });
}

/** Submit and answer the card that opens with `optionId`; resolves with the turn's outcome. */
async function answerCard(s: OpenedSession, prompt: string, optionId: string): Promise<string> {
  const opened = kindCount(s, "interaction.opened");
  const done = s.controller.submit("fake", text(prompt));
  await waitFor(() => s.controller.pendingInteractions().length === 1, 5000, "the card");
  expect(kindCount(s, "interaction.opened")).toBe(opened + 1);
  await s.controller.resolveInteraction(s.controller.pendingInteractions()[0]!.interactionId, { outcome: "selected", optionId });
  return done;
}

describe("approval memory (fake adapter, real rules file)", () => {
  test("given a first npm test, when the user picks always, then a Baton rule answers the next one with a receipt and no card; && git push still asks; a revoked rule asks again", async () => {
    const fake = fakeDefinition({ turns: [ask("npm test"), ask("npm test -- --watch=false"), ask("npm test && git push"), ask("npm test")] });
    const s = await sessions.open({ definitions: [fake] });
    const file = approvalsFile(sessions.home.home);

    // Given/when: the first npm test asks; the card offers Baton's rule in place of the harness's "always".
    const first = s.controller.submit("fake", text("test it"));
    await waitFor(() => s.controller.pendingInteractions().length === 1, 5000, "the first card");
    const card = s.controller.pendingInteractions()[0]!;
    expect(card.draft.type === "permission" && card.draft.options.map((o) => o.name)).toEqual(["Allow once", "Always allow in this project (Baton rule): `npm test`", "Deny"]);
    await s.controller.resolveInteraction(card.interactionId, { outcome: "selected", optionId: "allow_always" });
    expect(await first).toBe("completed");
    // Then: the harness was answered with its once option (Baton, not the harness, remembers) …
    expect(fake.adapters[0]!.record.answers[0]).toEqual({ outcome: "selected", optionId: "allow" });
    // … and the rule is in the file, 0600, keyed by this project.
    const saved = (JSON.parse(readFileSync(file, "utf8")) as { version: number; rules: ApprovalRule[] }).rules;
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ project: sessions.home.cwd, toolKind: "command", commandPrefix: ["npm", "test"], decision: "allow", createdIn: { sessionId: s.controller.sessionId, targetId: "fake" } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const ruleId = saved[0]!.id;
    expect(notices(s, "info").some((n) => n.title === `baton rule ${ruleId} saved: always allow \`npm test\` in this project`)).toBe(true);

    // When: npm test (with flags) asks again. Then: answered by the rule, a receipt, no card.
    const opened = kindCount(s, "interaction.opened");
    expect(await s.controller.submit("fake", text("again"))).toBe("completed");
    expect(kindCount(s, "interaction.opened")).toBe(opened);
    const [receipt] = receipts(s);
    expect(receipt?.payload).toMatchObject({ decision: "approved", rationale: `baton rule ${ruleId}`, toolCallId: "tool-1", actionType: "command" });
    expect(receipt?.source).toEqual({ type: "baton" });
    expect(receipt?.harnessTargetId).toBe(targetIdOf("fake"));
    expect(fake.adapters[0]!.record.answers[1]).toMatchObject({ outcome: "selected", optionId: "allow" });
    expect(tableGet(s.controller.state.approvalReviews, (receipt!.payload as { reviewId: string }).reviewId)?.rationale).toBe(`baton rule ${ruleId}`);

    // When: a compound command with an unruled segment. Then: it asks.
    expect(await answerCard(s, "and push", "allow")).toBe("completed");
    expect(receipts(s)).toHaveLength(1);

    // When: the rule is revoked. Then: npm test asks again.
    expect((await s.controller.approvals.revoke(ruleId)).id).toBe(ruleId);
    expect((JSON.parse(readFileSync(file, "utf8")) as { rules: unknown[] }).rules).toEqual([]);
    expect(await answerCard(s, "once more", "allow")).toBe("completed");
    expect(receipts(s)).toHaveLength(1);
  });

  test("given a deny rule, when any segment matches it, then the Controller denies with a receipt (deny beats allow)", async () => {
    const fake = fakeDefinition({ turns: [ask("npm test && git push origin main", false)] });
    const s = await sessions.open({ definitions: [fake] });
    const store = new ApprovalsFileStore(approvalsFile(sessions.home.home));
    const at = new Date().toISOString();
    await store.add([
      { id: "apr_1", project: sessions.home.cwd, toolKind: "command", commandPrefix: ["npm", "test"], decision: "allow", createdAt: at },
      { id: "apr_2", project: sessions.home.cwd, toolKind: "command", commandPrefix: ["git", "push"], decision: "deny", createdAt: at },
    ]);
    expect(await s.controller.submit("fake", text("ship"))).toBe("completed");
    expect(kindCount(s, "interaction.opened")).toBe(0);
    expect(receipts(s).map((e) => e.payload)).toMatchObject([{ decision: "denied", rationale: "baton rule apr_2" }]);
    expect(fake.adapters[0]!.record.answers).toEqual([{ outcome: "selected", optionId: "deny", answeredBy: "baton rule apr_2" }]);
  });

  test("given a corrupt rules file, when an agent asks, then the card opens (fail closed) with one warning naming the file, and the file is not overwritten", async () => {
    const fake = fakeDefinition({ turns: [ask("npm test"), ask("npm test")] });
    const s = await sessions.open({ definitions: [fake] });
    const file = approvalsFile(sessions.home.home);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{"version":1,"rules":[{"id":"apr_1","project":"/x","toolKind":"command","decision":"allow"', { mode: 0o600 });
    const before = readFileSync(file, "utf8");

    // When the user even picks "always": it is allowed once, and not remembered (the file is left as it was).
    expect(await answerCard(s, "test it", "allow_always")).toBe("completed");
    expect(fake.adapters[0]!.record.answers[0]).toEqual({ outcome: "selected", optionId: "allow" });
    expect(await answerCard(s, "again", "allow")).toBe("completed");
    const warnings = notices(s, "warning");
    const unusable = warnings.filter((n) => n.title === "Approval rules not used");
    expect(unusable).toHaveLength(1);
    expect(unusable[0]!.detail).toContain(`${file} is not valid JSON`);
    expect(unusable[0]!.detail).toContain("fix or delete the file; until then Baton asks for every approval");
    expect(warnings.some((n) => n.title === "The choice was not remembered (allowed this once)")).toBe(true);
    expect(receipts(s)).toHaveLength(0);
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  test("a request without a subject (nothing to judge) always asks, and its options are the harness's own", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "permission", title: "something", always: true }]] });
    const s = await sessions.open({ definitions: [fake] });
    const done = s.controller.submit("fake", text("go"));
    await waitFor(() => s.controller.pendingInteractions().length === 1);
    const card = s.controller.pendingInteractions()[0]!;
    expect(card.draft.type === "permission" && card.draft.options.map((o) => o.name)).toEqual(["Allow once", "Always allow", "Deny"]);
    await s.controller.resolveInteraction(card.interactionId, { outcome: "selected", optionId: "allow_always" });
    await done;
    expect(fake.adapters[0]!.record.answers[0]).toEqual({ outcome: "selected", optionId: "allow_always" });
  });
});

describe("the rules file", () => {
  const home = () => sessions.home.home;

  test("given invalid rules, when read, then the problem names the file, the key and what to do", async () => {
    await sessions.open({ definitions: [fakeDefinition({ turns: [] })] });
    const file = approvalsFile(home());
    mkdirSync(path.dirname(file), { recursive: true });
    const store = new ApprovalsFileStore(file);
    writeFileSync(file, JSON.stringify({ version: 1, rules: [{ id: "apr_1", project: "/p", toolKind: "command", pathGlob: "x", decision: "allow", createdAt: "t" }] }));
    expect(await store.read()).toEqual({ ok: false, problem: `${file}: rules[0]: a command rule has commandPrefix (and no pathGlob); an edit rule has pathGlob (and no commandPrefix); fix or delete the file; until then Baton asks for every approval` });
    writeFileSync(file, JSON.stringify({ version: 1, rules: [{ id: "apr_1", project: "/p", toolKind: "command", commandPrefix: [], decision: "allow", createdAt: "t" }] }));
    const short = await store.read();
    expect(!short.ok && short.problem).toStartWith(`${file}: rules[0].commandPrefix: `);
    writeFileSync(file, JSON.stringify({ version: 2, rules: [] }));
    const version = await store.read();
    expect(!version.ok && version.problem).toStartWith(`${file}: version: `);
    await expect(store.add([])).rejects.toThrow(/version/);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ version: 2, rules: [] });
  });

  test("given rules, when added twice or revoked by a unique prefix, then the file holds each rule once; an unknown id writes nothing", async () => {
    await sessions.open({ definitions: [fakeDefinition({ turns: [] })] });
    const store = new ApprovalsFileStore(approvalsFile(home()));
    expect(await store.read()).toEqual({ ok: true, rules: [] });
    const rule: ApprovalRule = { id: "apr_01AAA", project: "/p", toolKind: "command", commandPrefix: ["npm", "test"], decision: "allow", createdAt: "t" };
    await store.add([rule]);
    expect(await store.add([{ ...rule, id: "apr_01BBB" }])).toEqual([rule]);
    await store.add([{ ...rule, id: "apr_02CCC", commandPrefix: ["git", "status"] }]);
    await expect(store.revoke("apr_0")).rejects.toThrow(/matches 2 rules/);
    await expect(store.revoke("apr_9")).rejects.toThrow(/no approval rule 'apr_9'/);
    expect((await store.revoke("apr_01")).id).toBe("apr_01AAA");
    const read = await store.read();
    expect(read.ok && read.rules.map((r) => r.id)).toEqual(["apr_02CCC"]);
  });
});
