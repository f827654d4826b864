/**
 * The plugins the docs show really work: the complete plugin in packages/baton-plugin/README.md (copied out
 * of the README as it is) and the example marketplace's example/hello, installed and run in a git repo.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createPluginRig, type PluginRig } from "../support/plugin-rig.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
let rigs: PluginRig[] = [];
afterEach(async () => {
  for (const rig of rigs) await rig.close();
  rigs = [];
});

function gitRepo(dir: string, files: Record<string, string>): void {
  const git = (...args: string[]) => spawnSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: dir, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  git("add", ".");
  git("commit", "-qm", "init");
}

async function run(rig: PluginRig, key: string, command: string, argument = ""): Promise<string> {
  const binding = rig.manager.binding(key);
  const result = await rig.manager.execute(binding?.instance.pluginInstanceId ?? "", command, argument);
  return result.kind === "message" ? result.text : "";
}

describe("documented plugins", () => {
  test("the README's complete plugin installs, activates and counts TODOs", async () => {
    const readme = readFileSync(path.join(ROOT, "packages/baton-plugin/README.md"), "utf8");
    const manifest = /```json\n([\s\S]*?)```/.exec(readme)?.[1];
    const entry = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(entry?.split("\n").length).toBeLessThanOrEqual(32);
    const rig = createPluginRig();
    rigs.push(rig);
    const dir = path.join(rig.root, "todo-count");
    mkdirSync(path.join(dir, ".baton-plugin"), { recursive: true });
    writeFileSync(path.join(dir, ".baton-plugin", "plugin.json"), manifest ?? "");
    writeFileSync(path.join(dir, "index.js"), entry ?? "");
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "todo-count", version: "0.1.0", type: "module", files: ["index.js", ".baton-plugin"] }));
    gitRepo(rig.cwd, { "a.txt": "TODO one\nTODO two\n", "b.txt": "FIXME\n" });
    const key = await rig.installAndEnable(dir);
    expect(await run(rig, key, "todos")).toBe("2 × TODO in 1 files");
    expect(await run(rig, key, "todos", "FIXME")).toBe("1 × FIXME in 1 files");
    expect(await run(rig, key, "todos", "NOPE")).toBe("No NOPE in tracked files.");
  });

  test("example/hello: /hello and /branch", async () => {
    const rig = createPluginRig();
    rigs.push(rig);
    gitRepo(rig.cwd, { "README": "x\n" });
    const key = await rig.installAndEnable(path.join(ROOT, "examples/marketplace/hello"));
    expect(await run(rig, key, "hello", "docs")).toBe(`Hello, docs! (greeting #1 in ${rig.cwd})`);
    expect(await run(rig, key, "branch")).toBe("On branch main");
  });
});
