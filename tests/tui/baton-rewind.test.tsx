/**
 * `/rewind` on the Baton screen (issue 19) over a real session in a git worktree with the fake harness: pick
 * the turn, see the diff now → checkpoint in the unified diff view, confirm, land in the forked session with
 * the file restored; refused (named) when the user edited the file since; refused while a turn runs.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { listToArray } from "../../src/projection/index.ts";
import { gitEnv, initRepo } from "../support/git-repo.ts";
import { makeTestHome, type TestHome } from "../support/session-host.ts";
import { mountBaton, type BatonMounted } from "./baton-setup.tsx";

let mounted: BatonMounted | undefined;
let home: TestHome | undefined;
afterEach(async () => {
  await mounted?.destroy();
  home?.cleanup();
  mounted = undefined;
  home = undefined;
});

async function mountWithTurn(): Promise<BatonMounted> {
  home = makeTestHome();
  initRepo(home.cwd, { "a.txt": "zero\n" });
  const screen = await mountBaton({
    home,
    fileCheckpoints: true,
    env: gitEnv(),
    width: 100,
    height: 40,
    script: { turns: [[{ type: "write", path: "a.txt", content: "one\n" }, { type: "text", text: "changed a" }]] },
  });
  await screen.submit("change a");
  await screen.waitFor("changed a");
  await screen.until(() => listToArray(screen.host.controller.state.fileCheckpoints).some((c) => c.boundary === "after"), 5000);
  return screen;
}

describe("Baton screen: /rewind", () => {
  test("pick the turn, see its diff, confirm: the file is back and the screen is on the forked session", async () => {
    mounted = await mountWithTurn();
    const before = mounted.host.session.sessionId;
    await mounted.submit("/rewind");
    const picker = await mounted.waitFor("Rewind the files and the conversation to…");
    expect(picker).toContain("before “change a”");
    await mounted.keys((k) => k.pressEnter());
    const preview = await mounted.waitFor("Rewind before “change a”?");
    expect(preview).toContain("1 file would change");
    expect(preview).toContain("Update a.txt +1 -1");
    expect(preview).toContain("-one");
    expect(preview).toContain("+zero");
    expect(readFileSync(path.join(home!.cwd, "a.txt"), "utf8")).toBe("one\n");
    await mounted.keys((k) => k.pressEnter());
    await mounted.waitFor("Rewound before “change a”", 5000);
    expect(mounted.host.session.sessionId).not.toBe(before);
    expect(readFileSync(path.join(home!.cwd, "a.txt"), "utf8")).toBe("zero\n");
    expect(mounted.frame()).not.toContain("changed a");
  });

  test("right after a turn (its after-checkpoint still being taken): the preview waits for it instead of racing it", async () => {
    home = makeTestHome();
    initRepo(home.cwd, { "a.txt": "zero\n" });
    mounted = await mountBaton({ home, fileCheckpoints: true, env: gitEnv(), script: { turns: [[{ type: "write", path: "a.txt", content: "one\n" }, { type: "text", text: "changed a" }]] } });
    await mounted.submit("change a");
    await mounted.until(() => mounted!.host.controller.state.turnSummaries.length === 1, 5000);
    expect(listToArray(mounted.host.controller.state.fileCheckpoints).some((c) => c.boundary === "after")).toBe(false);
    await mounted.submit("/rewind");
    await mounted.waitFor("Rewind the files and the conversation to…");
    await mounted.keys((k) => k.pressEnter());
    const preview = await mounted.waitFor(/Rewind before “change a”\?|rror/, 5000);
    expect(preview).toContain("1 file would change");
    expect(listToArray(mounted.host.controller.state.fileCheckpoints).map((c) => c.boundary)).toEqual(["before", "after"]);
  });

  test("a file the user edited since: refused, naming it; nothing changes", async () => {
    mounted = await mountWithTurn();
    writeFileSync(path.join(home!.cwd, "a.txt"), "one, and the user's edit\n");
    await mounted.submit("/rewind");
    await mounted.waitFor("Rewind the files and the conversation to…");
    await mounted.keys((k) => k.pressEnter());
    const frame = await mounted.waitFor("Rewind refused");
    expect(frame).toContain("a.txt");
    expect(frame).not.toContain("Rewind before “change a”?");
    expect(readFileSync(path.join(home!.cwd, "a.txt"), "utf8")).toBe("one, and the user's edit\n");
  });

  test("refused while a turn runs", async () => {
    home = makeTestHome();
    initRepo(home.cwd, { "a.txt": "zero\n" });
    mounted = await mountBaton({ home, fileCheckpoints: true, env: gitEnv(), script: { turns: [[{ type: "waitForCancel" }]] } });
    await mounted.submit("busy");
    await mounted.waitFor("Esc to interrupt");
    await mounted.submit("/rewind");
    await mounted.waitFor("before rewinding");
    expect(mounted.frame()).not.toContain("Rewind the files and the conversation to…");
    await mounted.escape();
  });
});
