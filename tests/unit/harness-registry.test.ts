/** Target ids, aliases, prefixes and configured targets (HAR-01..03). */
import { describe, expect, test } from "bun:test";
import { HarnessRegistry } from "../../src/harness/registry.ts";
import { matchTargetRef } from "../../src/harness/target-refs.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { normalizeStopReason } from "../../src/harness/normalize.ts";
import { brand } from "../support/ids.ts";

const entries = [
  { id: brand.target("codex"), aliases: ["cx"] },
  { id: brand.target("claude"), aliases: ["cc"] },
  { id: brand.target("codex-work"), aliases: [] },
];

describe("target references", () => {
  test("canonical ids and aliases, case-insensitive", () => {
    expect(matchTargetRef("CC", entries)).toEqual({ kind: "match", id: brand.target("claude") });
    expect(matchTargetRef("cx", entries)).toEqual({ kind: "match", id: brand.target("codex") });
    expect(matchTargetRef("Codex", entries)).toEqual({ kind: "match", id: brand.target("codex") });
  });

  test("unique prefixes match; ambiguous ones list the matches; unknown is unknown", () => {
    expect(matchTargetRef("cla", entries)).toEqual({ kind: "match", id: brand.target("claude") });
    expect(matchTargetRef("codex-", entries)).toEqual({ kind: "match", id: brand.target("codex-work") });
    expect(matchTargetRef("c", entries)).toEqual({ kind: "ambiguous", matches: [brand.target("claude"), brand.target("codex"), brand.target("codex-work")] });
    expect(matchTargetRef("claude-code", entries)).toEqual({ kind: "unknown" });
  });
});

describe("registry", () => {
  test("default target per harness; configured targets get the harness settings plus their own", () => {
    const registry = new HarnessRegistry([fakeDefinition({ turns: [] }, "codex")], {
      harnesses: { codex: { approvalPolicy: "on-request", env: { A: "1" } } },
      targets: { "codex-work": { harness: "codex", env: { CODEX_HOME: "/w" }, sandbox: "read-only" } },
    });
    expect(registry.target("codex")).toEqual({ id: brand.target("codex"), harness: "codex", env: { A: "1" }, settings: { approvalPolicy: "on-request" } });
    expect(registry.target("codex-work")).toEqual({ id: brand.target("codex-work"), harness: "codex", env: { CODEX_HOME: "/w" }, settings: { approvalPolicy: "on-request", sandbox: "read-only" } });
  });

  test("a harness without a bundled target has only its configured targets", () => {
    const agent = { ...fakeDefinition({ turns: [] }, "agent"), bundledTarget: false };
    const registry = new HarnessRegistry([fakeDefinition({ turns: [] }, "codex"), agent], {
      harnesses: { agent: { flavour: "plain" } },
      targets: { "agent-one": { harness: "agent", flavour: "spicy" }, agent: { harness: "agent" } },
    });
    expect(registry.listTargets().map((t) => t.id)).toEqual([brand.target("codex"), brand.target("agent-one"), brand.target("agent")]);
    expect(registry.target("agent-one")).toEqual({ id: brand.target("agent-one"), harness: "agent", env: {}, settings: { flavour: "spicy" } });
    expect(registry.target("agent")).toEqual({ id: brand.target("agent"), harness: "agent", env: {}, settings: { flavour: "plain" } });
    expect(new HarnessRegistry([agent]).listTargets()).toEqual([]);
  });

  test("unknown targets fail closed with the known ones listed", () => {
    const registry = new HarnessRegistry([fakeDefinition({ turns: [] }, "codex")]);
    expect(() => registry.resolve("gemini")).toThrow("unknown target 'gemini'. Known targets: codex (cx)");
    expect(() => new HarnessRegistry([fakeDefinition({ turns: [] }, "codex")], { harnesses: {}, targets: { x: { harness: "nope" } } })).toThrow(/unknown harness 'nope'/);
  });
});

describe("closed terminal vocabulary", () => {
  test("unknown terminal strings are failed, never completed", () => {
    expect(normalizeStopReason("end_turn")).toBe("end_turn");
    expect(normalizeStopReason("weird")).toBe("failed");
    expect(normalizeStopReason(undefined)).toBe("failed");
    expect(normalizeStopReason("completed", { completed: "end_turn" })).toBe("end_turn");
  });
});
