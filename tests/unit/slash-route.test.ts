/** Where a `/…` line goes (#11.15): a target switch, a refused typo with the nearest command, or a prompt. */
import { describe, expect, test } from "bun:test";
import { TargetDirectory } from "../../src/controller/targets.ts";
import { HarnessRegistry } from "../../src/harness/registry.ts";
import { allCommands } from "../../src/tui/index.ts";
import { commandTypo, editDistance, routeSlash } from "../../src/tui/slash-route.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { brand } from "../support/ids.ts";

const registry = new TargetDirectory(new HarnessRegistry([fakeDefinition({ turns: [] }, "fake"), fakeDefinition({ turns: [] }, "other")]));
const commands = allCommands(registry);

describe("editDistance", () => {
  test("insertions, deletions, substitutions and adjacent swaps cost one each", () => {
    expect(editDistance("model", "model")).toBe(0);
    expect(editDistance("modle", "model")).toBe(1);
    expect(editDistance("mode", "model")).toBe(1);
    expect(editDistance("modell", "model")).toBe(1);
    expect(editDistance("nodel", "model")).toBe(1);
    expect(editDistance("sesions", "sessions")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
  });
});

describe("commandTypo", () => {
  test("a near miss of a command suggests it, closest first", () => {
    expect(commandTypo("/modle", commands)).toEqual({ kind: "suggest", typed: "modle", suggestions: ["model"] });
    expect(commandTypo("/stauts please", commands)).toEqual({ kind: "suggest", typed: "stauts", suggestions: ["status"] });
    expect(commandTypo("/plna", commands)).toEqual({ kind: "suggest", typed: "plna", suggestions: ["plan"] });
    expect(commandTypo("/comapct", commands)).toEqual({ kind: "suggest", typed: "comapct", suggestions: ["compact"] });
  });

  test("an ambiguous prefix lists what it starts", () => {
    expect(commandTypo("/e", commands)).toEqual({ kind: "suggest", typed: "e", suggestions: ["effort", "exit"] });
  });

  test("paths, far words, short words and the agent's own commands are prompts", () => {
    for (const text of ["/tmp/x", "/usr/bin/env", "/etc", "/home", "/dev", "/review this", "/cd", "/ leading space", "plain"]) {
      expect([text, commandTypo(text, commands)]).toEqual([text, { kind: "none" }]);
    }
    expect(commandTypo("/mode", commands, ["mode"])).toEqual({ kind: "none" });
  });
});

describe("routeSlash", () => {
  test("targets switch, typos are refused with the text given back, everything else is a prompt", () => {
    expect(routeSlash(registry, commands, [], "/other hi there")).toEqual({ kind: "target", targetId: brand.target("other"), message: "hi there" });
    const typo = routeSlash(registry, commands, [], "/modle x");
    expect(typo).toMatchObject({ kind: "refused", retype: true });
    expect(typo.kind === "refused" ? typo.message : "").toStartWith("Unknown command '/modle' — did you mean /model? Nothing was sent");
    expect(routeSlash(registry, commands, [], "/tmp/x please")).toEqual({ kind: "prompt" });
    expect(routeSlash(registry, commands, [], "no slash")).toEqual({ kind: "prompt" });
  });
});
