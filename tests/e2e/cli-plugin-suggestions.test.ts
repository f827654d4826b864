/**
 * `baton exec` with an enabled plugin, through the real `baton` process, the real `codex app-server` and the
 * mock Responses API: the loops fixture's Turn controller proposes after the turn, and the run prints it as a
 * `[suggestion from <plugin>] …` line before it ends — shown, never sent (a proposal always needs a person).
 */
import { expect, test } from "bun:test";
import { runBaton } from "../support/baton-process.ts";
import { useCodexCliRig } from "../support/codex-cli-rig.ts";
import { installPlugin, LOOPS_DIR } from "../support/plugin-rig.ts";

const rig = useCodexCliRig({ codex: { approvalPolicy: "on-request", sandboxMode: "read-only" } });

test("exec prints the plugin's suggestion after the turn as one line and sends nothing more", async () => {
  const { home, batonHome, env, mock } = rig;
  await installPlugin({ batonHome, npmHome: home.root, dir: LOOPS_DIR, config: { turns: "propose" } });
  await mock.script([{ kind: "text", text: "Hello from Codex." }]);

  const result = await runBaton(["exec", "--agent", "codex", "say hello"], { env, cwd: home.workdir, stdin: "" });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("Hello from Codex.\n");
  expect(result.stderr).toContain('[suggestion from baton-test/loops] Follow up on "say hello" (end_turn)\n');
  expect(result.stderr).toMatch(/turn t_\w+ end_turn$/m);
  // The suggestion was not taken: the model saw one prompt.
  expect(await mock.requests()).toHaveLength(1);
}, 90_000);
