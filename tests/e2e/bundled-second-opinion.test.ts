/**
 * baton/second-opinion as shipped, from real turns: a real session with two scripted fake targets, the plugin
 * in a real runner over a real git repository. An editing turn of one target is a Turn resource whose watch
 * wakes the Tracker → a `proposed_input` interaction that another target reviews exactly that turn's diff (new
 * files included, uncommitted work from before excluded, the user's index untouched) → submitted, the
 * reviewer's turn (it carries the review's marker) → a proposal that sends its findings back → submitted, the
 * first target's turn is the loop's own step and starts no new review. Nothing wakes a controller by hand.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bundledLoop, fakeLoopSession, type BundledLoop, type FakeLoopSession } from "../support/bundled-loops.ts";
import { git, initRepo } from "../support/git-repo.ts";
import { makeTestHome } from "../support/session-host.ts";

setDefaultTimeout(60_000);
const TRACKER = { apiVersion: "secondopinion.baton.dev/v1alpha1", kind: "Tracker", name: "session" };
const REVIEW = { apiVersion: "secondopinion.baton.dev/v1alpha1", kind: "Review" };

let loops: BundledLoop[] = [];
let sessions: FakeLoopSession[] = [];
afterEach(async () => {
  for (const loop of loops) await loop.rig.close();
  for (const s of sessions) await s.close();
  loops = [];
  sessions = [];
});

async function secondOpinion(f: FakeLoopSession, config?: unknown): Promise<BundledLoop> {
  sessions.push(f);
  const loop = await bundledLoop(f.session, "second-opinion", config);
  loops.push(loop);
  await loop.until(async () => ((await loop.binding.resources?.get(TRACKER))?.status["seenRevision"] !== undefined ? true : undefined), "the first look");
  return loop;
}

describe("baton/second-opinion from real turns", () => {
  test("edit on fake → review by other with the turn's diff → findings back to fake; each a proposal the user submits", async () => {
    const home = makeTestHome();
    initRepo(home.cwd, { "a.txt": "one\n" });
    // Uncommitted work from before the turn is not the turn's diff.
    writeFileSync(path.join(home.cwd, "before.txt"), "already here\n");
    const f = await fakeLoopSession(
      {
        fake: [
          [{ type: "write", path: "a.txt", content: "one\ntwo\n" }, { type: "write", path: "new.txt", content: "fresh\n" }, { type: "text", text: "Added two." }],
          [{ type: "write", path: "a.txt", content: "one\ntwo\nthree\n" }, { type: "text", text: "Added a test for two." }],
        ],
        other: [[{ type: "text", text: "Finding 1: two is not tested." }]],
      },
      home,
    );
    const loop = await secondOpinion(f, { reviewer: "other" });
    const indexBefore = readFileSync(path.join(home.cwd, ".git", "index"));

    expect(await f.say("fake", "add two")).toBe("completed");
    const [review] = await loop.until(() => (loop.pending().length > 0 ? loop.pending() : undefined), "the review proposal");
    expect(review?.draft).toMatchObject({ type: "proposed_input", title: "Ask other to review fake's change", targetId: "other" });
    expect(review?.draft.text).toContain("+two");
    expect(review?.draft.text).toContain("+++ b/new.txt");
    expect(review?.draft.text).not.toContain("before.txt");
    const marker = /\[second-opinion review (r-[0-9a-f]{12})\]/.exec(review?.draft.text ?? "");
    expect(marker).not.toBeNull();
    // The user's index and branch are as they were.
    expect(readFileSync(path.join(home.cwd, ".git", "index"))).toEqual(indexBefore);
    expect(git(home.cwd, "status", "--porcelain")).toBe(" M a.txt\n?? before.txt\n?? new.txt\n");

    expect(await f.session.controller.proposals.submit(review?.interactionId ?? "")).toBe("completed");
    expect(JSON.stringify(f.other.adapters[0]?.record.prompts.at(-1))).toContain("+two");
    const [back] = await loop.until(() => (loop.pending().length > 0 ? loop.pending() : undefined), "the findings proposal");
    expect(back?.draft).toMatchObject({ title: "Send other's findings to fake", targetId: "fake" });
    expect(back?.draft.text).toContain("Finding 1: two is not tested.");
    expect(back?.draft.text).toContain(`[second-opinion findings ${marker?.[1]}]`);

    // The first target acts on the findings (an edit): that turn is the loop's own step, not a new review.
    expect(await f.session.controller.proposals.submit(back?.interactionId ?? "")).toBe("completed");
    expect(JSON.stringify(f.fake.adapters[0]?.record.prompts.at(-1))).toContain("Finding 1: two is not tested.");
    await loop.until(async () => ((await loop.binding.resources?.list(REVIEW))?.map((r) => r.status["phase"]).join() === "done" ? true : undefined), "the review to be done");
    expect(loop.opened()).toHaveLength(2);
    expect(loop.pending()).toEqual([]);
  });

  test("a newer edit of the same agent replaces a review nobody started (its proposal withdrawn); outside git the files are named without a diff", async () => {
    const f = await fakeLoopSession({
      fake: [[{ type: "write", path: "src/x.ts", content: "x\n" }], [{ type: "write", path: "src/y.ts", content: "y\n" }]],
    });
    const loop = await secondOpinion(f, { reviewer: "other" });
    expect((await loop.binding.resources?.get(TRACKER))?.status["problem"]).toBe("not a git repository: reviews name the edited files without a diff");
    expect(await f.say("fake", "write x")).toBe("completed");
    const [first] = await loop.until(() => (loop.pending().length > 0 ? loop.pending() : undefined), "the first review proposal");
    expect(await f.say("fake", "write y")).toBe("completed");
    const [second] = await loop.until(() => (loop.pending()[0]?.interactionId !== first?.interactionId && loop.pending().length > 0 ? loop.pending() : undefined), "the second review proposal");
    expect(loop.pending()).toHaveLength(1);
    expect(second?.draft).toMatchObject({ targetId: "other" });
    expect(second?.draft.text).toContain("src/y.ts");
    const reviews = (await loop.binding.resources?.list(REVIEW)) ?? [];
    expect(reviews.filter((r) => r.metadata.deletionTimestamp === undefined).map((r) => (r.spec as { files: string[] }).files)).toEqual([["src/y.ts"]]);
    expect(loop.opened()).toHaveLength(2);
  });

  test("with no reviewer setting, a configured target the session has never used is proposed as the reviewer", async () => {
    const f = await fakeLoopSession({ fake: [[{ type: "write", path: "a.txt", content: "a\n" }, { type: "text", text: "Wrote a." }]] });
    const loop = await secondOpinion(f);
    // Only `fake` has a turn; `other` is configured but untouched: the snapshot lists it all the same.
    expect(await f.say("fake", "write a")).toBe("completed");
    const [review] = await loop.until(() => (loop.pending().length > 0 ? loop.pending() : undefined), "the review proposal");
    expect(review?.draft).toMatchObject({ type: "proposed_input", title: "Ask other to review fake's change", targetId: "other" });
    expect(review?.draft.text).toContain("a.txt");
  });
});
