/** canUseTool → interactions (CLA-07, IX-06), with a scripted interaction handler. */
import { describe, expect, test } from "bun:test";
import type { CanUseTool, PermissionUpdate } from "@anthropic-ai/claude-agent-sdk";
import {
  createCanUseTool,
  DECLINED_MESSAGE,
  DISMISSED_MESSAGE,
  KEEP_PLANNING_MESSAGE,
  PLAN_MODE_MESSAGE,
  permissionOptions,
} from "../../src/harness/claude/permissions.ts";
import type { InteractionContext } from "../../src/harness/contract.ts";
import type { InteractionDraft, InteractionResolution } from "../../src/event/interaction-types.ts";
import type { TurnId } from "../../src/shared/ids.ts";
import { silentLogger } from "../../src/shared/log.ts";

const TURN = "t_00000000000000000000000007" as TurnId;

function setup(answer: (draft: InteractionDraft) => InteractionResolution, mode = "default") {
  const asked: { draft: InteractionDraft; context: InteractionContext }[] = [];
  const declined: string[] = [];
  const canUseTool = createCanUseTool({
    interactions: {
      request: async (draft, context) => {
        asked.push({ draft, context });
        return answer(draft);
      },
    },
    cwd: "/ws",
    log: silentLogger,
    turnFor: () => TURN,
    sessionId: () => "sess",
    mode: () => mode,
    planOf: (id) => (id === "plan-tool" ? "1. the plan" : undefined),
    onDeclined: (id) => declined.push(id),
  });
  return { canUseTool, asked, declined };
}

const opts = (extra: Partial<Parameters<CanUseTool>[2]> = {}): Parameters<CanUseTool>[2] => ({
  signal: new AbortController().signal,
  toolUseID: "toolu_1",
  requestId: "req",
  ...extra,
});

const rule: PermissionUpdate = { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "echo hi *" }], behavior: "allow", destination: "localSettings" };
const sessionDir: PermissionUpdate = { type: "addDirectories", directories: ["/ws"], destination: "session" };

describe("Claude permission options (IX-06)", () => {
  test("no suggestions → no 'always' option", () => {
    expect(permissionOptions({}).map((o) => o.optionId)).toEqual(["allow", "deny"]);
  });
  test("a persistent suggestion → an 'always' option naming what it grants, lifetime persistent", () => {
    const always = permissionOptions({ suggestions: [rule, sessionDir] })[1]!;
    expect(always).toMatchObject({ optionId: "allowAlways", polarity: "allow", lifetime: "persistent" });
    expect(always.name).toBe("Always: allow Bash(echo hi *) (saved to local project settings); allow access to /ws (for this session)");
  });
  test("session-only suggestions → lifetime session; suppressAlwaysAllowRule hides it", () => {
    expect(permissionOptions({ suggestions: [sessionDir] })[1]).toMatchObject({ lifetime: "session" });
    expect(permissionOptions({ suggestions: [rule], suppressAlwaysAllowRule: true }).map((o) => o.optionId)).toEqual(["allow", "deny"]);
  });
});

describe("createCanUseTool", () => {
  test("allow once passes the input through; the card carries turn, tool call id and the abort signal", async () => {
    const { canUseTool, asked } = setup(() => ({ outcome: "selected", optionId: "allow" }));
    const signal = new AbortController().signal;
    const result = await canUseTool("Bash", { command: "echo hi > a" }, opts({ signal, suggestions: [rule], displayName: "Bash" }));
    expect(result).toMatchObject({ behavior: "allow", updatedInput: { command: "echo hi > a" } });
    expect(asked[0]!.draft).toMatchObject({ type: "permission", title: "Bash: echo hi > a", toolCallId: "toolu_1" });
    expect(asked[0]!.context).toMatchObject({ turnId: TURN, harnessSessionId: "sess", signal });
  });

  test("a Write or Edit card carries what it would change: new content as additions, old → new (#11.9)", async () => {
    const { canUseTool, asked } = setup(() => ({ outcome: "selected", optionId: "allow" }));
    await canUseTool("Write", { file_path: "/ws/new.txt", content: "hello\nworld\n" }, opts());
    await canUseTool("Edit", { file_path: "/ws/a.ts", old_string: "let x = 1;", new_string: "let x = 2;\nlet y = 3;", replace_all: true }, opts());
    const diffs = asked.map((a) => (a.draft.type === "permission" ? a.draft.diffs : undefined));
    expect(diffs).toEqual([
      [{ type: "diff", changes: [{ operation: "add", path: "/ws/new.txt" }], patch: "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n" }],
      [{ type: "diff", changes: [{ operation: "modify", path: "/ws/a.ts" }], patch: "--- a/a.ts\n+++ b/a.ts\n@@ @@ every occurrence\n-let x = 1;\n+let x = 2;\n+let y = 3;\n" }],
    ]);
  });

  test("'always' returns the SDK's suggestions as updatedPermissions", async () => {
    const { canUseTool } = setup(() => ({ outcome: "selected", optionId: "allowAlways" }));
    const result = await canUseTool("Bash", { command: "echo hi" }, opts({ suggestions: [rule] }));
    expect(result).toMatchObject({ behavior: "allow", updatedPermissions: [rule] });
  });

  test("deny, cancellation and unknown options all decline the tool", async () => {
    for (const resolution of [
      { outcome: "selected", optionId: "deny" },
      { outcome: "cancelled", reason: "requester" },
      { outcome: "selected", optionId: "bogus" },
    ] as InteractionResolution[]) {
      const { canUseTool, declined } = setup(() => resolution);
      expect(await canUseTool("Write", { file_path: "/ws/a", content: "" }, opts())).toMatchObject({ behavior: "deny", message: DECLINED_MESSAGE });
      expect(declined).toEqual(["toolu_1"]);
    }
  });

  test("AskUserQuestion → question with q<i> ids; answers go back keyed by question text, joined", async () => {
    const input = {
      questions: [
        { question: "Color?", header: "Color", options: [{ label: "Red", description: "" }, { label: "Blue", description: "" }], multiSelect: true },
        { question: "Size?", header: "Size", options: [{ label: "S", description: "" }, { label: "L", description: "" }], multiSelect: false },
      ],
    };
    const { canUseTool, asked } = setup(() => ({ outcome: "answered", answers: { q0: ["Red", "Blue"], q1: ["L"] } }));
    const result = await canUseTool("AskUserQuestion", input, opts());
    expect(asked[0]!.draft).toMatchObject({ type: "question", questions: [{ questionId: "q0", multiSelect: true, allowOther: true }, { questionId: "q1" }] });
    expect(result).toMatchObject({ behavior: "allow", updatedInput: { ...input, answers: { "Color?": "Red, Blue", "Size?": "L" } } });
    const dismissed = setup(() => ({ outcome: "cancelled", reason: "user" }));
    expect(await dismissed.canUseTool("AskUserQuestion", input, opts())).toMatchObject({ behavior: "deny", message: DISMISSED_MESSAGE });
  });

  test("plan mode: write-type tools are declined without asking", async () => {
    const { canUseTool, asked, declined } = setup(() => ({ outcome: "selected", optionId: "allow" }), "plan");
    expect(await canUseTool("Write", { file_path: "/ws/a", content: "" }, opts())).toMatchObject({ behavior: "deny", message: PLAN_MODE_MESSAGE });
    expect(asked).toHaveLength(0);
    expect(declined).toEqual(["toolu_1"]);
    expect(await canUseTool("Read", { file_path: "/etc/hosts" }, opts())).toMatchObject({ behavior: "allow" });
  });

  test("ExitPlanMode asks to implement the captured plan; 'keep planning' denies with a stop message", async () => {
    const yes = setup(() => ({ outcome: "selected", optionId: "implement" }), "plan");
    expect(await yes.canUseTool("ExitPlanMode", {}, opts({ toolUseID: "plan-tool" }))).toMatchObject({ behavior: "allow" });
    expect(yes.asked[0]!.draft).toMatchObject({ type: "permission", description: "1. the plan" });
    const no = setup(() => ({ outcome: "selected", optionId: "keep_planning" }), "plan");
    expect(await no.canUseTool("ExitPlanMode", {}, opts({ toolUseID: "plan-tool" }))).toMatchObject({ behavior: "deny", message: KEEP_PLANNING_MESSAGE });
  });
});
