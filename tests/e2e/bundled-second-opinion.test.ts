/**
 * baton/second-opinion as shipped, in a real runner over a real git repository: an editing turn of one
 * target → a proposal that another target reviews exactly that turn's diff (new files included, the
 * user's index untouched) → the reviewer's turn (it carries the review's marker) → a proposal that sends
 * its findings back to the first target. The loop's own turns never start another review.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createPluginRig, type PluginRig } from "../support/plugin-rig.ts";

setDefaultTimeout(60_000);
const DIR = path.resolve(import.meta.dir, "../../bundled-plugins/second-opinion");
const TRACKER = { apiVersion: "secondopinion.baton.dev/v1alpha1", kind: "Tracker", name: "session" };

let rigs: PluginRig[] = [];
afterEach(async () => {
  for (const rig of rigs) await rig.close();
  rigs = [];
});

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", args, { cwd, encoding: "utf8", env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

async function poll<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("baton/second-opinion", () => {
  test("edit on codex → review by claude with the turn's diff → findings back to codex; each a proposal", async () => {
    const rig = createPluginRig();
    rigs.push(rig);
    git(rig.cwd, "init", "-q");
    git(rig.cwd, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "start");
    writeFileSync(path.join(rig.cwd, "a.txt"), "one\n");
    git(rig.cwd, "add", "a.txt");
    git(rig.cwd, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "a");
    // Uncommitted work from before the turn is not the turn's diff.
    writeFileSync(path.join(rig.cwd, "before.txt"), "already here\n");

    const key = await rig.installAndEnable(DIR);
    const binding = rig.manager.binding(key);
    expect(binding?.state).toBe("active");
    const store = binding?.resources;
    let pokes = 0;
    const wake = async () => {
      await store?.patchStatus(TRACKER, { poke: ++pokes });
      for (let i = 0; i < 4; i++) await binding?.controllerHost?.idle();
    };
    await poll(async () => ((await store?.get(TRACKER))?.status["seenRevision"] !== undefined ? true : undefined), "the first look");
    const indexBefore = readFileSync(path.join(rig.cwd, ".git", "index"));

    writeFileSync(path.join(rig.cwd, "a.txt"), "one\ntwo\n");
    writeFileSync(path.join(rig.cwd, "new.txt"), "fresh\n");
    rig.injectEvent("_baton_turn_summary", { turnId: "t_1", userText: "add two", toolCalls: [{ toolCallId: "c1", title: "edit a.txt, new.txt", kind: "edit", status: "completed" }] }, "codex");
    await wake();
    const proposals = () => rig.outputs.flatMap((o) => (o.output.kind === "proposed-input" ? [o.output] : []));
    expect(proposals()).toHaveLength(1);
    const review = proposals()[0];
    expect(review).toMatchObject({ title: "Ask claude to review codex's change", targetId: "claude" });
    expect(review?.text).toContain("+two");
    expect(review?.text).toContain("+++ b/new.txt");
    expect(review?.text).not.toContain("before.txt");
    const marker = /\[second-opinion review (r-[0-9a-f]{12})\]/.exec(review?.text ?? "");
    expect(marker).not.toBeNull();
    // The user's index and branch are as they were.
    expect(readFileSync(path.join(rig.cwd, ".git", "index"))).toEqual(indexBefore);
    expect(git(rig.cwd, "status", "--porcelain")).toBe(" M a.txt\n?? before.txt\n?? new.txt\n");

    rig.injectEvent("_baton_turn_summary", { turnId: "t_2", userText: review?.text, agentText: "Finding 1: two is not tested.", toolCalls: [] }, "claude");
    await wake();
    expect(proposals()).toHaveLength(2);
    expect(proposals()[1]).toMatchObject({ title: "Send claude's findings to codex", targetId: "codex" });
    expect(proposals()[1]?.text).toContain("Finding 1: two is not tested.");
    expect(proposals()[1]?.text).toContain(`[second-opinion findings ${marker?.[1]}]`);

    // Codex acts on the findings (an edit): that turn is the loop's own step, not a new review.
    writeFileSync(path.join(rig.cwd, "a.txt"), "one\ntwo\nthree\n");
    rig.injectEvent("_baton_turn_summary", { turnId: "t_3", userText: proposals()[1]?.text, agentText: "done", toolCalls: [{ toolCallId: "c3", title: "edit a.txt", kind: "edit", status: "completed" }] }, "codex");
    await wake();
    expect(proposals()).toHaveLength(2);
    const reviews = await store?.list({ apiVersion: "secondopinion.baton.dev/v1alpha1", kind: "Review" });
    expect(reviews?.map((r) => r.status["phase"])).toEqual(["done"]);
  });

  test("a newer edit of the same agent replaces a review nobody started; outside git the files are named without a diff", async () => {
    const rig = createPluginRig();
    rigs.push(rig);
    const key = await rig.installAndEnable(DIR, { reviewer: "codex-2" });
    const binding = rig.manager.binding(key);
    const store = binding?.resources;
    let pokes = 0;
    const wake = async () => {
      await store?.patchStatus(TRACKER, { poke: ++pokes });
      for (let i = 0; i < 4; i++) await binding?.controllerHost?.idle();
    };
    await poll(async () => ((await store?.get(TRACKER))?.status["seenRevision"] !== undefined ? true : undefined), "the first look");
    expect((await store?.get(TRACKER))?.status["problem"]).toBe("not a git repository: reviews name the edited files without a diff");
    rig.injectEvent("_baton_turn_summary", { turnId: "t_1", toolCalls: [{ toolCallId: "c1", title: "Edit src/x.ts", kind: "edit", status: "completed" }] }, "codex");
    await wake();
    rig.injectEvent("_baton_turn_summary", { turnId: "t_2", toolCalls: [{ toolCallId: "c2", title: "Write src/y.ts", kind: "edit", status: "completed" }] }, "codex");
    await wake();
    const reviews = (await store?.list({ apiVersion: "secondopinion.baton.dev/v1alpha1", kind: "Review" })) ?? [];
    expect(reviews.filter((r) => r.metadata.deletionTimestamp === undefined).map((r) => (r.spec as { files: string[] }).files)).toEqual([["src/y.ts"]]);
    const last = rig.outputs.at(-1)?.output;
    expect(last).toMatchObject({ kind: "proposed-input", targetId: "codex-2" });
    expect(last?.kind === "proposed-input" && last.text).toContain("src/y.ts");
  });
});
