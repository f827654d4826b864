/**
 * #20.1 through the real `baton` in tmux with the real Codex against the mock model server: an approval that waits
 * past `notify.afterSeconds` raises a terminal notification — the pane's raw output carries OSC 9, OSC 777 and
 * BEL — and nothing of it shows on the screen; `baton inbox --json` in another shell lists the session until the
 * approval is answered.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { runBaton, waitUntil } from "../support/baton-process.ts";
import { codexTuiFile } from "../support/codex-tui.ts";
import { EXIT_MARKER } from "../support/tmux.ts";

const OSC9 = "\u001b]9;Codex is waiting for your approval\u0007";
const OSC777 = "\u001b]777;notify;Baton;Codex is waiting for your approval\u0007";

const tui = codexTuiFile();

describe("notifications when an agent waits (tmux, real Codex)", () => {
  test("an approval waiting past afterSeconds writes OSC 9 + OSC 777 + BEL to the terminal, never to the screen; baton inbox lists it until answered", async () => {
    const { t, env, cwd, output } = await tui.start({
      codex: { approvalPolicy: "on-request", sandboxMode: "read-only" },
      config: "notify: { afterSeconds: 1 }\n",
      replies: [
        { kind: "exec", cmd: "echo hi > note.txt", escalate: true },
        { kind: "text", text: "Wrote note.txt." },
      ],
    });
    // `baton inbox --json` from another shell (another directory): read from the disk, never from the live process.
    const inbox = async (): Promise<{ id: string; project: string; agent: string; waitingFor: string[]; live: boolean; summary: string }[]> => {
      const run = await runBaton(["inbox", "--json"], { env, cwd: path.dirname(cwd), launcher: true });
      expect(run.code).toBe(0);
      return JSON.parse(run.stdout);
    };
    await t.waitFor(/Message Codex .*Ctrl\+J newline/);
    t.type("write the note");
    t.keys("Enter");
    await t.waitFor("1. Allow once", 30_000);
    await waitUntil(() => output().includes(OSC9), 15_000, "the OSC 9 notification");
    const text = output();
    expect(text).toContain(`${OSC9}${OSC777}\u0007`);
    expect(t.capture()).not.toContain("waiting for your approval");
    const waiting = await inbox();
    expect(waiting).toEqual([expect.objectContaining({ project: fs.realpathSync(cwd), agent: "codex", waitingFor: ["approval"], live: true })]);
    expect(waiting[0]?.summary).toStartWith("waits for an approval");
    t.keys("1");
    await t.waitFor("Wrote note.txt.", 30_000);
    await t.waitFor(/Wrote note\.txt\.[\s\S]*· idle/, 30_000);
    expect(await inbox()).toEqual([]);
    t.keys("C-d");
    await t.waitFor(`${EXIT_MARKER}0]`, 20_000);
  }, 120_000);
});
