/** config.yaml: defaults, env over file, unknown keys warned, bad values and malformed YAML reported precisely. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { isBatonError } from "../../src/shared/errors.ts";

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), "baton-config-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const write = (text: string) => writeFileSync(path.join(home, "config.yaml"), text);
const errorOf = (env: Record<string, string> = {}) => {
  try {
    loadConfig(home, env);
    return undefined;
  } catch (error) {
    return error;
  }
};

describe("config", () => {
  test("absent file: defaults, every origin 'default'", () => {
    const loaded = loadConfig(home, {});
    expect(loaded.exists).toBe(false);
    expect(loaded.config).toMatchObject({ defaultAgent: "codex", mentionBudgetChars: 4096, showThoughts: true, logLevel: "info", stallNoticeSeconds: 90, cancelGraceSeconds: 10 });
    expect(Object.values(loaded.origins).every((o) => o.kind === "default")).toBe(true);
  });

  test("file values with their line; env overrides the file", () => {
    write("# comment\ndefaultAgent: claude\nshowThoughts: false\n");
    const loaded = loadConfig(home, { BATON_SHOW_THOUGHTS: "true" });
    expect(loaded.config.defaultAgent).toBe("claude");
    expect(loaded.origins["defaultAgent"]).toEqual({ kind: "file", line: 2 });
    expect(loaded.config.showThoughts).toBe(true);
    expect(loaded.origins["showThoughts"]).toEqual({ kind: "env", name: "BATON_SHOW_THOUGHTS" });
  });

  test("unknown keys are warned with their line and ignored", () => {
    write("logLevel: debug\nfancyMode: on\n");
    const loaded = loadConfig(home, {});
    expect(loaded.warnings).toEqual([{ file: path.join(home, "config.yaml"), line: 2, key: "fancyMode", message: "unknown key (ignored)" }]);
    expect(loaded.config.logLevel).toBe("debug");
  });

  test("a bad value is an error naming file, line and key — never silently replaced", () => {
    write("showThoughts: true\nmentionBudgetChars: -5\n");
    const error = errorOf();
    expect(isBatonError(error, "config_invalid")).toBe(true);
    expect((error as Error).message).toBe(`${path.join(home, "config.yaml")}:2: mentionBudgetChars: Too small: expected number to be >0`);
  });

  test("nested keys: a bad harness setting names the full key path and its line", () => {
    write("harnesses:\n  codex:\n    command: []\n    sandbox: everything\n");
    const message = (errorOf() as Error).message;
    expect(message).toContain(":3: harnesses.codex.command:");
    expect(message).toContain(":4: harnesses.codex.sandbox:");
  });

  test("malformed YAML is reported with its line", () => {
    write("defaultAgent: codex\nshowThoughts: [true\n");
    const message = (errorOf() as Error).message;
    expect(message).toMatch(/config\.yaml:\d+: malformed YAML/);
  });

  test("a bad env override names the variable", () => {
    const message = (errorOf({ BATON_MENTION_BUDGET_CHARS: "many" }) as Error).message;
    expect(message).toContain("environment BATON_MENTION_BUDGET_CHARS: mentionBudgetChars:");
  });

  test("targets: extra targets of a harness with their own env", () => {
    write("targets:\n  codex-work:\n    harness: codex\n    env:\n      CODEX_HOME: /tmp/work-codex\n");
    const loaded = loadConfig(home, {});
    expect(loaded.config.targets["codex-work"]).toEqual({ harness: "codex", env: { CODEX_HOME: "/tmp/work-codex" } });
  });
});
