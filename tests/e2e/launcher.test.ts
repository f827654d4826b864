/** The npm launcher (CLI-01): Node finds the package-local Bun and forwards argv, output and exit status. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BATON_LAUNCHER } from "../support/baton-process.ts";

function launch(args: string[], env: Record<string, string | undefined> = {}) {
  const home = mkdtempSync(path.join(os.tmpdir(), "baton-launcher-"));
  try {
    const result = Bun.spawnSync(["node", BATON_LAUNCHER, ...args], {
      env: { PATH: process.env["PATH"], HOME: home, BATON_HOME: path.join(home, "baton"), ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe("bin/baton.cjs", () => {
  test("runs the entry on the package's Bun and forwards the exit status", () => {
    const version = launch(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^baton \d+\.\d+\.\d+\n$/);
    const unknown = launch(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });

  test("a missing runtime prints a reinstall hint and exits 1", () => {
    const result = launch(["--version"], { BATON_BUN: "/nonexistent/bun" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Reinstall Baton (npm install)");
  });

  test("not a terminal: the TUI refuses with a clear error", () => {
    const result = launch([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("requires a real terminal (TTY)");
  });
});
