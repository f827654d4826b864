/**
 * baton/gh-review as shipped, in a real runner, with a fake `gh` first on PATH that answers `auth status`,
 * `pr view` and `api graphql` from fixture files the test rewrites and logs every argv: two threads → one
 * proposal; one resolved + one new → a proposal for the new one only; all resolved → the batches go
 * (withdrawing what is pending); no gh → a Board warning, nothing fails; a gh that hangs is killed at the
 * deadline; the log shows no subcommand that writes.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isReadOnly } from "../../bundled-plugins/gh-review/src/gh.ts";
import { POLL_EVERY_MS, pollDue, presentWatch, type WatchStatus } from "../../bundled-plugins/gh-review/src/review-threads.ts";
import { createPluginRig, tempDir, type PluginRig } from "../support/plugin-rig.ts";
import { isRunning } from "../support/processes.ts";

setDefaultTimeout(60_000);
const DIR = path.resolve(import.meta.dir, "../../bundled-plugins/gh-review");
const WATCH = { apiVersion: "ghreview.baton.dev/v1alpha1", kind: "PullRequestWatch", name: "current" };
const BATCH = { apiVersion: "ghreview.baton.dev/v1alpha1", kind: "ThreadBatch" };

let rigs: PluginRig[] = [];
let dirs: string[] = [];
afterEach(async () => {
  for (const rig of rigs) await rig.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  rigs = [];
  dirs = [];
});

/** A fake gh: answers from files in `dir`, appends "<argv1> <argv2>" (and the query's first word) to dir/argv.log. */
function fakeGh(): { bin: string; dir: string } {
  const dir = tempDir("baton-fake-gh-");
  dirs.push(dir);
  const bin = path.join(dir, "bin");
  mkdirSync(bin);
  const script = `#!/bin/sh
d=${JSON.stringify(dir)}
q=""
for a in "$@"; do case "$a" in query=*) q=" $(printf '%s' "$a" | sed -n '1s/^query=\\([a-z]*\\).*/\\1/p')";; esac; done
printf '%s %s%s\\n' "$1" "$2" "$q" >> "$d/argv.log"
if [ -f "$d/sleep" ]; then echo $$ > "$d/gh.pid"; sleep 300; fi
case "$1 $2" in
  "auth status") if [ -f "$d/logged-out" ]; then echo "You are not logged into any GitHub hosts. To log in, run: gh auth login" >&2; exit 1; fi; echo "Logged in to github.com" >&2 ;;
  "pr view") if [ -f "$d/no-pr" ]; then echo 'no pull requests found for branch "topic"' >&2; exit 1; fi; cat "$d/pr.json" ;;
  "api graphql") cat "$d/threads.json" ;;
  *) echo "fake gh: unexpected $*" >&2; exit 99 ;;
esac
`;
  writeFileSync(path.join(bin, "gh"), script);
  chmodSync(path.join(bin, "gh"), 0o755);
  writeFileSync(path.join(dir, "pr.json"), JSON.stringify({ number: 12, url: "https://github.com/acme/app/pull/12", title: "Faster parser", headRefName: "topic", state: "OPEN" }));
  return { bin, dir };
}

const thread = (id: string, file: string, line: number, author: string, body: string, resolved = false) => ({
  id,
  isResolved: resolved,
  isOutdated: false,
  path: file,
  line,
  comments: { nodes: [{ author: { login: author }, body, createdAt: "2026-11-30T10:00:00Z", url: `https://github.com/acme/app/pull/12#${id}` }] },
});
const threads = (dir: string, ...nodes: ReturnType<typeof thread>[]) =>
  writeFileSync(path.join(dir, "threads.json"), JSON.stringify({ data: { repository: { pullRequest: { reviewThreads: { nodes } } } } }));

async function ghReview(env: Record<string, string>, config?: unknown) {
  const rig = createPluginRig({ env });
  rigs.push(rig);
  const key = await rig.installAndEnable(DIR, config);
  const binding = rig.manager.binding(key);
  expect(binding?.state).toBe("active");
  const store = binding?.resources;
  const idle = async () => {
    for (let i = 0; i < 4; i++) await binding?.controllerHost?.idle();
  };
  /** Make a poll due now (as 5 minutes passing or a push would) and let it run. */
  const poll = async () => {
    await idle();
    await store?.patchStatus(WATCH, { lastPollAt: null });
    await idle();
  };
  const status = async () => ((await store?.get(WATCH))?.status ?? {}) as WatchStatus;
  // The watch is created right after activation; wait for its first poll.
  const start = Date.now();
  while ((await status()).lastPollAt === undefined) {
    if (Date.now() - start > 20_000) throw new Error("the first poll did not happen");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await idle();
  const proposals = () => rig.outputs.flatMap((o) => (o.output.kind === "proposed-input" ? [o.output] : []));
  const live = async () => ((await store?.list(BATCH)) ?? []).filter((b) => b.metadata.deletionTimestamp === undefined).map((b) => b.metadata.name);
  return { rig, store, idle, poll, status, proposals, live };
}

describe("baton/gh-review", () => {
  test("open threads become one proposal; only new ones later; all resolved withdraws; never a write", async () => {
    const gh = fakeGh();
    threads(gh.dir, thread("T1", "src/parse.ts", 42, "alice", "This drops the last token."), thread("T2", "src/lex.ts", 7, "bob", "Name this better?"));
    const r = await ghReview({ PATH: `${gh.bin}:${process.env["PATH"] ?? "/usr/bin:/bin"}` });
    await r.idle();
    expect(r.proposals()).toHaveLength(1);
    const first = r.proposals()[0];
    expect(first?.title).toBe("Address 2 review threads on PR #12");
    expect(first?.text).toContain('1. src/parse.ts:42 — alice: "This drops the last token."');
    expect(first?.text).toContain('2. src/lex.ts:7 — bob: "Name this better?"');
    expect(first?.text).toContain("--- src/parse.ts:42\nalice (2026-11-30): This drops the last token.");
    expect(presentWatch(await r.status())).toMatchObject({ title: "PR #12", status: "2 open review threads", tone: "warning" });

    // Polling again with nothing new proposes nothing.
    await r.poll();
    expect(r.proposals()).toHaveLength(1);

    // T1 resolved, T3 new: a proposal for T3 only; the first batch stays (T2 is still open).
    threads(gh.dir, thread("T1", "src/parse.ts", 42, "alice", "This drops the last token.", true), thread("T2", "src/lex.ts", 7, "bob", "Name this better?"), thread("T3", "README.md", 3, "carol", "Typo."));
    await r.poll();
    expect(r.proposals()).toHaveLength(2);
    expect(r.proposals()[1]?.title).toBe("Address 1 review thread on PR #12");
    expect(r.proposals()[1]?.text).toContain("README.md:3 — carol");
    expect(r.proposals()[1]?.text).not.toContain("src/lex.ts");
    expect(await r.live()).toHaveLength(2);

    // All resolved: every batch goes (a pending proposal is withdrawn with its resource).
    threads(gh.dir, thread("T1", "src/parse.ts", 42, "alice", "x", true), thread("T2", "src/lex.ts", 7, "bob", "y", true), thread("T3", "README.md", 3, "carol", "z", true));
    await r.poll();
    expect(await r.live()).toEqual([]);
    expect(presentWatch(await r.status())).toMatchObject({ status: "no open review threads", tone: "success" });

    const calls = readFileSync(path.join(gh.dir, "argv.log"), "utf8").trim().split("\n");
    expect(new Set(calls)).toEqual(new Set(["auth status", "pr view", "api graphql query"]));
  });

  test("no gh on PATH, or logged out: a warning on the Board, the binding stays active", async () => {
    const empty = tempDir("baton-no-gh-");
    dirs.push(empty);
    const r = await ghReview({ PATH: empty });
    await r.idle();
    expect(presentWatch(await r.status())).toEqual({ title: "Review threads", status: "unavailable", detail: "gh is not installed or not on PATH: install GitHub CLI (https://cli.github.com) to see review threads here", tone: "warning" });
    expect(r.rig.manager.activeBindings()).toHaveLength(1);

    const gh = fakeGh();
    writeFileSync(path.join(gh.dir, "logged-out"), "");
    const l = await ghReview({ PATH: `${gh.bin}:${process.env["PATH"] ?? "/usr/bin:/bin"}` });
    await l.idle();
    expect((await l.status()).warning).toBe("gh is not logged in: run `gh auth login`");
    expect(l.proposals()).toEqual([]);
  });

  test("a gh that hangs is stopped at the deadline with its children; the next poll works again", async () => {
    const gh = fakeGh();
    threads(gh.dir, thread("T1", "a.ts", 1, "alice", "?"));
    writeFileSync(path.join(gh.dir, "sleep"), "");
    const r = await ghReview({ PATH: `${gh.bin}:${process.env["PATH"] ?? "/usr/bin:/bin"}` }, { ghTimeoutMs: 1000 });
    await r.idle();
    expect((await r.status()).warning).toBe("gh auth status did not answer within 1 s and was stopped");
    const pid = Number(readFileSync(path.join(gh.dir, "gh.pid"), "utf8"));
    expect(isRunning(pid)).toBe(false);
    rmSync(path.join(gh.dir, "sleep"));
    await r.poll();
    expect((await r.status()).warning).toBeUndefined();
    expect(r.proposals()).toHaveLength(1);
  });

  test("a poll is due: first look, five minutes after the last, or a turn that ran git push", () => {
    const turn = (revision: number, title: string, status = "completed") => ({ turnId: `t${revision}`, harnessTargetId: "codex", toolCalls: [{ toolCallId: "c", title, kind: "execute", status }], revision });
    expect(pollDue({}, [], 0)).toBe(true);
    expect(pollDue({ lastPollAt: 1000, seenRevision: 3 }, [turn(3, "git push")], 2000)).toBe(false);
    expect(pollDue({ lastPollAt: 1000, seenRevision: 3 }, [turn(4, "git push origin topic")], 2000)).toBe(true);
    expect(pollDue({ lastPollAt: 1000, seenRevision: 3 }, [turn(4, "git push", "failed")], 2000)).toBe(false);
    expect(pollDue({ lastPollAt: 1000, seenRevision: 3 }, [turn(4, "git status")], 2000)).toBe(false);
    expect(pollDue({ lastPollAt: 1000, seenRevision: 3 }, [], 1000 + POLL_EVERY_MS)).toBe(true);
  });

  test("the allowlist: only auth status, pr view and a graphql query", () => {
    expect(isReadOnly(["auth", "status"])).toBe(true);
    expect(isReadOnly(["pr", "view", "--json", "number"])).toBe(true);
    expect(isReadOnly(["api", "graphql", "-f", "query=query { viewer { login } }"])).toBe(true);
    expect(isReadOnly(["api", "graphql", "-f", "query=mutation { resolveReviewThread(input: {}) { thread { id } } }"])).toBe(false);
    expect(isReadOnly(["api", "graphql", "-X", "DELETE", "-f", "query=query {}"])).toBe(false);
    expect(isReadOnly(["pr", "comment", "12"])).toBe(false);
    expect(isReadOnly(["pr", "view", "--web"])).toBe(false);
    expect(isReadOnly(["api", "repos/acme/app/pulls/12/comments"])).toBe(false);
    expect(existsSync(DIR)).toBe(true);
  });
});
