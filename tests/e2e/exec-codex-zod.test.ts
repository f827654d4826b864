/**
 * A one-turn `baton exec` on Codex loads no zod (issue #18: `baton exec` ≤ 1.3× `codex exec`). Loading zod and
 * building the first schemas cost ≈ 40 ms of the run's one thread, on the way to the turn (the preview's meta.json
 * check, then the turn's phase, attempt, notice, route and context-usage events, then the Codex settings at
 * thread/start); those have hand checks now, which leave only what they are unsure of to the schemas. The real
 * `baton` with a preload that lists, at exit, every module the process loaded; real Codex, the mock model.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { resolveInstalledCodex } from "../../src/harness/codex/executable.ts";
import { BATON_ENTRY } from "../support/baton-process.ts";
import { useCodexCliRig } from "../support/codex-cli-rig.ts";

const rig = useCodexCliRig({ fresh: "each" });
const codex = resolveInstalledCodex();

describe.skipIf(codex === undefined)("a one-turn baton exec on Codex", () => {
  test("completes its turn without loading zod", async () => {
    const list = path.join(rig.home.root, "loaded.json");
    const preload = path.join(rig.home.root, "list-modules.ts");
    writeFileSync(preload, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(list)}, JSON.stringify(Object.keys(require.cache))));\n`);
    await rig.mock.script([{ kind: "text", text: "no schemas needed." }]);
    const child = Bun.spawn([process.execPath, "--preload", preload, BATON_ENTRY, "exec", "--agent", "codex", "hello"], { cwd: rig.home.workdir, env: { ...rig.env, BATON_CODEX_BIN: codex! }, stdout: "pipe", stderr: "pipe" });
    const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
    expect({ code, stderr }).toMatchObject({ code: 0 });
    expect(stdout).toBe("no schemas needed.\n");
    const loaded = (JSON.parse(readFileSync(list, "utf8")) as string[]).map((file) => file.split(path.sep).join("/"));
    expect(loaded.some((file) => file.endsWith("/src/harness/codex/session.ts") || /\/dist\/start-/.test(file))).toBe(true); // the list is real
    expect(loaded.filter((file) => /\/(node_modules|\.bun\/install\/cache)\/zod[@/]/.test(file))).toEqual([]);
  }, 60_000);
});
