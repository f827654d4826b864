/** #20.4 approval memory, the matcher: per-segment matching of compound commands, deny beats allow, unreadable asks. */
import { describe, expect, test } from "bun:test";
import type { ApprovalRule } from "../../src/event/approval-rule.ts";
import { commandSegments, commandUnits, globMatches, judge, requestOf, scopesForChoice } from "../../src/interaction/approval-rules.ts";

const P = "/work/app";
const T = "2026-12-01T00:00:00.000Z";
const allowNpmTest: ApprovalRule = { id: "r_1", project: P, toolKind: "command", commandPrefix: ["npm", "test"], decision: "allow", createdAt: T };
const allowGitStatus: ApprovalRule = { id: "r_2", project: P, toolKind: "command", commandPrefix: ["git", "status"], decision: "allow", createdAt: T };
const denyGitPush: ApprovalRule = { id: "r_3", project: P, toolKind: "command", commandPrefix: ["git", "push"], decision: "deny", createdAt: T };
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
    const docs: ApprovalRule = { id: "r_9", project: P, toolKind: "edit", pathGlob: "docs/**", decision: "allow", createdAt: T };
    const secrets: ApprovalRule = { id: "r_10", project: P, toolKind: "edit", pathGlob: "docs/secret.md", decision: "deny", createdAt: T };
    expect(judge([docs], { project: P, toolKind: "edit", paths: ["docs/a.md", "docs/x/y.md"] })).toEqual({ kind: "allow", ruleIds: ["r_9"] });
    expect(judge([docs], { project: P, toolKind: "edit", paths: ["docs/a.md", "src/a.ts"] })).toEqual({ kind: "ask" });
    expect(judge([docs, secrets], { project: P, toolKind: "edit", paths: ["docs/secret.md"] })).toEqual({ kind: "deny", ruleIds: ["r_10"] });
    expect(judge([docs], { project: P, toolKind: "edit", paths: ["docs/../src/a.ts"] })).toEqual({ kind: "ask" });
    expect(judge([docs], { project: P, toolKind: "edit", paths: ["/etc/docs/a"] })).toEqual({ kind: "ask" });
  });

  test("given a double-quoted backslash, when it escapes nothing special, then it stays (bash reads \"np\\m\" as np\\m, not npm)", () => {
    expect(commandSegments('"np\\m" test')).toEqual([["np\\m", "test"]]);
    expect(judge([allowNpmTest], cmd('"np\\m" test'))).toEqual({ kind: "ask" });
    expect(commandSegments('echo "a\\"b"')).toEqual([["echo", 'a"b']]);
    expect(commandSegments("npm test \\\nrm x")).toBeUndefined();
  });

  test("given a shell wrapper (codex runs /bin/bash -lc '<script>'), when judged, then its script's segments are", () => {
    expect(commandUnits("/bin/bash -lc 'npm test'")).toEqual([["npm", "test"]]);
    expect(commandUnits(`bash -c "npm test && git push"`)).toEqual([["npm", "test"], ["git", "push"]]);
    expect(judge([allowNpmTest], cmd("/bin/bash -lc 'npm test'"))).toEqual({ kind: "allow", ruleIds: ["r_1"] });
    expect(judge([allowNpmTest], cmd("/bin/bash -lc 'npm test && git push'"))).toEqual({ kind: "ask" });
    expect(judge([allowNpmTest], cmd("/bin/bash -lc 'npm test $(rm -rf ~)'"))).toEqual({ kind: "ask" });
    // A shell run any other way is not read: `bash script.sh`, `sh -e -c …`.
    expect(commandUnits("bash script.sh")).toBeUndefined();
    expect(commandUnits("sh -e -c 'npm test'")).toBeUndefined();
  });

  test("given a persistent choice, when it becomes rules, then one per segment (allow) or one single segment (deny)", () => {
    expect(scopesForChoice(P, { kind: "command", command: "/bin/bash -lc 'npm test'" }, "allow")).toEqual([{ toolKind: "command", commandPrefix: ["npm", "test"] }]);
    expect(scopesForChoice(P, { kind: "command", command: "npm test && git status && npm test" }, "allow")).toEqual([
      { toolKind: "command", commandPrefix: ["npm", "test"] },
      { toolKind: "command", commandPrefix: ["git", "status"] },
    ]);
    expect(scopesForChoice(P, { kind: "command", command: "npm test && git push" }, "deny")).toBeUndefined();
    expect(scopesForChoice(P, { kind: "command", command: "npm test > out" }, "allow")).toBeUndefined();
    expect(scopesForChoice(P, { kind: "edit", paths: [`${P}/src/a.ts`, "docs/b.md"] }, "allow")).toEqual([
      { toolKind: "edit", pathGlob: "src/a.ts" },
      { toolKind: "edit", pathGlob: "docs/b.md" },
    ]);
    expect(scopesForChoice(P, { kind: "edit", paths: ["/etc/passwd"] }, "allow")).toBeUndefined();
    expect(scopesForChoice(P, { kind: "edit", paths: ["src/*.ts"] }, "allow")).toBeUndefined();
  });

  test("given absolute edit paths, when judged, then they are made project-relative; outside the project asks", () => {
    expect(requestOf(P, { kind: "edit", paths: [`${P}/docs/a.md`] })).toEqual({ project: P, toolKind: "edit", paths: ["docs/a.md"] });
    expect(requestOf(P, { kind: "edit", paths: [`${P}/../other/a.md`] })).toBeUndefined();
    expect(requestOf(P, { kind: "edit", paths: [P] })).toBeUndefined();
  });
});
