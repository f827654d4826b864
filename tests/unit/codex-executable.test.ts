import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { codexDefinition, probeCodexExecutable } from "../../src/harness/codex/definition.ts";
import { resolveCodexCommand, resolveInstalledCodex, targetTriple, versionArgv } from "../../src/harness/codex/executable.ts";
import { fileChangeBlocks, toolTerminalStatus } from "../../src/harness/codex/items.ts";
import { brand } from "../support/ids.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-codex-exe-"));
  dirs.push(dir);
  return dir;
}
function executable(dir: string, name: string, body = "#!/bin/sh\necho codex-cli 9.9.9\n"): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, body, { mode: 0o755 });
  return file;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("codex executable resolution (first match wins)", () => {
  test("config command argv is used verbatim", () => {
    const report = resolveCodexCommand({ command: ["/opt/codex", "--profile", "x", "app-server"] }, { BATON_CODEX_BIN: "/nope" });
    expect(report).toEqual({ ok: true, argv: ["/opt/codex", "--profile", "x", "app-server"], source: "config harnesses.codex.command" });
  });

  test("a malformed config command is an error, not a fallthrough", () => {
    const report = resolveCodexCommand({ command: "codex app-server" }, {});
    expect(report.ok).toBe(false);
  });

  test("BATON_CODEX_BIN gets app-server appended; a missing file is reported", () => {
    const dir = tempDir();
    const bin = executable(dir, "my-codex");
    expect(resolveCodexCommand({}, { BATON_CODEX_BIN: bin, PATH: "" })).toEqual({ ok: true, argv: [bin, "app-server"], source: "env BATON_CODEX_BIN" });
    const missing = resolveCodexCommand({}, { BATON_CODEX_BIN: path.join(dir, "absent") });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.searched[0]).toContain("not an executable file");
  });

  test("codex on PATH comes next", () => {
    const dir = tempDir();
    const bin = executable(dir, "codex");
    const report = resolveCodexCommand({}, { PATH: `/nonexistent${path.delimiter}${dir}` }, { installedFrom: null });
    expect(report).toEqual({ ok: true, argv: [bin, "app-server"], source: `PATH (${bin})` });
  });

  test("an npm wrapper on PATH is replaced by its native binary", () => {
    const dir = tempDir();
    const pkg = path.join(dir, "node_modules", "@openai", "codex");
    fs.mkdirSync(path.join(pkg, "bin"), { recursive: true });
    fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "@openai/codex" }));
    const wrapper = executable(pkg, "bin/codex.js", "#!/usr/bin/env node\n");
    const triple = targetTriple() as string;
    const native = executable(pkg, `vendor/${triple}/bin/codex`);
    const binDir = path.join(dir, "bin");
    fs.mkdirSync(binDir);
    fs.symlinkSync(wrapper, path.join(binDir, "codex"));
    const report = resolveCodexCommand({}, { PATH: binDir }, { installedFrom: null });
    expect(report.ok && report.argv).toEqual([native, "app-server"]);
  });

  test("the installed @openai/codex package's native binary is last; nothing found says what was searched and how to install", () => {
    const installed = resolveInstalledCodex();
    const report = resolveCodexCommand({}, { PATH: "" });
    if (installed !== undefined) expect(report).toMatchObject({ ok: true, argv: [installed, "app-server"] });
    const none = resolveCodexCommand({}, { PATH: "" }, { installedFrom: null });
    expect(none.ok).toBe(false);
    if (!none.ok) {
      expect(none.searched.join(" | ")).toBe(`BATON_CODEX_BIN (unset) | codex on PATH (PATH is empty) | installed @openai/codex package (native binary for ${targetTriple()})`);
      expect(none.hint).toContain("npm install -g @openai/codex");
      expect(none.hint).toContain("harnesses.codex.command");
    }
  });

  test("version argv drops app-server and what follows", () => {
    expect(versionArgv(["/c", "-c", "x=1", "app-server", "--listen"])).toEqual(["/c", "-c", "x=1", "--version"]);
    expect(versionArgv(["/c"])).toEqual(["/c", "--version"]);
  });

  test("probeExecutable runs --version", async () => {
    const dir = tempDir();
    const bin = executable(dir, "codex");
    const report = await probeCodexExecutable({ id: brand.target("codex"), harness: "codex", env: {}, settings: {} }, { PATH: dir });
    expect(report).toEqual({ ok: true, argv: [bin, "app-server"], source: `PATH (${bin})`, version: "codex-cli 9.9.9" });
    expect(codexDefinition).toMatchObject({ id: "codex", aliases: ["cx"], sessionKey: "codex", color: "#73daca", label: "Codex" });
  });
});

describe("codex item helpers", () => {
  test("terminal tool status is whitelisted: unknown → failed, missing → completed", () => {
    expect(toolTerminalStatus("declined")).toBe("declined");
    expect(toolTerminalStatus("inProgress")).toBe("failed");
    expect(toolTerminalStatus(undefined)).toBe("completed");
  });

  test("file changes become one diff block per file with synthesized headers", () => {
    expect(
      fileChangeBlocks([
        { path: "a.txt", kind: { type: "add" }, diff: "one\ntwo\n" },
        { path: "b.txt", kind: { type: "delete" }, diff: "gone\n" },
        { path: "c.txt", kind: { type: "update", move_path: null }, diff: "@@ -1 +1 @@\n-x\n+y\n" },
        { path: "d.txt", kind: { type: "update", move_path: "e.txt" }, diff: "@@ -1 +1 @@\n-x\n+y\n" },
      ]),
    ).toEqual([
      { type: "diff", changes: [{ operation: "add", path: "a.txt" }], patch: "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n" },
      { type: "diff", changes: [{ operation: "delete", path: "b.txt" }], patch: "--- a/b.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-gone\n" },
      { type: "diff", changes: [{ operation: "update", path: "c.txt" }], patch: "--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-x\n+y\n" },
      { type: "diff", changes: [{ operation: "move", path: "e.txt", oldPath: "d.txt" }], patch: "--- a/d.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-x\n+y\n" },
    ]);
  });
});
