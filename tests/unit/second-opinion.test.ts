/** second-opinion's pure decisions (bundled-plugins/second-opinion/src/review-state.ts). */
import { describe, expect, test } from "bun:test";
import { editedFiles, isEditingTurn, pickReviewer } from "../../bundled-plugins/second-opinion/src/review-state.ts";

const turn = (...calls: { title: string; kind?: string; status?: string }[]) => ({
  turnId: "t_1",
  harnessTargetId: "codex",
  userText: "",
  agentText: "",
  revision: 1,
  toolCalls: calls.map((c, i) => ({ toolCallId: `c${i}`, title: c.title, kind: c.kind ?? "edit", status: c.status ?? "completed" })),
});

describe("second-opinion", () => {
  test("edited files are named as git names them: relative to the session's directory, each once", () => {
    const t = turn({ title: "edit /work/app/src/a.ts, /work/app/b.ts" }, { title: "Write src/a.ts" }, { title: "Edit /elsewhere/c.ts" }, { title: "edit d.ts", status: "failed" }, { title: "cat e.ts", kind: "read" });
    expect(editedFiles(t as never, "/work/app")).toEqual(["src/a.ts", "b.ts", "/elsewhere/c.ts"]);
    expect(editedFiles(t as never, "/work/app/")).toEqual(["src/a.ts", "b.ts", "/elsewhere/c.ts"]);
    expect(isEditingTurn(turn({ title: "cat a", kind: "read" }) as never)).toBe(false);
  });

  test("the reviewer: the setting, else another harness's target seen in the session, else the other bundled agent", () => {
    const snapshot = (targets: { harnessTargetId: string; harness: string | null }[]) => ({ harnessTargets: targets }) as never;
    expect(pickReviewer(snapshot([]), "codex", "claude")).toBe("claude");
    expect(pickReviewer(snapshot([]), "claude", "claude")).toBeUndefined();
    expect(pickReviewer(snapshot([]), "codex", { codex: "codex-2" })).toBe("codex-2");
    expect(pickReviewer(snapshot([{ harnessTargetId: "codex", harness: "codex" }, { harnessTargetId: "codex-2", harness: "codex" }, { harnessTargetId: "sonnet", harness: "claude" }]), "codex", undefined)).toBe("sonnet");
    expect(pickReviewer(snapshot([{ harnessTargetId: "codex", harness: "codex" }]), "codex", undefined)).toBe("claude");
    expect(pickReviewer(snapshot([{ harnessTargetId: "fake", harness: "fake" }]), "fake", undefined)).toBeUndefined();
  });
});
