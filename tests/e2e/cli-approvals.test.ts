/**
 * `baton approvals` (#20.4) in-process against a real BATON_HOME and the fake harness: list (this project, --all,
 * --json), revoke by a unique prefix, an unusable rules file reported with exit 1 and left as it was; and
 * `baton exec` prints the rule's receipt where a card would have been.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { runCliOnce } from "../support/cli-runner.ts";
import { ApprovalsFileStore, approvalsFile } from "../../src/store/index.ts";

let base: string;
let env: Record<string, string | undefined>;
let cwd: string;
let file: string;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "baton-cli-approvals-")));
  cwd = path.join(base, "project");
  mkdirSync(cwd, { recursive: true });
  env = { HOME: base, BATON_HOME: path.join(base, "home"), PATH: process.env["PATH"], BATON_DEFAULT_AGENT: "fake" };
  file = approvalsFile(path.join(base, "home"));
  const at = "2026-12-01T18:20:00.000Z";
  await new ApprovalsFileStore(file).add([
    { id: "apr_01AAA", project: cwd, toolKind: "command", commandPrefix: ["npm", "test"], decision: "allow", createdAt: at, createdIn: { sessionId: "bs_1", targetId: "codex" } },
    { id: "apr_02BBB", project: "/elsewhere", toolKind: "edit", pathGlob: "docs/**", decision: "allow", createdAt: at },
  ]);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const cli = (argv: string[]) => runCliOnce(argv, { env, cwd, definitions: [fakeDefinition({ turns: [] })] });

describe("baton approvals", () => {
  test("lists this project's rules (all projects with --all, JSON with --json)", async () => {
    const here = await cli(["approvals"]);
    expect(here.code).toBe(0);
    expect(here.stdout).toBe(`Approval rules for ${cwd}:\napr_01AAA  allow  npm test  · codex, 2026-12-01 18:20\n\nRevoke one with: baton approvals revoke <id>  (or /approvals in the terminal UI)\n`);
    const all = await cli(["approvals", "list", "--all"]);
    expect(all.stdout).toContain(`apr_02BBB  allow  edits to docs/**  · 2026-12-01 18:20  in /elsewhere`);
    const json = JSON.parse((await cli(["approvals", "--json"])).stdout) as { id: string }[];
    expect(json.map((rule) => rule.id)).toEqual(["apr_01AAA"]);
  });

  test("revoke by id prefix removes the rule; an unknown id is an error that writes nothing", async () => {
    const revoked = await cli(["approvals", "revoke", "apr_01"]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`Revoked apr_01AAA: allow npm test in ${cwd}. The next such request asks again.\n`);
    const before = readFileSync(file, "utf8");
    const unknown = await cli(["approvals", "revoke", "apr_99"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("baton: no approval rule 'apr_99'\n  baton approvals list shows the rules and their ids\n");
    expect(readFileSync(file, "utf8")).toBe(before);
    expect((await cli(["approvals"])).stdout).toContain(`No approval rules for ${cwd} yet.`);
    expect((await cli(["approvals", "drop"])).code).toBe(2);
  });

  test("an unusable rules file: exit 1, one line naming the file and what to do; revoke leaves it as it was", async () => {
    writeFileSync(file, "{ not json");
    const listed = await cli(["approvals"]);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toStartWith(`baton: ${file} is not valid JSON (`);
    expect(listed.stderr).toEndWith("); fix or delete the file; until then Baton asks for every approval\n");
    expect((await cli(["approvals", "revoke", "apr_01AAA"])).code).toBe(1);
    expect(readFileSync(file, "utf8")).toBe("{ not json");
  });

  test("baton exec: a request the rules allow prints the receipt, not a card", async () => {
    const definition = fakeDefinition({ turns: [[{ type: "permission", title: "Run npm test?", command: "npm test" }, { type: "text", text: "ran" }]] });
    const result = await runCliOnce(["exec", "test it"], { env, cwd, definitions: [definition] });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("[review] approved — baton rule apr_01AAA");
    expect(result.stderr).not.toContain("[approval]");
    expect(definition.adapters[0]?.record.answers).toMatchObject([{ outcome: "selected", optionId: "allow" }]);
  });
});
