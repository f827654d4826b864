/**
 * `baton` (the TUI command) up to the point where the renderer would take the terminal: flags, the TTY
 * requirement, and session errors printed as plain text before any screen switch (TUI-01, CLI-02).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCliOnce } from "../support/cli-runner.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { makeTestHome, openTestSession } from "../support/session-host.ts";

let base: string;
let cwd: string;
let env: Record<string, string | undefined>;

beforeEach(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "baton-tui-cli-"));
  cwd = path.join(base, "project");
  mkdirSync(cwd, { recursive: true });
  env = { HOME: base, BATON_HOME: path.join(base, "home"), PATH: process.env["PATH"], BATON_DEFAULT_AGENT: "fake" };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const run = (argv: string[], tty: boolean) => runCliOnce(argv, { env, cwd, definitions: [fakeDefinition({ turns: [] })], tty });

describe("baton (TUI) before the screen", () => {
  test("without a TTY it says so and exits 1, with or without the 'tui' word", async () => {
    for (const argv of [[], ["tui"], ["--cwd", "."]]) {
      const result = await run(argv, false);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("requires a real terminal (TTY)");
      expect(result.stdout).toBe("");
    }
  });

  test("--session with --continue is a usage error (exit 2), also with -s/-c and 'tui'", async () => {
    for (const argv of [["--session", "bs_x", "--continue"], ["tui", "-s", "bs_x", "-c"]]) {
      const result = await run(argv, true);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--session and --continue cannot be used together");
    }
  });

  test("an unknown session or agent fails as plain text before the renderer starts", async () => {
    const missing = await run(["-s", "bs_00000000000000000000000000"], true);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^baton: .*bs_00000000000000000000000000/m);
    expect(missing.stdout).not.toContain("\u001b[?1049h");
    const agent = await run(["--agent", "nope"], true);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain("unknown target 'nope'");
  });

  test("-c with nothing to continue says so and exits 2 before the screen (#11.8)", async () => {
    const result = await run(["-c"], true);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("nothing to continue: no session in");
    expect(result.stdout).not.toContain("\u001b[?1049h");
  });

  test("a session locked by a live process fails with a plain-text error, exit 1", async () => {
    const home = makeTestHome();
    let holder: Bun.Subprocess<"ignore", "pipe", "inherit"> | undefined;
    try {
      env = { ...env, BATON_HOME: home.home };
      cwd = home.cwd;
      const session = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })] });
      await session.close();
      // Another process takes the lock and keeps it.
      const root = path.resolve(import.meta.dir, "../..");
      const script = path.join(base, "hold-lock.ts");
      writeFileSync(
        script,
        [
          `import { createSessionStore } from ${JSON.stringify(path.join(root, "src/store/index.ts"))};`,
          `import { systemClock } from ${JSON.stringify(path.join(root, "src/shared/clock.ts"))};`,
          `import { createUlidSource } from ${JSON.stringify(path.join(root, "src/shared/ids.ts"))};`,
          `const store = createSessionStore({ home: ${JSON.stringify(home.home)}, clock: systemClock, ids: createUlidSource() });`,
          `store.acquireLock(store.findSession(${JSON.stringify(session.ref.batonSessionId)}));`,
          `process.stdout.write("locked\\n");`,
          `setInterval(() => undefined, 1000);`,
        ].join("\n"),
      );
      holder = Bun.spawn([process.execPath, script], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
      const reader = holder.stdout.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("locked");
      const result = await run(["tui", "-s", session.ref.batonSessionId], true);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`session ${session.ref.batonSessionId} is in use by`);
      expect(result.stdout).toBe("");
    } finally {
      holder?.kill("SIGKILL");
      await holder?.exited;
      home.cleanup();
    }
  });
});
