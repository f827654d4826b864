/**
 * The pure rules of src/interaction/ as given/when/then: the non-interactive policy, a plugin question's answer
 * normalisation, and the permission card Baton's approval memory offers. No broker, no ledger.
 */
import { describe, expect, test } from "bun:test";
import type { InteractionDraft, PermissionDraft, QuestionDraft } from "../../src/event/interaction-types.ts";
import { normaliseAnswer } from "../../src/interaction/answers.ts";
import { offerRules, ruleRationale } from "../../src/interaction/permission-options.ts";
import { approvalPolicy } from "../../src/interaction/policy.ts";
import { brand } from "../support/ids.ts";

const permission = (options: PermissionDraft["options"], subject?: PermissionDraft["subject"]): PermissionDraft => ({
  type: "permission",
  title: "Run npm test",
  options,
  ...(subject === undefined ? {} : { subject }),
});
const ALLOW_ONCE = { optionId: "yes", name: "Yes", polarity: "allow", lifetime: "once" } as const;
const ALLOW_ALWAYS = { optionId: "always", name: "Yes, always", polarity: "allow", lifetime: "persistent" } as const;
const REJECT_ONCE = { optionId: "no", name: "No", polarity: "reject", lifetime: "once" } as const;
const pending = (draft: InteractionDraft) => ({ interactionId: brand.interaction("ix_1"), turnId: brand.turn("t_1"), targetId: brand.target("fake"), draft });

describe("approvalPolicy (baton exec --approve)", () => {
  test("given a permission with once options, when allow or deny, then the once option of that polarity, attributed", () => {
    const draft = permission([ALLOW_ALWAYS, ALLOW_ONCE, REJECT_ONCE]);
    expect(approvalPolicy("allow")(pending(draft))).toEqual({ outcome: "selected", optionId: "yes", answeredBy: "cli-policy:allow" });
    expect(approvalPolicy("deny")(pending(draft))).toEqual({ outcome: "selected", optionId: "no", answeredBy: "cli-policy:deny" });
  });

  test("given only a persistent option of the polarity, when allow, then that one; given none, then cancelled non-interactive", () => {
    expect(approvalPolicy("allow")(pending(permission([ALLOW_ALWAYS, REJECT_ONCE])))).toEqual({ outcome: "selected", optionId: "always", answeredBy: "cli-policy:allow" });
    expect(approvalPolicy("deny")(pending(permission([ALLOW_ONCE])))).toEqual({ outcome: "cancelled", reason: "non-interactive" });
  });

  test("given a hook-trust card, then skipped; given a question, then cancelled non-interactive (never a made-up answer)", () => {
    expect(approvalPolicy("allow")(pending({ type: "hook_trust", harnessName: "h", hooks: [] }))).toEqual({ outcome: "skipped" });
    expect(approvalPolicy("allow")(pending({ type: "question", questions: [{ questionId: "q", header: "Q", question: "?" }] }))).toEqual({ outcome: "cancelled", reason: "non-interactive" });
  });
});

describe("normaliseAnswer (plugin questions)", () => {
  const draft: QuestionDraft = {
    type: "question",
    questions: [
      { questionId: "pick", header: "Pick", question: "Which?", options: [{ optionId: "a", label: "Alpha" }, { label: "Beta" }] },
      { questionId: "free", header: "Note", question: "Why?" },
    ],
  };

  test("given a label, an id or free text where allowed, when normalised, then one value per question, labels as their ids", () => {
    expect(normaliseAnswer(draft, { outcome: "answered", answers: { pick: [" Alpha "], free: ["because"] } })).toEqual({ outcome: "answered", answers: { pick: ["a"], free: ["because"] } });
    expect(normaliseAnswer(draft, { outcome: "answered", answers: { pick: ["Beta"], free: ["x"] }, answeredBy: "someone" })).toEqual({ outcome: "answered", answers: { pick: ["Beta"], free: ["x"] } });
  });

  test("given a cancel, then only its reason is kept; given another outcome, a value not offered, or not exactly one value, then usage", () => {
    expect(normaliseAnswer(draft, { outcome: "cancelled", reason: "user" })).toEqual({ outcome: "cancelled", reason: "user" });
    expect(() => normaliseAnswer(draft, { outcome: "selected", optionId: "a" })).toThrow(expect.objectContaining({ code: "usage" }));
    expect(() => normaliseAnswer(draft, { outcome: "answered", answers: { pick: ["Gamma"], free: ["x"] } })).toThrow('"Gamma" is not one of Alpha, Beta');
    expect(() => normaliseAnswer(draft, { outcome: "answered", answers: { pick: ["a", "Beta"], free: ["x"] } })).toThrow('"Pick" takes exactly one answer');
    expect(() => normaliseAnswer(draft, { outcome: "answered", answers: { pick: ["a"], free: ["  "] } })).toThrow('"Note" takes exactly one answer');
  });
});

describe("offerRules (approval memory's card)", () => {
  test("given a persistent allow and a command Baton can read, then it is renamed for the rule and stands for the once option", () => {
    const { shown, remembering } = offerRules("/p", permission([ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE], { kind: "command", command: "npm test" }));
    expect(shown.options.map((option) => option.name)).toEqual(["Yes", "Always allow in this project (Baton rule): `npm test`", "No"]);
    expect([...remembering]).toEqual([["always", { decision: "allow", scopes: [{ toolKind: "command", commandPrefix: ["npm", "test"] }], onceOptionId: "yes" }]]);
  });

  test("given no subject, no once option of the polarity, or a command it cannot read, then the harness's card as it is", () => {
    for (const draft of [
      permission([ALLOW_ONCE, ALLOW_ALWAYS]),
      permission([ALLOW_ALWAYS, REJECT_ONCE], { kind: "command", command: "npm test" }),
      permission([ALLOW_ONCE, ALLOW_ALWAYS], { kind: "command", command: "echo $(whoami)" }),
    ]) {
      const { shown, remembering } = offerRules("/p", draft);
      expect(shown).toBe(draft);
      expect(remembering.size).toBe(0);
    }
  });

  test("the receipt names every rule that answered", () => {
    expect(ruleRationale(["apr_1", "apr_2"])).toBe("baton rule apr_1, apr_2");
  });
});
