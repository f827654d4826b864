/**
 * A plugin question answered in `baton repl`, then `kill -9` of Baton before the plugin acted on the answer, then
 * the session reopened: the next reconcile reads the answer from the ledger (PIX-01, plugins.md §8). The real
 * `baton` process; the Board fixture's Source emits a card that asks; a `hold` file in the plugin's data dir keeps
 * the answered reconcile from acting until Baton is dead. No prompt is sent: no model is involved.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pluginInstanceIdFor } from "../../src/shared/ids.ts";
import { spawnBaton, waitUntil } from "../support/baton-process.ts";
import { useCodexCliRig } from "../support/codex-cli-rig.ts";
import { BOARD_DIR, installPlugin } from "../support/plugin-rig.ts";
import { ledgerOf, newestSession, sessionDir } from "../support/session-files.ts";

const rig = useCodexCliRig({ codex: { approvalPolicy: "on-request", sandboxMode: "read-only" } });

test("a plugin question answered in repl, Baton killed with -9 before the plugin acted, reopened: the next reconcile sees the answer", async () => {
  const { home, batonHome, env, mock } = rig;
  const key = await installPlugin({ batonHome, npmHome: home.root, dir: BOARD_DIR, config: { cards: [{ name: "c1", spec: { title: "One", ask: "ship-c1" } }] } });
  const pi = pluginInstanceIdFor(key);

  const first = spawnBaton(["repl"], { env, cwd: home.workdir });
  const line = "[question from baton-test/board] Card c1: Ship card c1? (1) Ship it, 2) Hold)";
  await waitUntil(() => first.stderr().includes(line), 30_000, "the question line");
  const id = newestSession(batonHome);
  const dir = sessionDir(batonHome, id);
  const dataDir = path.join(dir, "plugins", "baton-test%2Fboard", pi);
  const reconciles = () => (existsSync(path.join(dataDir, "reconciles.log")) ? readFileSync(path.join(dataDir, "reconciles.log"), "utf8").trim().split("\n") : []);
  const cardFile = path.join(dir, "plugins", pi, "resources", "board.baton.dev", "v1", "Card", "c1.json");
  const status = () => (JSON.parse(readFileSync(cardFile, "utf8")) as { object: { status: Record<string, unknown> } }).object.status;
  writeFileSync(path.join(dataDir, "hold"), "");

  first.write("/answer 1\n");
  await waitUntil(() => first.stdout().includes("answered baton-test/board: Ship it"), 15_000, "the answer");
  await waitUntil(() => reconciles().includes("c1 held"), 15_000, "the reconcile that read the answer (held)");
  // The answer is on disk (as the option's id) before the plugin hears of it.
  const resolved = ledgerOf(batonHome, id).filter((e) => e.kind === "interaction.resolved");
  expect(resolved.map((e) => e.payload["resolution"])).toEqual([{ outcome: "answered", answers: { decision: ["ship"] } }]);
  process.kill(first.pid, "SIGKILL");
  await first.done;
  expect(status()).toEqual({});

  rmSync(path.join(dataDir, "hold"));
  const second = spawnBaton(["repl", "--session", id], { env, cwd: home.workdir });
  await waitUntil(() => existsSync(cardFile) && status()["answer"] === "ship", 30_000, "the answer written by the reconcile after the reopen");
  expect(reconciles().filter((l) => l === 'c1 {"type":"answered","values":["ship"]}').length).toBeGreaterThanOrEqual(2);
  // Answered once: no second question, and the reopened repl lists nothing to answer.
  expect(ledgerOf(batonHome, id).filter((e) => e.kind === "interaction.opened")).toHaveLength(1);
  second.write("/exit\n");
  const result = await second.done;
  expect(result.code).toBe(0);
  expect(result.stderr).not.toContain("[question from");
  expect(await mock.requests()).toHaveLength(0);
}, 120_000);
