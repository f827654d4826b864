/**
 * baton/gh-review as shipped, in a real runner, with a fake `gh` first on PATH that answers `auth status`,
 * `pr view` and `api graphql` from fixture files the test rewrites and logs every argv: two threads → one
 * proposal; one resolved + one new → a proposal for the new one only; all resolved → the batches go
 * (withdrawing what is pending); no gh → a Board warning, nothing fails; a gh that hangs is killed at the
 * deadline; the log shows no subcommand that writes. And from a real turn (a session with the fake adapter): a
 * turn that ran `git push` is a Turn resource that makes the watch poll at once, and the proposal is in the ledger.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isReadOnly } from "../../bundled-plugins/gh-review/src/gh.ts";
import { POLL_SLACK_MS, pollDue, presentWatch, type WatchStatus } from "../../bundled-plugins/gh-review/src/review-threads.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { waitUntil } from "../support/baton-process.ts";
import { createPluginRig, tempDir, type PluginRig } from "../support/plugin-rig.ts";
import { bundledLoop, fakeLoopSession, type BundledLoop, type FakeLoopSession } from "../support/bundled-loops.ts";
import { fakeGh, thread, type FakeGh } from "../support/fake-gh.ts";
import { isRunning } from "../support/processes.ts";

setDefaultTimeout(60_000);
const DIR = path.resolve(import.meta.dir, "../../bundled-plugins/gh-review");
const WATCH = { apiVersion: "ghreview.baton.dev/v1alpha1", kind: "PullRequestWatch", name: "current" };
const BATCH = { apiVersion: "ghreview.baton.dev/v1alpha1", kind: "ThreadBatch" };
const WATCH_CONTROLLER = "ghreview.baton.dev/v1alpha1/PullRequestWatch";
const at = (iso: string) => Date.parse(iso);

let rigs: PluginRig[] = [];
let dirs: string[] = [];
let loops: BundledLoop[] = [];
let sessions: FakeLoopSession[] = [];
afterEach(async () => {
  for (const loop of loops) await loop.rig.close();
  for (const s of sessions) await s.close();
  loops = [];
  sessions = [];
  for (const rig of rigs) await rig.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  rigs = [];
  dirs = [];
});

function newGh(): FakeGh {
  const gh = fakeGh();
  dirs.push(gh.dir);
  return gh;
}

async function ghReview(env: Record<string, string>, config?: unknown, clock?: ManualClock) {
  const rig = createPluginRig({ env, ...(clock === undefined ? {} : { clock }) });
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
  return { rig, key, store, idle, poll, status, proposals, live };
}

describe("baton/gh-review", () => {
  test("open threads become one proposal; only new ones later; all resolved withdraws; never a write", async () => {
    const gh = newGh();
    gh.threads(thread("T1", "src/parse.ts", 42, "alice", "This drops the last token."), thread("T2", "src/lex.ts", 7, "bob", "Name this better?"));
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
    gh.threads(thread("T1", "src/parse.ts", 42, "alice", "This drops the last token.", true), thread("T2", "src/lex.ts", 7, "bob", "Name this better?"), thread("T3", "README.md", 3, "carol", "Typo."));
    await r.poll();
    expect(r.proposals()).toHaveLength(2);
    expect(r.proposals()[1]?.title).toBe("Address 1 review thread on PR #12");
    expect(r.proposals()[1]?.text).toContain("README.md:3 — carol");
    expect(r.proposals()[1]?.text).not.toContain("src/lex.ts");
    expect(await r.live()).toHaveLength(2);

    // All resolved: every batch goes (a pending proposal is withdrawn with its resource).
    gh.threads(thread("T1", "src/parse.ts", 42, "alice", "x", true), thread("T2", "src/lex.ts", 7, "bob", "y", true), thread("T3", "README.md", 3, "carol", "z", true));
    await r.poll();
    expect(await r.live()).toEqual([]);
    expect(presentWatch(await r.status())).toMatchObject({ status: "no open review threads", tone: "success" });

    const calls = readFileSync(path.join(gh.dir, "argv.log"), "utf8").trim().split("\n");
    expect(new Set(calls)).toEqual(new Set(["auth status", "pr view", "api graphql query"]));
  });

  test("from a real turn: a turn that ran `git push` polls at once; the new open threads become one proposal in the ledger; gh is only read", async () => {
    const gh = newGh();
    const f = await fakeLoopSession({
      fake: [[{ type: "tool", id: "push", title: "git push origin topic", output: "To github.com:acme/app.git" }, { type: "text", text: "Pushed." }]],
    });
    sessions.push(f);
    const loop = await bundledLoop(f.session, "gh-review", undefined, { PATH: gh.path });
    loops.push(loop);
    const lastPoll = async () => (await loop.binding.resources?.get(WATCH))?.status["lastPollAt"] as number | undefined;
    const first = await loop.until(lastPoll, "the first poll");
    await loop.settle();
    expect(loop.opened()).toEqual([]);
    expect(loop.board()).toEqual(["PR #12: no open review threads"]);

    gh.threads(thread("T1", "src/parse.ts", 42, "alice", "This drops the last token."), thread("T2", "src/lex.ts", 7, "bob", "Name this better?"));
    expect(await f.say("fake", "push the branch")).toBe("completed");
    const [card] = await loop.until(() => (loop.pending().length > 0 ? loop.pending() : undefined), "the review-threads proposal after the push");
    expect((await lastPoll()) ?? 0).toBeGreaterThan(first);
    expect(card?.draft).toMatchObject({ type: "proposed_input", title: "Address 2 review threads on PR #12" });
    expect(card?.draft.text).toContain('1. src/parse.ts:42 — alice: "This drops the last token."');
    expect(loop.board()).toEqual(["PR #12: 2 open review threads"]);
    expect(new Set(gh.calls())).toEqual(new Set(["auth status", "pr view", "api graphql query"]));
  });

  test("no gh on PATH, or logged out: a warning on the Board, the binding stays active", async () => {
    const empty = tempDir("baton-no-gh-");
    dirs.push(empty);
    const r = await ghReview({ PATH: empty });
    await r.idle();
    expect(presentWatch(await r.status())).toEqual({ title: "Review threads", status: "unavailable", detail: "gh is not installed or not on PATH: install GitHub CLI (https://cli.github.com) to see review threads here", tone: "warning" });
    expect(r.rig.manager.activeBindings()).toHaveLength(1);

    const gh = newGh();
    writeFileSync(path.join(gh.dir, "logged-out"), "");
    const l = await ghReview({ PATH: `${gh.bin}:${process.env["PATH"] ?? "/usr/bin:/bin"}` });
    await l.idle();
    expect((await l.status()).warning).toBe("gh is not logged in: run `gh auth login`");
    expect(l.proposals()).toEqual([]);
  });

  test("a gh that hangs is stopped at the deadline with its children; the next poll works again", async () => {
    const gh = newGh();
    gh.threads(thread("T1", "a.ts", 1, "alice", "?"));
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

  test("on Baton's clock: the cron Source polls at each five-minute mark and not in between; after downtime one catch-up poll", async () => {
    const gh = newGh();
    const clock = new ManualClock(at("2026-12-01T10:02:10.000Z"));
    const r = await ghReview({ PATH: gh.path }, undefined, clock);
    const polls = () => gh.calls().filter((c) => c === "auth status").length;
    const dueAt = () => r.rig.manager.binding(r.key)?.controllerHost?.cronTicker.dueAt(WATCH_CONTROLLER, "poll");
    /** Move the manual clock to `iso` and let what fell due run. */
    const advanceTo = async (iso: string) => {
      clock.advance(at(iso) - clock.now());
      await r.idle();
    };
    // The first look at start (the seed Source's watch), stamped with Baton's clock, not the runner's.
    expect(polls()).toBe(1);
    expect((await r.status()).lastPollAt).toBe(at("2026-12-01T10:02:10.000Z"));
    expect(new Date(dueAt() ?? 0).toISOString()).toBe("2026-12-01T10:05:00.000Z");

    gh.threads(thread("T1", "src/parse.ts", 42, "alice", "This drops the last token."));
    // Well inside the window: nothing polls (the watch's own status writes found the poll done too).
    await advanceTo("2026-12-01T10:04:00.000Z");
    expect(polls()).toBe(1);
    expect(r.proposals()).toEqual([]);

    await advanceTo("2026-12-01T10:05:00.000Z");
    await waitUntil(() => polls() === 2, 10_000, "the 10:05 poll");
    await r.idle();
    expect((await r.status()).lastPollAt).toBe(at("2026-12-01T10:05:00.000Z"));
    expect(r.proposals().map((p) => p.title)).toEqual(["Address 1 review thread on PR #12"]);
    expect(new Date(dueAt() ?? 0).toISOString()).toBe("2026-12-01T10:10:00.000Z");
    await advanceTo("2026-12-01T10:09:00.000Z");
    expect(polls()).toBe(2);

    await advanceTo("2026-12-01T10:10:00.000Z");
    await waitUntil(() => polls() === 3, 10_000, "the 10:10 poll");
    await r.idle();
    expect(r.proposals()).toHaveLength(1);

    // Stopped while 10:15, 10:20 and 10:25 pass: one catch-up poll at start, then the schedule goes on.
    await r.rig.manager.disable("baton/gh-review");
    clock.advance(at("2026-12-01T10:27:30.000Z") - clock.now());
    await r.rig.manager.enable("baton/gh-review");
    const binding = r.rig.manager.binding(r.key);
    await waitUntil(() => polls() === 4, 10_000, "the catch-up poll");
    for (let i = 0; i < 4; i++) await binding?.controllerHost?.idle();
    expect(polls()).toBe(4);
    expect((await binding?.resources?.get(WATCH))?.status["lastPollAt"]).toBe(at("2026-12-01T10:27:30.000Z"));
    expect(new Date(binding?.controllerHost?.cronTicker.dueAt(WATCH_CONTROLLER, "poll") ?? 0).toISOString()).toBe("2026-12-01T10:30:00.000Z");
    expect(new Set(gh.calls())).toEqual(new Set(["auth status", "pr view", "api graphql query"]));
  });

  test("a poll is due: first look, a turn that ran git push, or a new five-minute window (30 s of slack before the mark)", () => {
    const turn = (revision: number, title: string, status = "completed") => ({ turnId: `t${revision}`, harnessTargetId: "codex", toolCalls: [{ toolCallId: "c", title, kind: "execute", status }], revision });
    const polled = at("2026-12-01T10:05:00.200Z");
    expect(pollDue({}, [], 0)).toBe(true);
    expect(pollDue({ lastPollAt: polled, seenRevision: 3 }, [turn(3, "git push")], polled + 1000)).toBe(false);
    expect(pollDue({ lastPollAt: polled, seenRevision: 3 }, [turn(4, "git push origin topic")], polled + 1000)).toBe(true);
    expect(pollDue({ lastPollAt: polled, seenRevision: 3 }, [turn(4, "git push", "failed")], polled + 1000)).toBe(false);
    expect(pollDue({ lastPollAt: polled, seenRevision: 3 }, [turn(4, "git status")], polled + 1000)).toBe(false);
    // The next mark is a new window; a tick a little early still counts as it.
    expect(pollDue({ lastPollAt: polled }, [], at("2026-12-01T10:09:29.000Z"))).toBe(false);
    expect(pollDue({ lastPollAt: polled }, [], at("2026-12-01T10:10:00.000Z") - POLL_SLACK_MS + 1000)).toBe(true);
    expect(pollDue({ lastPollAt: polled }, [], at("2026-12-01T10:10:00.000Z"))).toBe(true);
    // A poll just before a mark (a push at 10:09:50) is that mark's poll: the tick at 10:10 does not repeat it.
    expect(pollDue({ lastPollAt: at("2026-12-01T10:09:50.000Z") }, [], at("2026-12-01T10:10:00.000Z"))).toBe(false);
    expect(pollDue({ lastPollAt: at("2026-12-01T10:09:50.000Z") }, [], at("2026-12-01T10:15:00.000Z"))).toBe(true);
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
