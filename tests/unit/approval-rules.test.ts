/** #20.4 approval memory, the matcher: per-segment matching of compound commands, deny beats allow, unreadable asks. */
import { describe, expect, test } from "bun:test";
import { commandSegments, globMatches, judge, type ApprovalRule } from "../../src/interaction/approval-rules.ts";

const P = "/work/app";
const allowNpmTest: ApprovalRule = { id: "r_1", project: P, toolKind: "command", commandPrefix: ["npm", "test"], decision: "allow" };
const allowGitStatus: ApprovalRule = { id: "r_2", project: P, toolKind: "command", commandPrefix: ["git", "status"], decision: "allow" };
const denyGitPush: ApprovalRule = { id: "r_3", project: P, toolKind: "command", commandPrefix: ["git", "push"], decision: "deny" };
const cmd = (command: string) => ({ project: P, toolKind: "command" as const, command });

describe("approval rules", () => {
  test("shell segments: quotes kept as words, && || ; | split, anything unreadable is undefined", () => {
    expect(commandSegments("npm test")).toEqual([["npm", "test"]]);
    expect(commandSegments(`npm test -- "a b" 'c d'`)).toEqual([["npm", "test", "--", "a b", "c d"]]);
    expect(commandSegments("npm test && git push || echo x; ls | wc -l")).toEqual([["npm", "test"], ["git", "push"], ["echo", "x"], ["ls"], ["wc", "-l"]]);
    for (const bad of ["npm test $(rm -rf /)", "npm test `rm x`", "npm test > out", "npm test &", "&& npm test", "npm test &&", 'npm test "open', "(cd x && ls)", "npm test\nrm x", `echo "$HOME"`]) {
      expect(commandSegments(bad)).toBeUndefined();
    }
  });

  test("first npm test asks; an allow rule answers it and its flags; npm test && git push still asks; deny beats allow", () => {
    expect(judge([], cmd("npm test"))).toEqual({ kind: "ask" });
    expect(judge([allowNpmTest], cmd("npm test"))).toEqual({ kind: "allow", ruleIds: ["r_1"] });
    expect(judge([allowNpmTest], cmd("npm test -- --watch=false"))).toEqual({ kind: "allow", ruleIds: ["r_1"] });
    expect(judge([allowNpmTest], cmd("npm testing"))).toEqual({ kind: "ask" });
    expect(judge([allowNpmTest], cmd("npm test && git push"))).toEqual({ kind: "ask" });
    expect(judge([allowNpmTest, allowGitStatus], cmd("npm test && git status"))).toEqual({ kind: "allow", ruleIds: ["r_1", "r_2"] });
    expect(judge([allowNpmTest, denyGitPush], cmd("npm test && git push origin main"))).toEqual({ kind: "deny", ruleIds: ["r_3"] });
    expect(judge([allowNpmTest], cmd("npm test > /etc/passwd"))).toEqual({ kind: "ask" });
  });

  test("rules are per project and per tool kind; a revoked (removed) rule asks again", () => {
    expect(judge([allowNpmTest], { ...cmd("npm test"), project: "/work/other" })).toEqual({ kind: "ask" });
    expect(judge([allowNpmTest], { project: P, toolKind: "edit", paths: ["npm"] })).toEqual({ kind: "ask" });
    const rules = [allowNpmTest, allowGitStatus];
    expect(judge(rules.filter((rule) => rule.id !== "r_1"), cmd("npm test"))).toEqual({ kind: "ask" });
  });

  test("path globs: * within a segment, ** across; every path must be allowed; absolute or .. paths ask", () => {
    expect(globMatches("src/**", "src/a/b.ts")).toBe(true);
    expect(globMatches("src/*.ts", "src/a/b.ts")).toBe(false);
    expect(globMatches("**/*.md", "README.md")).toBe(true);
    expect(globMatches("docs/?.md", "docs/a.md")).toBe(true);
    const docs: ApprovalRule = { id: "r_9", project: P, toolKind: "edit", pathGlob: "docs/**", decision: "allow" };
    const secrets: ApprovalRule = { id: "r_10", project: P, toolKind: "edit", pathGlob: "docs/secret.md", decision: "deny" };
    expect(judge([docs], { project: P, toolKind: "edit", paths: ["docs/a.md", "docs/x/y.md"] })).toEqual({ kind: "allow", ruleIds: ["r_9"] });
    expect(judge([docs], { project: P, toolKind: "edit", paths: ["docs/a.md", "src/a.ts"] })).toEqual({ kind: "ask" });
    expect(judge([docs, secrets], { project: P, toolKind: "edit", paths: ["docs/secret.md"] })).toEqual({ kind: "deny", ruleIds: ["r_10"] });
    expect(judge([docs], { project: P, toolKind: "edit", paths: ["docs/../src/a.ts"] })).toEqual({ kind: "ask" });
    expect(judge([docs], { project: P, toolKind: "edit", paths: ["/etc/docs/a"] })).toEqual({ kind: "ask" });
  });
});
