import { describe, expect, test } from "bun:test";
import {
  commandApproval,
  commandDecisionChoices,
  decisionShape,
  fileChangeApproval,
  permissionsApproval,
  userInputQuestion,
} from "../../src/harness/codex/approvals.ts";
import type { CommandExecutionRequestApprovalParams } from "../../src/harness/codex/protocol/v2/CommandExecutionRequestApprovalParams";

const base: CommandExecutionRequestApprovalParams = {
  kind: "command",
  threadId: "th",
  turnId: "tu",
  itemId: "call_1",
  startedAtMs: 0,
  environmentId: "local",
  command: "/bin/bash -lc 'curl example.com'",
  cwd: "/w",
};

describe("IX-07 codex decision mapping", () => {
  test("string decisions map to the stable options with exact names", () => {
    const choices = commandDecisionChoices(["accept", "acceptForSession", "decline", "cancel"], () => {});
    expect(choices.map((c) => [c.option.optionId, c.option.name, c.option.polarity, c.option.lifetime, c.decision])).toEqual([
      ["accept", "Allow once", "allow", "once", "accept"],
      ["acceptForSession", "Allow for this session", "allow", "session", "acceptForSession"],
      ["decline", "Deny", "reject", "once", "decline"],
      ["cancel", "Deny and stop the turn", "reject", "once", "cancel"],
    ]);
  });

  test("execpolicy amendment → persistent allow 'Allow and remember: <prefix>'; the reply is the amendment itself", () => {
    const amendment = { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["git", "pull"] } };
    const prepared = commandApproval({ ...base, availableDecisions: ["accept", amendment, "cancel"] }, () => {});
    if (prepared.draft.type !== "permission") throw new Error("permission expected");
    const option = prepared.draft.options[1]!;
    expect(option).toEqual({ optionId: "acceptWithExecpolicyAmendment:1", name: "Allow and remember: git pull", polarity: "allow", lifetime: "persistent" });
    expect(prepared.reply({ outcome: "selected", optionId: option.optionId })).toEqual({ decision: amendment });
  });

  test("network amendment renders per action: a deny is a reject option 'Deny and remember: <host>'", () => {
    const deny = { applyNetworkPolicyAmendment: { network_policy_amendment: { host: "evil.example", action: "deny" } } };
    const allow = { applyNetworkPolicyAmendment: { network_policy_amendment: { host: "ok.example", action: "allow" } } };
    const choices = commandDecisionChoices([allow, deny], () => {});
    expect(choices.map((c) => [c.option.name, c.option.polarity, c.option.lifetime])).toEqual([
      ["Allow and remember: ok.example", "allow", "persistent"],
      ["Deny and remember: evil.example", "reject", "persistent"],
    ]);
  });

  test("unreadable decisions are dropped with one report per entry; nothing mappable falls back to the four stable options", () => {
    const seen: string[] = [];
    const choices = commandDecisionChoices([{ brandNewDecision: { x: 1 } }, "teleport", { acceptWithExecpolicyAmendment: { execpolicy_amendment: 7 } }], (s) => seen.push(s));
    expect(seen).toEqual(["{brandNewDecision}", "teleport", "{acceptWithExecpolicyAmendment}"]);
    expect(choices.map((c) => c.option.optionId)).toEqual(["accept", "acceptForSession", "decline", "cancel"]);
  });

  test("an absent availableDecisions is not a warning", () => {
    const seen: string[] = [];
    expect(commandDecisionChoices(undefined, (s) => seen.push(s)).length).toBe(4);
    expect(commandDecisionChoices(null, (s) => seen.push(s)).length).toBe(4);
    expect(seen).toEqual([]);
  });

  test("unknown chosen option replies decline; cancelled replies cancel", () => {
    const prepared = commandApproval({ ...base, availableDecisions: ["accept", "cancel"] }, () => {});
    expect(prepared.reply({ outcome: "selected", optionId: "nope" })).toEqual({ decision: "decline" });
    expect(prepared.reply({ outcome: "cancelled", reason: "timeout" })).toEqual({ decision: "cancel" });
    expect(prepared.reply({ outcome: "selected", optionId: "accept" })).toEqual({ decision: "accept" });
  });

  test("the command card names the command, cwd and reason", () => {
    const prepared = commandApproval({ ...base, reason: "needs network" }, () => {});
    expect(prepared.draft).toMatchObject({ type: "permission", title: "Run command?", toolCallId: "call_1" });
    expect((prepared.draft as { description?: string }).description).toBe("/bin/bash -lc 'curl example.com'\nin /w\nReason: needs network");
  });

  test("decision shapes", () => {
    expect(decisionShape("x")).toBe("x");
    expect(decisionShape({ b: 1, a: 2 })).toBe("{a,b}");
    expect(decisionShape(3)).toBe("number");
  });
});

describe("other server requests", () => {
  test("file change approval offers the stable options, lists the paths and carries Codex's diffs (#11.9)", () => {
    const changes = [
      { path: "/w/a.txt", kind: { type: "update" as const, move_path: null }, diff: "@@ -1 +1 @@\n-old\n+new\n" },
      { path: "/w/b.txt", kind: { type: "add" as const }, diff: "hello\n" },
    ];
    const prepared = fileChangeApproval({ threadId: "t", turnId: "u", itemId: "call_3", startedAtMs: 0, reason: null, grantRoot: null }, changes);
    expect(prepared.draft).toMatchObject({ type: "permission", title: "Apply file changes?", description: "/w/a.txt\n/w/b.txt", toolCallId: "call_3" });
    expect(prepared.draft.type === "permission" ? prepared.draft.diffs : undefined).toEqual([
      { type: "diff", changes: [{ operation: "update", path: "/w/a.txt" }], patch: "--- /w/a.txt\n+++ /w/a.txt\n@@ -1 +1 @@\n-old\n+new\n" },
      { type: "diff", changes: [{ operation: "add", path: "/w/b.txt" }], patch: "--- /dev/null\n+++ /w/b.txt\n@@ -0,0 +1,1 @@\n+hello\n" },
    ]);
    expect(prepared.reply({ outcome: "selected", optionId: "acceptForSession" })).toEqual({ decision: "acceptForSession" });
    expect(prepared.reply({ outcome: "cancelled", reason: "user" })).toEqual({ decision: "cancel" });
  });

  test("permission requests grant the requested profile for the turn or session; deny grants nothing", () => {
    const prepared = permissionsApproval({
      threadId: "t",
      turnId: "u",
      itemId: "i",
      environmentId: null,
      startedAtMs: 0,
      cwd: "/w",
      reason: "network please",
      permissions: { network: { enabled: true }, fileSystem: null },
    });
    expect(prepared.draft).toMatchObject({ type: "permission", title: "Codex requests permission" });
    expect(prepared.reply({ outcome: "selected", optionId: "session" })).toEqual({ permissions: { network: { enabled: true } }, scope: "session" });
    expect(prepared.reply({ outcome: "selected", optionId: "deny" })).toEqual({ permissions: {}, scope: "turn" });
    expect(prepared.reply({ outcome: "cancelled", reason: "user" })).toEqual({ permissions: {}, scope: "turn" });
  });

  test("requestUserInput becomes a question; answers go back per question id; cancel sends no answers", () => {
    const prepared = userInputQuestion({
      threadId: "t",
      turnId: "u",
      itemId: "i",
      isBlocking: true,
      autoResolutionMs: null,
      questions: [{ id: "q1", header: "Pick", question: "Which?", isOther: true, isSecret: false, options: [{ label: "A", description: "first" }] }],
    });
    expect(prepared.draft).toEqual({
      type: "question",
      toolCallId: "i",
      questions: [{ questionId: "q1", header: "Pick", question: "Which?", options: [{ label: "A", description: "first" }], allowOther: true, secret: false }],
    });
    expect(prepared.reply({ outcome: "answered", answers: { q1: ["A"] } })).toEqual({ answers: { q1: { answers: ["A"] } } });
    expect(prepared.reply({ outcome: "cancelled", reason: "user" })).toEqual({ answers: {} });
  });
});
