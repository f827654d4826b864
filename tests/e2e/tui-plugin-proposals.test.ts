/**
 * The loop end to end (issue #16) in the real terminal UI (tmux) with the real Codex against the mock model:
 * the loops fixture's Turn controller proposes after a turn, the card says who suggests it, `e` loads it into
 * the composer, the user edits it and sends it, and the edited text is what the model receives.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import path from "node:path";
import { PluginCatalog } from "../../src/plugin/catalog.ts";
import { makeCodexHome, type CodexHome } from "../support/codex-home.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { BATON_VERSION, LOOPS_DIR, npmEnv } from "../support/plugin-rig.ts";
import { EXIT_MARKER, Tmux } from "../support/tmux.ts";

const LAUNCHER = path.resolve(import.meta.dir, "../../bin/baton.cjs");
let mock: MockResponses;
let home: CodexHome | undefined;
let tmux: Tmux | undefined;

beforeAll(async () => {
  mock = await startMockResponses();
});
afterAll(async () => {
  tmux?.kill();
  await mock.stop();
  home?.cleanup();
});

test("a plugin proposes after a Codex turn; the user edits the suggestion and sends it; the model gets the edited text", async () => {
  home = makeCodexHome({ baseUrl: mock.baseUrl, approvalPolicy: "on-request", sandboxMode: "read-only" });
  const batonHome = path.join(home.root, "baton");
  const catalog = new PluginCatalog({ home: batonHome, batonVersion: BATON_VERSION, npm: { env: npmEnv(home.root) } });
  const installed = await catalog.install(LOOPS_DIR);
  await catalog.settings.upsert(`${installed.receipt.pluginId}@${installed.receipt.marketplace}`, { enabled: false, version: installed.receipt.version, config: { turns: "propose" } });
  await catalog.enable({ pluginId: "baton-test/loops" }, async () => true);
  await mock.script([{ kind: "text", text: "First answer." }, { kind: "text", text: "Second answer." }]);

  const env = { ...home.env, BATON_HOME: batonHome, TERM: "screen-256color", LANG: "C.UTF-8" };
  const t = (tmux = Tmux.start({ command: ["node", LAUNCHER, "--agent", "codex"], env, cwd: home.workdir, width: 130, height: 40 }));
  await t.waitFor(/Message Codex .*Ctrl\+J newline/, 30_000);
  t.type("say hi");
  t.keys("Enter");
  await t.waitFor("First answer.", 30_000);
  await t.waitFor("Suggested by baton-test/loops", 30_000);
  await t.waitFor('Follow up on "say hi" (end_turn)', 10_000);
  await t.waitFor("1 suggestion", 10_000);

  // e: the suggestion goes into the composer; the user adds to it and sends it.
  t.keys("e");
  await t.waitFor(/Follow up on "say hi" \(end_turn\)[^\n]*$/m, 10_000);
  t.keys("End");
  t.type(" and keep it short");
  t.keys("Enter");
  await t.waitFor("Second answer.", 30_000);
  const requests = await mock.requests();
  expect(requests).toHaveLength(2);
  expect(JSON.stringify(requests[1]?.body)).toContain('Follow up on \\"say hi\\" (end_turn) and keep it short');
  t.keys("C-d");
  await t.waitFor(`${EXIT_MARKER}0]`, 20_000);
}, 150_000);
