/**
 * Rewind end to end through the CLI (in-process) with the fake harness writing files in a real git worktree:
 * checkpoints around each turn, `baton rewind` restoring both turns' files and forking the transcript, the
 * refusal naming a file the user changed, undo (a rewind of the rewind), a rewind inside a rewound session,
 * the user's index, branch, stash and hooks untouched, a non-git directory, dry runs, export and gc-checkpoints.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fakeDefinition, type FakeAction } from "../support/fake-adapter.ts";
import { runCliOnce } from "../support/cli-runner.ts";
import { filesOf, git, gitEnv, initRepo, userView, writeFiles } from "../support/git-repo.ts";

let base: string;
let env: Record<string, string | undefined>;
let cwd: string;
/** What the next exec's fake turn does. */
let nextTurn: FakeAction[] = [];

beforeEach(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "baton-rewind-cli-"));
  cwd = path.join(base, "project");
  mkdirSync(cwd, { recursive: true });
  env = { ...gitEnv(), HOME: base, BATON_HOME: path.join(base, "home"), BATON_DEFAULT_AGENT: "fake" };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const definitions = () => [fakeDefinition(() => ({ turns: [nextTurn] }))];
const cli = (argv: string[]) => runCliOnce(argv, { env, cwd, definitions: definitions() });

type Event = { kind: string; seq: number; turnId?: string; payload: Record<string, unknown> };

async function turn(prompt: string, steps: FakeAction[], session?: string): Promise<{ session: string; turnId: string }> {
  nextTurn = [...steps, { type: "text", text: `did: ${prompt}` }];
  const result = await cli(["exec", ...(session ? ["--session", session] : []), prompt]);
  expect(result.code).toBe(0);
  const match = /baton: session (bs_\w+) turn (t_\w+) end_turn/.exec(result.stderr);
  if (!match) throw new Error(result.stderr);
  return { session: match[1]!, turnId: match[2]! };
}

function sessionDir(id: string): string {
  const projects = path.join(env["BATON_HOME"]!, "projects");
  for (const project of readdirSync(projects)) {
    const dir = path.join(projects, project, "sessions", id);
    if (existsSync(dir)) return dir;
  }
  throw new Error(`no session ${id}`);
}
const ledgerText = (id: string) => readFileSync(path.join(sessionDir(id), "session.jsonl"), "utf8");
const ledgerOf = (id: string): Event[] => ledgerText(id).trim().split("\n").map((line) => JSON.parse(line) as Event);
const strip = (events: Event[]) => events.map(({ kind, seq, turnId, payload }) => ({ kind, seq, turnId, payload }));

describe("baton rewind (fake harness, real git)", () => {
  test("rewind to before the first turn: both turns' files back, the transcript forked, the old session and the user's index and branch untouched", async () => {
    initRepo(cwd, { "a.txt": "one\n", "keep.txt": "keep\n" });
    // The user's work in progress: a staged new file and an unstaged edit.
    writeFiles(cwd, { "staged.txt": "staged\n" });
    git(cwd, "add", "staged.txt");
    writeFiles(cwd, { "a.txt": "one, edited by the user\n" });
    const before = { view: userView(cwd), files: filesOf(cwd) };

    const first = await turn("add x", [{ type: "write", path: "x.txt", content: "x by turn one\n" }]);
    const second = await turn("change a, drop keep", [{ type: "write", path: "a.txt", content: "by turn two\n" }, { type: "write", path: "keep.txt", content: null }], first.session);
    expect(filesOf(cwd)).toMatchObject({ "x.txt": "x by turn one\n", "a.txt": "by turn two\n" });

    const checkpoints = ledgerOf(first.session).filter((e) => e.kind === "_baton_checkpoint");
    expect(checkpoints.map((e) => [e.payload["boundary"], e.payload["turnId"], e.payload["dirtyPaths"]])).toEqual([
      ["before", first.turnId, []],
      ["after", first.turnId, ["x.txt"]],
      ["before", second.turnId, []],
      ["after", second.turnId, ["a.txt", "keep.txt"]],
    ]);
    // The before-checkpoint holds the tree as it was before the turn (read before its dispatch), the after one the turn's edit.
    expect(git(cwd, "ls-tree", "--name-only", checkpoints[0]!.payload["commit"] as string).trim().split("\n")).toEqual(["a.txt", "keep.txt", "staged.txt"]);
    expect(git(cwd, "show", `${checkpoints[0]!.payload["commit"] as string}:a.txt`)).toBe("one, edited by the user\n");
    expect(git(cwd, "show", `${checkpoints[1]!.payload["commit"] as string}:x.txt`)).toBe("x by turn one\n");
    expect(git(cwd, "for-each-ref", "--format=%(refname)", "refs/baton/").trim().split("\n")).toEqual(
      [first.turnId, `${first.turnId}-after`, second.turnId, `${second.turnId}-after`].map((n) => `refs/baton/checkpoints/${first.session}/${n}`).sort(),
    );

    const list = await cli(["rewind", first.session]);
    expect(list.stdout).toContain(`${second.turnId}  `);
    expect(list.stdout).toContain("before “add x”");

    const oldLedger = ledgerText(first.session);
    const rewound = await cli(["rewind", first.session, "--to", first.turnId, "--yes"]);
    expect(rewound.code).toBe(0);
    const child = rewound.stdout.trim();
    expect(child).toMatch(/^bs_\w{26}$/);
    expect(rewound.stderr).toContain(`rewound ${first.session} before “add x”`);
    expect(filesOf(cwd)).toEqual(before.files);
    expect(userView(cwd)).toEqual(before.view);
    expect(ledgerText(first.session)).toBe(oldLedger);

    // The fork: the old session's events up to the first turn, then the rewind checkpoint.
    const forked = ledgerOf(child);
    const throughSeq = checkpoints[0]!.payload["throughSeq"] as number;
    expect(strip(forked.slice(0, -1))).toEqual(strip(ledgerOf(first.session).filter((e) => e.seq <= throughSeq)));
    expect(forked.at(-1)).toMatchObject({ kind: "_baton_checkpoint", payload: { boundary: "rewind", turnId: first.turnId, commit: checkpoints[0]!.payload["commit"] } });
    expect(forked.some((e) => e.kind === "user_message")).toBe(false);

    // The fork continues with a fresh native session; its first turn is checkpointed against the restored state.
    const next = await turn("try again", [{ type: "write", path: "y.txt", content: "y\n" }], child);
    const meta = JSON.parse(readFileSync(path.join(sessionDir(child), "meta.json"), "utf8"));
    expect(meta.forkedFrom).toEqual({ batonSessionId: first.session, throughSeq });
    expect(ledgerOf(child).filter((e) => e.kind === "_baton_checkpoint").map((e) => [e.payload["boundary"], e.payload["dirtyPaths"]])).toEqual([
      ["rewind", []],
      ["before", []],
      ["after", ["y.txt"]],
    ]);
    expect(next.session).toBe(child);

    const exported = await cli(["export", child]);
    expect(exported.stdout).toContain("## File checkpoints");
    expect(exported.stdout).toContain(`| rewind | \`${first.turnId}\``);
    const json = JSON.parse((await cli(["export", child, "--format", "json"])).stdout);
    expect(json.projection.fileCheckpoints.map((c: { boundary: string }) => c.boundary)).toEqual(["rewind", "before", "after"]);
  });

  test("a file the user changed since (between turns or after the last) is refused, named, and nothing changes", async () => {
    initRepo(cwd, { "notes.md": "mine\n" });
    const first = await turn("write code", [{ type: "write", path: "code.ts", content: "v1\n" }]);
    writeFiles(cwd, { "notes.md": "mine, edited between turns\n" });
    const second = await turn("more code", [{ type: "write", path: "code.ts", content: "v2\n" }], first.session);
    expect(ledgerOf(first.session).find((e) => e.kind === "_baton_checkpoint" && e.turnId === second.turnId)?.payload["dirtyPaths"]).toEqual(["notes.md"]);
    const files = filesOf(cwd);

    const refused = await cli(["rewind", first.session, "--to", first.turnId, "--yes"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("refused");
    expect(refused.stderr).toContain("changes made outside any agent turn since then: notes.md");
    expect(refused.stdout).toBe("");
    expect(filesOf(cwd)).toEqual(files);

    // After the second turn the user's edit is older than the checkpoint: rewinding there is fine.
    writeFiles(cwd, { "code.ts": "v2, edited by the user\n" });
    const afterLast = await cli(["rewind", first.session, "--to", second.turnId, "--yes"]);
    expect(afterLast.code).toBe(1);
    expect(afterLast.stderr).toContain("since then: code.ts");
    writeFiles(cwd, { "code.ts": "v2\n" });
    const ok = await cli(["rewind", first.session, "--to", second.turnId, "--yes"]);
    expect(ok.code).toBe(0);
    expect(filesOf(cwd)).toEqual({ ...files, "code.ts": "v1\n" });
  });

  test("rewind of the rewind: --undo brings back the files and the whole conversation; a rewound session rewinds further", async () => {
    initRepo(cwd, { "a.txt": "0\n" });
    const one = await turn("one", [{ type: "write", path: "a.txt", content: "1\n" }]);
    const two = await turn("two", [{ type: "write", path: "b.txt", content: "2\n" }], one.session);
    const atEnd = filesOf(cwd);
    const toTwo = (await cli(["rewind", one.session, "--to", two.turnId, "--yes"])).stdout.trim();
    expect(filesOf(cwd)).toEqual({ "a.txt": "1\n" });

    // In the rewound session: rewind further back (to a turn of the copied prefix) …
    const list = await cli(["rewind", toTwo]);
    expect(list.stdout).toContain("undo");
    expect(list.stdout).toContain(one.turnId);
    const toOne = (await cli(["rewind", toTwo, "--to", one.turnId, "--yes"])).stdout.trim();
    expect(filesOf(cwd)).toEqual({ "a.txt": "0\n" });
    // … and undo that, then undo the first rewind too.
    const back = await cli(["rewind", toOne, "--undo", "--yes"]);
    expect(back.code).toBe(0);
    expect(filesOf(cwd)).toEqual({ "a.txt": "1\n" });
    const undoneId = back.stdout.trim();
    expect(strip(ledgerOf(undoneId).slice(0, -1))).toEqual(strip(ledgerOf(toTwo)));
    const original = (await cli(["rewind", toTwo, "--undo", "--yes"])).stdout.trim();
    expect(filesOf(cwd)).toEqual(atEnd);
    expect(strip(ledgerOf(original).slice(0, -1))).toEqual(strip(ledgerOf(one.session)));
  });

  test("no hook of the user's runs (checkpoints, rewind, undo), and their stash, index, HEAD and branch stay as they were", async () => {
    initRepo(cwd, { "a.txt": "0\n" });
    // The user's state: a stash entry, a staged file, an unstaged edit.
    writeFiles(cwd, { "a.txt": "stashed edit\n" });
    git(cwd, "stash", "push", "-q", "-m", "the user's stash");
    writeFiles(cwd, { "staged.txt": "staged\n" });
    git(cwd, "add", "staged.txt");
    writeFiles(cwd, { "a.txt": "0, edited\n" });
    // Every hook git could run for commits, refs, the index, checkouts, rewrites or gc leaves a trace.
    const trace = path.join(base, "hooks-ran");
    const hooks = ["reference-transaction", "pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-checkout", "post-index-change", "post-rewrite", "pre-auto-gc"];
    for (const hook of hooks) {
      writeFileSync(path.join(cwd, ".git", "hooks", hook), `#!/bin/sh\necho ${hook} >> "${trace}"\n`);
      chmodSync(path.join(cwd, ".git", "hooks", hook), 0o755);
    }
    const ran = (): string => (existsSync(trace) ? readFileSync(trace, "utf8") : "");
    // The test's own `git status` may refresh the index (post-index-change): read the user's view only once no
    // hook has run since the last look, and forget what that look itself ran.
    const look = (): ReturnType<typeof userView> => {
      expect(ran()).toBe("");
      const view = userView(cwd);
      rmSync(trace, { force: true });
      return view;
    };
    const before = { view: look(), files: filesOf(cwd) };
    expect(before.view.stash).toContain("the user's stash");

    const one = await turn("one", [{ type: "write", path: "b.txt", content: "1\n" }]);
    await turn("two", [{ type: "write", path: "a.txt", content: "2\n" }], one.session);
    const rewound = (await cli(["rewind", one.session, "--to", one.turnId, "--yes"])).stdout.trim();
    expect(filesOf(cwd)).toEqual(before.files);
    expect(look()).toEqual(before.view);
    expect((await cli(["rewind", rewound, "--undo", "--yes"])).code).toBe(0);
    expect((await cli(["gc-checkpoints"])).code).toBe(0);
    expect(look()).toMatchObject({ stash: before.view.stash, index: before.view.index, head: before.view.head, branch: before.view.branch });
    // The hooks are live: a plain git ref update runs one, so the check above can fail.
    git(cwd, "update-ref", "refs/heads/probe", "HEAD");
    expect(readFileSync(trace, "utf8")).toContain("reference-transaction");
  });

  test("without --yes (no terminal) it is a dry run: the diff on stdout, nothing changed", async () => {
    initRepo(cwd, { "a.txt": "0\n" });
    const one = await turn("one", [{ type: "write", path: "a.txt", content: "1\n" }]);
    const dry = await cli(["rewind", "--to", one.turnId]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe("--- a.txt\n@@ -1 +1 @@\n-1\n+0\n");
    expect(dry.stderr).toContain("nothing changed (dry run); add --yes to rewind");
    expect(filesOf(cwd)).toEqual({ "a.txt": "1\n" });
    expect((await cli(["rewind", "--to", "t_nope", "--yes"])).stderr).toContain("no rewind point 't_nope'");
  });

  test("a directory that is not a git worktree: turns work, one notice per session, and rewind says why it cannot", async () => {
    const one = await turn("one", [{ type: "write", path: "a.txt", content: "1\n" }]);
    await turn("two", [], one.session);
    const notices = ledgerOf(one.session).filter((e) => e.kind === "_baton_notice");
    expect(notices.map((e) => e.payload["title"])).toEqual(["File checkpoints are off"]);
    expect(String(notices[0]!.payload["detail"])).toContain("is not in a git worktree");
    expect(ledgerOf(one.session).some((e) => e.kind === "_baton_checkpoint")).toBe(false);
    const list = await cli(["rewind", one.session]);
    expect(list.stdout).toContain("has no rewind points");
    expect((await cli(["gc-checkpoints"])).stderr).toContain("is not in a git worktree");
  });

  test("gc-checkpoints removes the refs of a deleted session but keeps, under the fork's refs, what the fork's ledger still names", async () => {
    initRepo(cwd, { "a.txt": "0\n" });
    const one = await turn("one", [{ type: "write", path: "a.txt", content: "1\n" }]);
    const two = await turn("two", [{ type: "write", path: "a.txt", content: "2\n" }], one.session);
    const child = (await cli(["rewind", one.session, "--to", two.turnId, "--yes"])).stdout.trim();
    const firstCommit = ledgerOf(one.session).find((e) => e.kind === "_baton_checkpoint" && e.turnId === one.turnId)!.payload["commit"] as string;
    rmSync(sessionDir(one.session), { recursive: true });
    const gc = await cli(["gc-checkpoints"]);
    expect(gc.code).toBe(0);
    expect(gc.stdout).toContain(`removed 4 checkpoint refs of 1 deleted session (${one.session})`);
    const refs = git(cwd, "for-each-ref", "--format=%(refname)", "refs/baton/");
    expect(refs).not.toContain(one.session);
    expect(refs).toContain(`refs/baton/checkpoints/${child}/${one.turnId}\n`);
    git(cwd, "reflog", "expire", "--expire=now", "--all");
    git(cwd, "gc", "--prune=now", "--quiet");
    expect(git(cwd, "cat-file", "-t", firstCommit).trim()).toBe("commit");
    const again = await cli(["rewind", child, "--to", one.turnId, "--yes"]);
    expect(again.code).toBe(0);
    expect(filesOf(cwd)).toEqual({ "a.txt": "0\n" });
    expect((await cli(["gc-checkpoints"])).stdout).toContain("nothing to remove");
  });
});
