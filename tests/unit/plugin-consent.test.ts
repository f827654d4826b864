/**
 * The consent card: a Baton question outside any turn, stored in the ledger with the tree digest; answered
 * through the Controller like any card; cancelled by recovery when Baton died before the answer.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { consentDraft, consentGiven, CONSENT_DECLINE, CONSENT_ENABLE } from "../../src/app/plugins.ts";
import type { ConsentRequest } from "../../src/plugin/catalog.ts";
import { NOT_A_SANDBOX } from "../../src/plugin/permissions.ts";
import { tableGet } from "../../src/projection/index.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { ledgerOf, makeTestHome, openTestSession, waitFor, type TestHome } from "../support/session-host.ts";

const request: ConsentRequest = {
  key: "acme/hello@acme",
  pluginId: "acme/hello",
  version: "0.1.0",
  marketplace: "acme",
  treeDigest: "sha512-abc",
  permissions: { exec: ["git"], env: [], network: false, fs: { write: false }, resourceTypes: [] },
  lines: ["may run: git"],
  growth: undefined,
  warning: NOT_A_SANDBOX,
};

let home: TestHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

describe("plugin consent", () => {
  test("the card lists the permissions and the not-a-sandbox warning; Esc answers 'keep it disabled'", () => {
    const draft = consentDraft(request);
    if (draft.type !== "question") throw new Error("expected a question");
    const [q] = draft.questions;
    expect(q?.header).toBe("Enable plugin acme/hello 0.1.0 (acme)?");
    expect(q?.question).toContain("  • may run: git");
    expect(q?.question).toContain("it does not sandbox");
    expect(q?.options?.map((o) => [o.label, o.role])).toEqual([
      [CONSENT_ENABLE, undefined],
      [CONSENT_DECLINE, "reject"],
    ]);
    expect(consentGiven({ outcome: "answered", answers: { consent: [CONSENT_ENABLE] } })).toBe(true);
    expect(consentGiven({ outcome: "answered", answers: { consent: [CONSENT_DECLINE] } })).toBe(false);
    expect(consentGiven({ outcome: "cancelled", reason: "user" })).toBe(false);
  });

  test("asked through the Controller outside any turn, recorded with the digest, answered once", async () => {
    home = makeTestHome();
    const session = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })] });
    const answer = session.controller.askUser(consentDraft(request));
    await waitFor(() => session.controller.pendingInteractions().length === 1);
    const [pending] = session.controller.pendingInteractions();
    expect(pending?.turnId).toBeUndefined();
    const item = tableGet(session.controller.state.interactions, pending?.interactionId ?? "");
    expect(item?.requester).toEqual({ type: "baton" });
    expect((item?.draft as { pluginConsent?: { treeDigest: string } }).pluginConsent?.treeDigest).toBe("sha512-abc");
    await session.controller.resolveInteraction(pending?.interactionId ?? "", { outcome: "answered", answers: { consent: [CONSENT_ENABLE] } });
    expect(consentGiven(await answer)).toBe(true);
    const kinds = ledgerOf(session).filter((e) => e.kind.startsWith("interaction.")).map((e) => [e.kind, e.turnId ?? null, e.source.type]);
    expect(kinds).toEqual([
      ["interaction.opened", null, "baton"],
      ["interaction.resolved", null, "user"],
    ]);
    await session.close();
  });

  test("a consent left open by a dead process is cancelled on reopen (recovery), never left pending", async () => {
    home = makeTestHome();
    const first = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })] });
    void first.controller.askUser(consentDraft(request));
    await waitFor(() => first.controller.state.pendingInteractionIds.length === 1);
    // Simulate a crash: the ledger keeps the open card, nobody resolves it.
    await first.ledger.sync();
    await first.ledger.close();
    first.lock.release();
    const second = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })], choice: { kind: "continue" } });
    expect(second.recovery.interactionsCancelled).toBe(1);
    expect(second.controller.state.pendingInteractionIds).toEqual([]);
    await second.close();
  });
});
