/**
 * The process's streams are made on first use (issue #18): Bun builds `process.stdout`, `stderr` and `stdin` (and
 * Node's stream machinery with them, ≈ 12–15 ms) when they are first touched, and `baton exec` starts its harness
 * before it writes anything. The io a command sees is derived several times on the way (terminal-safe streams, the
 * resolved BATON_HOME, exec's definitions); a spread would call the getters and make every stream at once.
 */
import { describe, expect, test } from "bun:test";
import path from "node:path";
import { makeTestHome } from "../support/session-host.ts";

const PROBE = path.join(import.meta.dir, "../support/lazy-streams-probe.ts");

describe("the process's streams", () => {
  test("none is made by deriving the io as a command does; each by its first use; the exit ends only those", () => {
    const home = makeTestHome();
    try {
      const child = Bun.spawnSync([process.execPath, PROBE, home.home, home.cwd], { stdin: "ignore" });
      if (child.exitCode !== 0) throw new Error(`the probe failed: ${child.stderr.toString()}`);
      expect(JSON.parse(child.stdout.toString())).toEqual({
        steps: { derived: [], "stderr.write": ["stderr"], stdinIsTTY: ["stderr", "stdin"] },
        written: ["stderr:ab\n"], // through the terminal-safe stream
        ended: ["stderr"], // stdout was never made, so there is nothing of it to flush
        stdinIsTTY: true,
        stderrIsTTY: false,
        code: 3,
      });
    } finally {
      home.cleanup();
    }
  });
});
