/** `baton plugins …` end to end: the real baton binary, the real npm (offline), the example marketplace. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runBaton } from "../support/baton-process.ts";
import { tempDir } from "../support/plugin-rig.ts";

const EXAMPLES = path.resolve(import.meta.dir, "../../examples/marketplace");
let root: string;
let env: Record<string, string>;
let cwd: string;

const baton = (...args: string[]) => runBaton(["plugins", ...args], { env, cwd });

beforeAll(() => {
  root = tempDir("baton-cli-plugins-");
  cwd = path.join(root, "project");
  mkdirSync(cwd, { recursive: true });
  env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: root, BATON_HOME: path.join(root, "baton"), npm_config_update_notifier: "false" };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("baton plugins", () => {
  test("marketplace add, install by id, already installed", async () => {
    const added = await baton("marketplace", "add", EXAMPLES);
    expect(added.stdout).toBe(`Added marketplace example (1 plugin) from ${EXAMPLES}\n`);
    expect((await baton("marketplace", "add", EXAMPLES)).stdout).toContain("is already registered");
    expect((await baton("marketplace", "list")).stdout).toBe(`example  ${EXAMPLES}\n  example/hello  (hello)\n`);
    const installed = await baton("install", "example/hello");
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain("Installed example/hello 0.1.0 from example");
    expect(installed.stdout).toContain("Enable it with: baton plugins enable example/hello");
    const again = await baton("install", "example/hello");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("baton: example/hello 0.1.0 is already installed from example");
  });

  test("enable asks for consent: refused without a terminal, --yes after reading; list, restart, logs", async () => {
    const refused = await baton("enable", "example/hello");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("example/hello 0.1.0 (example) asks to:\n  • may run: git\n");
    expect(refused.stdout).toContain("Baton isolates faults, it does not sandbox");
    expect(refused.stderr).toContain("consent is needed and there is no terminal to ask");
    expect(refused.stderr).toContain("rerun with --yes");
    const enabled = await baton("enable", "example/hello", "--yes");
    expect(enabled.code).toBe(0);
    expect(enabled.stdout).toContain("Enabled example/hello 0.1.0;");
    const yaml = readFileSync(path.join(root, "baton", "plugin.yaml"), "utf8");
    expect(yaml).toContain("example/hello@example:");
    expect(yaml).toMatch(/treeDigest: sha512-/);

    const list = await baton("list");
    expect(list.stdout.split("\n")[0]).toMatch(/^PLUGIN\s+VERSION\s+MARKETPLACE\s+ENABLED\s+STATE$/);
    expect(list.stdout).toMatch(/example\/hello\s+0\.1\.0\s+example\s+yes\s+-/);
    const restart = await baton("restart", "example/hello");
    expect(restart.stderr).toBe("");
    expect(restart.stdout).toContain("example/hello 0.1.0 starts and activates (commands: /hello /branch).");
    const logs = await baton("logs", "example/hello");
    expect(logs.stdout).toContain("hello is ready");
    expect(logs.stdout).toContain("said hello 0 times");
    expect(logs.stdout).toContain("plugin active");
  });

  test("disable, remove (the marketplace directory stays), bundled", async () => {
    expect((await baton("disable", "example/hello")).stdout).toContain("Disabled example/hello; its data stays.");
    expect((await baton("list", "--json")).stdout).toContain('"enabled":false');
    const removed = await baton("remove", "example/hello");
    expect(removed.stdout).toBe("Removed example/hello@example (1 installed version deleted; plugin data kept)\n");
    expect((await baton("list")).stdout).toBe("No plugins installed. Install one with: baton plugins install <owner/name | ./dir | file.tgz>\n");
    expect(existsSync(path.join(EXAMPLES, "hello", "index.js"))).toBe(true);
    // The bundled marketplace installs through the same pipeline; a second run skips what is there.
    expect((await baton("install", "--bundled")).stdout).toBe("Installed baton/test-watch 0.1.0 from baton\nInstalled baton/second-opinion 0.1.0 from baton\nInstalled baton/gh-review 0.1.0 from baton\n");
    expect((await baton("install", "--bundled")).stdout).toBe("baton/test-watch: already installed\nbaton/second-opinion: already installed\nbaton/gh-review: already installed\n");
    const listed = await baton("list");
    expect(listed.stdout).toContain("baton/test-watch");
    const enabled = await baton("enable", "baton/test-watch", "--yes");
    expect(enabled.stdout).toContain("may run: sh");
    expect((await baton("restart", "baton/test-watch")).stdout).toContain("baton/test-watch 0.1.0 starts and activates (commands: /tests).");
  });

  test("bad input: a corrupt plugin.yaml names its line and is kept; unknown ids and commands are one line", async () => {
    const file = path.join(root, "baton", "plugin.yaml");
    writeFileSync(file, "plugins:\n  example/hello@example: {enabled: true, version: [\n");
    const list = await baton("list");
    expect(list.code).toBe(1);
    expect(list.stderr.split("\n")[0]).toMatch(new RegExp(`^baton: ${file.replace(/[/.]/g, "\\$&")}:\\d+: malformed YAML`));
    expect(readFileSync(file, "utf8")).toContain("version: [");
    rmSync(file);
    const unknown = await baton("enable", "nobody/nothing");
    expect(unknown.stderr).toBe("baton: nobody/nothing is not installed\n  Install it: baton plugins install nobody/nothing\n");
    const usage = await baton("frobnicate");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("unknown plugins command 'frobnicate'");
  });
});
