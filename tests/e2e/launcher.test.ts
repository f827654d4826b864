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

describe("bin/baton.cjs when bun's postinstall was skipped", () => {
  test("falls back to the platform package's binary", () => {
    const fs = require("node:fs") as typeof import("node:fs");
    const root = path.resolve(import.meta.dir, "../..");
    const scratch = mkdtempSync(path.join(root, ".tmp-launcher-"));
    try {
      fs.mkdirSync(path.join(scratch, "bin"));
      fs.copyFileSync(BATON_LAUNCHER, path.join(scratch, "bin", "baton.cjs"));
      fs.mkdirSync(path.join(scratch, "src", "app"), { recursive: true });
      fs.writeFileSync(path.join(scratch, "src", "app", "main.ts"), 'process.stdout.write(`ran on bun ${Bun.version} with ${process.argv.slice(2).join(" ")}\\n`); process.exit(7);\n');
      // npm left bun's 450-byte stub in place and the real binary in @oven/bun-<platform>-<arch>
      const stubDir = path.join(scratch, "node_modules", "bun", "bin");
      fs.mkdirSync(stubDir, { recursive: true });
      fs.writeFileSync(path.join(scratch, "node_modules", "bun", "package.json"), '{"name":"bun","version":"1.4.5"}');
      fs.writeFileSync(path.join(stubDir, "bun.exe"), "#!/bin/sh\necho \"Bun's postinstall script was not run\"; exit 1\n", { mode: 0o755 });
      const platform = path.join(scratch, "node_modules", "@oven", `bun-${process.platform}-${process.arch}`);
      fs.mkdirSync(path.join(platform, "bin"), { recursive: true });
      fs.writeFileSync(path.join(platform, "package.json"), `{"name":"@oven/bun-${process.platform}-${process.arch}","version":"1.4.5"}`);
      const realBun = path.join(root, "node_modules", "bun", "bin", "bun.exe");
      try {
        fs.linkSync(realBun, path.join(platform, "bin", "bun"));
      } catch {
        fs.copyFileSync(realBun, path.join(platform, "bin", "bun"));
      }
      fs.chmodSync(path.join(platform, "bin", "bun"), 0o755);
      const result = Bun.spawnSync(["node", path.join(scratch, "bin", "baton.cjs"), "a", "b"], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env["PATH"] } });
      expect(result.stdout.toString()).toBe("ran on bun 1.4.5 with a b\n");
      expect(result.exitCode).toBe(7);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
