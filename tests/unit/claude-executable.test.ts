/** Which Claude Code binary Baton starts, and what `baton doctor` reports about it. */
import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { claudeDefinition } from "../../src/harness/claude/definition.ts";
import { bundledCandidates, bundledClaudePath, resolveClaudeExecutable } from "../../src/harness/claude/executable.ts";
import type { HarnessTarget } from "../../src/harness/definition.ts";
import { brand } from "../support/ids.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-claude-exe-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const target = (settings: Record<string, unknown> = {}): HarnessTarget => ({ id: brand.target("claude"), harness: "claude", env: {}, settings });

describe("Claude executable resolution", () => {
  test("settings.executable wins over BATON_CLAUDE_BIN, which wins over the bundled binary", () => {
    expect(resolveClaudeExecutable({ executable: "/opt/cc" }, { BATON_CLAUDE_BIN: "/env/cc" })).toEqual({ ok: true, path: "/opt/cc", source: "settings.executable" });
    expect(resolveClaudeExecutable({}, { BATON_CLAUDE_BIN: "/env/cc" })).toEqual({ ok: true, path: "/env/cc", source: "BATON_CLAUDE_BIN" });
    const bundled = resolveClaudeExecutable({ executable: "  " }, { BATON_CLAUDE_BIN: "" });
    expect(bundled).toMatchObject({ ok: true, source: "bundled" });
    expect(bundled.ok && bundled.path).toBe(bundledClaudePath()!);
  });

  test("the bundled binary is the SDK's platform package", () => {
    expect(bundledCandidates("linux", "x64")).toEqual([
      "@anthropic-ai/claude-agent-sdk-linux-x64/claude",
      "@anthropic-ai/claude-agent-sdk-linux-x64-musl/claude",
    ]);
    expect(bundledCandidates("win32", "x64")).toEqual(["@anthropic-ai/claude-agent-sdk-win32-x64/claude.exe"]);
    expect(bundledClaudePath()).toContain("claude-agent-sdk-");
  });

  test("doctor probe runs --version on the bundled binary", async () => {
    const report = await claudeDefinition.probeExecutable(target(), { PATH: process.env["PATH"] ?? "/usr/bin" });
    expect(report).toMatchObject({ ok: true, source: "bundled" });
    expect(report.ok && report.version).toContain("(Claude Code)");
  });

  test("doctor probe reports a BATON_CLAUDE_BIN wrapper, and a broken one with a hint", async () => {
    const wrapper = path.join(dir, "company-claude");
    fs.writeFileSync(wrapper, "#!/bin/sh\necho '9.9.9 (Company Claude)'\n", { mode: 0o755 });
    const ok = await claudeDefinition.probeExecutable(target(), { PATH: "/usr/bin:/bin", BATON_CLAUDE_BIN: wrapper });
    expect(ok).toEqual({ ok: true, argv: [wrapper], source: "BATON_CLAUDE_BIN", version: "9.9.9 (Company Claude)" });
    const missing = await claudeDefinition.probeExecutable(target({ executable: path.join(dir, "nope") }), { PATH: "/usr/bin" });
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.hint).toContain("--version failed");
  });

  test("the definition's identity", () => {
    expect({ ...claudeDefinition, create: undefined, probeExecutable: undefined, inspector: undefined, settingsSchema: undefined, capabilities: undefined }).toEqual({
      id: "claude",
      aliases: ["cc"],
      label: "Claude Code",
      sessionKey: "claude-code",
      shortName: "claude",
      color: "#ff9e64",
      create: undefined,
      probeExecutable: undefined,
      inspector: undefined,
      settingsSchema: undefined,
      capabilities: undefined,
    });
    expect(typeof claudeDefinition.inspector?.read).toBe("function");
  });
});
