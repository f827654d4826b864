/**
 * test-watch's "ask once" (#17) with the real `baton` binary, the bundled plugin installed and enabled through
 * `baton plugins`, and the real Codex against the mock model: the project has a package.json without a `test`
 * script and no `command` setting, so after Codex's first edit test-watch asks once which command runs the tests.
 * The answer, typed in `baton repl` as free text (allowOther), is the command of the run that follows; Baton is
 * killed with -9 while that run is going; the reopened session runs the command again without asking, no test
 * process is left behind; and a new session in the same project uses the answer after its first edit without
 * asking either.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pluginInstanceIdFor } from "../../src/shared/ids.ts";
import { runBaton, spawnBaton, waitUntil, type BatonChild } from "../support/baton-process.ts";
import { makeCodexHome, type CodexHome } from "../support/codex-home.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { isRunning } from "../support/processes.ts";
import { ledgerOf, newestSession, sessionDir } from "../support/session-files.ts";

let mock: MockResponses;
let home: CodexHome | undefined;
const children: BatonChild[] = [];

beforeAll(async () => {
  mock = await startMockResponses();
});
afterAll(async () => {
  for (const child of children) if (!child.exited()) process.kill(child.pid, "SIGKILL");
  await mock.stop();
  home?.cleanup();
});

const QUESTION = "[question from baton/test-watch] Which command runs this project's tests?";
const patch = (from: string, to: string) => ({ kind: "apply_patch" as const, patch: `*** Begin Patch\n*** Update File: a.txt\n@@\n-${from}\n+${to}\n*** End Patch` });
const count = (text: string, part: string) => text.split(part).length - 1;

test("no test command anywhere: asked once after the first edit; the free-text answer runs; it survives kill -9 and is not asked again, in the reopened session or a new one", async () => {
  home = makeCodexHome({ baseUrl: mock.baseUrl, approvalPolicy: "never", sandboxMode: "danger-full-access" });
  const cwd = home.workdir;
  const batonHome = path.join(home.root, "baton");
  const env = { ...home.env, BATON_HOME: batonHome, BATON_DEFAULT_AGENT: "codex", npm_config_update_notifier: "false" };
  // No `test` script: test-watch cannot guess the command. `check` logs each run, waits while `hold` exists.
  writeFileSync(path.join(cwd, "package.json"), JSON.stringify({ name: "tw-question", private: true, scripts: { check: "sh check.sh" } }));
  writeFileSync(path.join(cwd, "a.txt"), "ok\n");
  writeFileSync(
    path.join(cwd, "check.sh"),
    'echo $$ >> runs.log\nwhile [ -f hold ]; do sleep 0.1; done\nif grep -qx ok a.txt; then echo "1 pass"; else echo "FAIL a.txt: expected ok, got $(cat a.txt)"; exit 1; fi\n',
  );
  const runs = () => (existsSync(path.join(cwd, "runs.log")) ? readFileSync(path.join(cwd, "runs.log"), "utf8").trim().split("\n") : []);

  expect((await runBaton(["plugins", "install", "--bundled"], { env, cwd })).code).toBe(0);
  expect((await runBaton(["plugins", "enable", "baton/test-watch", "--yes"], { env, cwd })).code).toBe(0);
  const pi = pluginInstanceIdFor("baton/test-watch@baton");

  // 1. The first edit: one question; the answer (not one of its options) starts the waiting run with it.
  const first = spawnBaton(["repl"], { env, cwd });
  children.push(first);
  await mock.script([patch("ok", "broken"), { kind: "text", text: "I changed a.txt." }]);
  first.write("change a.txt\n");
  await waitUntil(() => first.stderr().includes(QUESTION), 60_000, "the question");
  const id = newestSession(batonHome);
  const questions = (sessionId: string) => ledgerOf(batonHome, sessionId).filter((e) => e.kind === "interaction.opened" && (e.payload["draft"] as { type?: string }).type === "question");
  expect(questions(id)).toHaveLength(1);
  const options = ((questions(id)[0]?.payload["draft"] as { questions: { options?: { label: string }[] }[] }).questions[0]?.options ?? []).map((o) => o.label);
  expect(options).not.toContain("npm run check");
  expect(options).not.toContain("npm test");
  writeFileSync(path.join(cwd, "hold"), "");
  first.write("/answer npm run check\n");
  await waitUntil(() => first.stdout().includes("answered baton/test-watch: npm run check"), 15_000, "the answer");
  await waitUntil(() => runs().length === 1, 30_000, "the run with the answered command");
  const watchFile = path.join(sessionDir(batonHome, id), "plugins", pi, "resources", "testwatch.baton.dev", "v1alpha1", "TestWatch", "project.json");
  const run = () => (JSON.parse(readFileSync(watchFile, "utf8")) as { object: { status: { run?: { command: string; state: string } } } }).object.status.run;
  await waitUntil(() => run()?.state === "running", 15_000, "the run recorded as running");
  expect(run()?.command).toBe("npm run check");

  // 2. kill -9 mid-run: the test process goes with Baton; the reopened session runs it again, unasked.
  process.kill(first.pid, "SIGKILL");
  await first.done;
  const cutShort = Number(runs()[0]);
  await waitUntil(() => !isRunning(cutShort), 15_000, "the test command of the killed Baton to be gone");
  rmSync(path.join(cwd, "hold"));
  const second = spawnBaton(["repl", "--session", id], { env, cwd });
  children.push(second);
  await waitUntil(() => second.stderr().includes("[suggestion from baton/test-watch]"), 60_000, "the suggestion of the resumed run");
  expect(runs()).toHaveLength(2);
  expect(run()).toMatchObject({ command: "npm run check", state: "failed" });
  expect(second.stderr()).toContain("FAIL a.txt: expected ok, got broken");
  second.write("/exit\n");
  expect((await second.done).code).toBe(0);
  expect(second.stderr()).not.toContain("[question from");
  expect(questions(id)).toHaveLength(1);
  expect(count(first.stderr(), QUESTION)).toBe(1);

  // 3. A new session in the same project: its first edit runs the answered command, nothing is asked.
  const third = spawnBaton(["repl"], { env, cwd });
  children.push(third);
  await waitUntil(() => third.stdout().includes("you> "), 30_000, "the third repl");
  await mock.script([patch("broken", "worse"), { kind: "text", text: "Changed it again." }]);
  third.write("change a.txt again\n");
  await waitUntil(() => third.stderr().includes("FAIL a.txt: expected ok, got worse"), 60_000, "the new session's run and suggestion");
  const newId = newestSession(batonHome);
  expect(newId).not.toBe(id);
  expect(runs()).toHaveLength(3);
  third.write("/exit\n");
  expect((await third.done).code).toBe(0);
  expect(third.stderr()).not.toContain("[question from");
  expect(questions(newId)).toHaveLength(0);
}, 240_000);
