/** config.yaml: defaults, env over file, unknown keys warned, bad values and malformed YAML reported precisely. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { builtinDefinitions } from "../../src/app/harnesses.ts";
import { isBatonError } from "../../src/shared/errors.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), "baton-config-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const definitions = builtinDefinitions();
const load = (env: Record<string, string> = {}) => loadConfig(home, env, definitions);
const write = (text: string) => writeFileSync(path.join(home, "config.yaml"), text);
const errorOf = (env: Record<string, string> = {}) => {
  try {
    load(env);
    return undefined;
  } catch (error) {
    return error;
  }
};

describe("config", () => {
  test("absent file: defaults, every origin 'default'", () => {
    const loaded = load();
    expect(loaded.exists).toBe(false);
    expect(loaded.config).toMatchObject({ defaultAgent: "codex", mentionBudgetChars: 4096, showThoughts: true, logLevel: "info", stallNoticeSeconds: 90, cancelGraceSeconds: 10 });
    expect(Object.values(loaded.origins).every((o) => o.kind === "default")).toBe(true);
  });

  test("file values with their line; env overrides the file", () => {
    write("# comment\ndefaultAgent: claude\nshowThoughts: false\n");
    const loaded = load({ BATON_SHOW_THOUGHTS: "true" });
    expect(loaded.config.defaultAgent).toBe("claude");
    expect(loaded.origins["defaultAgent"]).toEqual({ kind: "file", line: 2 });
    expect(loaded.config.showThoughts).toBe(true);
    expect(loaded.origins["showThoughts"]).toEqual({ kind: "env", name: "BATON_SHOW_THOUGHTS" });
  });

  test("unknown keys are warned with their line and ignored", () => {
    write("logLevel: debug\nfancyMode: on\n");
    const loaded = load();
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
    const loaded = load();
    expect(loaded.config.targets["codex-work"]).toEqual({ harness: "codex", env: { CODEX_HOME: "/tmp/work-codex" } });
  });

  test("targets: a bad harness setting is an error with its line, not silently dropped", () => {
    write("targets:\n  codex-work:\n    harness: codex\n    sandbox: everything\n    approvalPolicy: on-failure\n");
    const message = (errorOf() as Error).message;
    expect(message).toContain(`${path.join(home, "config.yaml")}:4: targets.codex-work.sandbox:`);
    expect(message).toContain(":5: targets.codex-work.approvalPolicy:");
  });

  test("targets: a key the harness does not know is an error naming it", () => {
    write("targets:\n  claude-b:\n    harness: claude\n    sandbox: read-only\n");
    expect((errorOf() as Error).message).toContain(":4: targets.claude-b.sandbox: Unrecognized key");
  });

  test("targets: an unknown harness is an error on the harness line", () => {
    write("targets:\n  mystery:\n    harness: gemini\n");
    expect((errorOf() as Error).message).toBe(`${path.join(home, "config.yaml")}:3: targets.mystery.harness: unknown harness 'gemini' (known: codex, claude, acp)`);
  });

  test("targets: an id taken by a built-in target or alias is an error with its line", () => {
    write("targets:\n  cc:\n    harness: codex\n");
    expect((errorOf() as Error).message).toContain(":2: targets.cc: the id is already taken");
  });

  test("a harness without a bundled target leaves its id free for a target", () => {
    const agent = { ...fakeDefinition({ turns: [] }, "agent"), bundledTarget: false };
    write("targets:\n  agent:\n    harness: agent\n    flavour: plain\n");
    expect(loadConfig(home, {}, [agent]).config.targets["agent"]).toEqual({ harness: "agent", flavour: "plain" });
    expect(() => loadConfig(home, {}, [fakeDefinition({ turns: [] }, "agent")])).toThrow(":2: targets.agent: the id is already taken");
  });

  test("harnesses: an unknown section is an error naming the known harnesses", () => {
    write("harnesses:\n  gemini:\n    command: [gemini]\n");
    expect((errorOf() as Error).message).toContain(":2: harnesses.gemini: unknown harness (known: codex, claude, acp)");
  });

  test("the schemas are the adapters': every value Codex's protocol offers is accepted, and only those", () => {
    write("harnesses:\n  codex:\n    approvalsReviewer: guardian_subagent\n    approvalPolicy: untrusted\n");
    expect(load().config.harnesses["codex"]).toEqual({ approvalsReviewer: "guardian_subagent", approvalPolicy: "untrusted" });
    write("harnesses:\n  codex:\n    approvalPolicy: on-failure\n");
    expect((errorOf() as Error).message).toContain(":3: harnesses.codex.approvalPolicy:");
  });

  test("a harness that is not built in validates its own settings; config has no list of harnesses", () => {
    const fake = fakeDefinition({ turns: [] }, "fake");
    write("harnesses:\n  fake:\n    flavour: spicy\ntargets:\n  fake-b:\n    harness: fake\n    flavour: sour\n");
    const message = (() => {
      try {
        loadConfig(home, {}, [fake]);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain(":7: targets.fake-b.flavour:");
    write("harnesses:\n  fake:\n    flavour: spicy\ntargets:\n  fake-b:\n    harness: fx\n    env: { A: '1' }\n");
    const loaded = loadConfig(home, {}, [fake]);
    expect(loaded.config.harnesses["fake"]).toEqual({ flavour: "spicy" });
    expect(loaded.config.targets["fake-b"]).toEqual({ harness: "fx", env: { A: "1" } });
  });
});

describe("config bounds (#11.18)", () => {
  test("durations above their maximum are errors (a timer over 2^31 ms would fire at once, in a loop); the maximum itself is fine", () => {
    write("stallNoticeSeconds: 2200000\ncancelGraceSeconds: 601\n");
    const error = errorOf();
    expect(isBatonError(error, "config_invalid")).toBe(true);
    expect((error as Error).message).toContain("config.yaml:1: stallNoticeSeconds: at most 86400 seconds (one day)");
    expect((error as Error).message).toContain("config.yaml:2: cancelGraceSeconds: at most 600 seconds (ten minutes)");
    write("stallNoticeSeconds: 86400\ncancelGraceSeconds: 600\nharnesses:\n  claude:\n    maxRetries: 20\n");
    expect(load().config).toMatchObject({ stallNoticeSeconds: 86400, cancelGraceSeconds: 600, harnesses: { claude: { maxRetries: 20 } } });
    write("harnesses:\n  claude:\n    maxRetries: 1.5\n");
    expect((errorOf() as Error).message).toContain("config.yaml:3: harnesses.claude.maxRetries: a whole number");
  });

  test("a YAML alias bomb is a config error naming the file, not an exhausted process", () => {
    const rows = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [name, previous] of [["b", "a"], ["c", "b"], ["d", "c"], ["e", "d"], ["f", "e"], ["g", "f"]] as const) rows.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(",")}]`);
    write(rows.join("\n"));
    const error = errorOf();
    expect(isBatonError(error, "config_invalid")).toBe(true);
    expect((error as Error).message).toStartWith(`${path.join(home, "config.yaml")}: cannot be loaded: Excessive alias count`);
  });
});
