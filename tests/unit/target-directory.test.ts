/**
 * `Controller.targets()` (#13 doors): what surfaces know about targets comes from the harness definitions and
 * the live bindings, read-only. Asking builds no adapter and creates no binding; a definition declares exactly
 * what its adapters declare.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { TargetDirectory } from "../../src/controller/targets.ts";
import { SUPPORTED } from "../../src/harness/capabilities.ts";
import { acpDefinition } from "../../src/harness/acp/definition.ts";
import { claudeDefinition } from "../../src/harness/claude/definition.ts";
import { codexDefinition } from "../../src/harness/codex/definition.ts";
import type { HarnessDefinition } from "../../src/harness/definition.ts";
import type { LazyAdapter } from "../../src/harness/lazy-adapter.ts";
import { HarnessRegistry } from "../../src/harness/registry.ts";
import { silentLogger } from "../../src/shared/log.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { makeTestHome, openTestSession, type TestHome } from "../support/session-host.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { brand } from "../support/ids.ts";

let home: TestHome | undefined;
let session: OpenedSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  home?.cleanup();
  home = undefined;
});

function created(definition: HarnessDefinition) {
  return definition.create({ target: { id: brand.target(definition.id), harness: definition.id, env: {}, settings: {} }, log: silentLogger });
}

describe("harness definitions declare their adapters' capabilities", () => {
  test("codex: the definition's declaration is the real (lazily loaded) adapter's", async () => {
    const real = await (created(codexDefinition) as LazyAdapter).adapter();
    expect(codexDefinition.capabilities).toEqual(real.capabilities);
  });

  test("claude: the definition's declaration is the real (lazily loaded) adapter's", async () => {
    const real = await (created(claudeDefinition) as LazyAdapter).adapter();
    expect(claudeDefinition.capabilities).toEqual(real.capabilities);
  });

  test("acp: the definition's declaration is the adapter's before its agent was probed", () => {
    const adapter = acpDefinition.create({ target: { id: brand.target("agent"), harness: "acp", env: {}, settings: { command: ["agent-acp"] } }, log: silentLogger });
    expect(acpDefinition.capabilities).toEqual(adapter.capabilities);
  });
});

describe("the target directory", () => {
  const alpha = fakeDefinition({ turns: [], capabilities: { compact: SUPPORTED } }, "alpha");
  const beta = fakeDefinition({ turns: [], capabilities: {} }, "beta");
  const registry = new HarnessRegistry([alpha, beta], { harnesses: {}, targets: { "alpha-work": { harness: "alpha" } } });

  test("given built-in and extra targets, then each has its look, aliases only when built in, and its declared abilities", () => {
    const directory = new TargetDirectory(registry);
    expect(directory.list().map(({ id, label, author, aliases, canCompact, canConfigure, running }) => ({ id, label, author, aliases, canCompact, canConfigure, running }))).toEqual([
      { id: brand.target("alpha"), label: "Fake alpha", author: "alpha", aliases: ["ax"], canCompact: true, canConfigure: false, running: false },
      { id: brand.target("beta"), label: "Fake beta", author: "beta", aliases: ["bx"], canCompact: false, canConfigure: false, running: false },
      { id: brand.target("alpha-work"), label: "alpha-work", author: "alpha-work", aliases: [], canCompact: true, canConfigure: false, running: false },
    ]);
    expect(directory.get("gamma")).toBeUndefined();
    expect(directory.has("alpha-work")).toBe(true);
    expect(directory.match("alpha-")).toEqual({ kind: "match", id: brand.target("alpha-work") });
    expect(directory.match("al")).toEqual({ kind: "ambiguous", matches: [brand.target("alpha"), brand.target("alpha-work")] });
  });

  test("given a live binding, then its adapter's capabilities win (an agent may narrow them) and it reads as running", () => {
    const directory = new TargetDirectory(registry, (id) => (id === "alpha" ? { adapter: { capabilities: { config: SUPPORTED } }, isOpen: true } : undefined));
    expect(directory.get("alpha")).toMatchObject({ canCompact: false, canConfigure: true, running: true });
    expect(directory.get("alpha-work")).toMatchObject({ canCompact: true, canConfigure: false, running: false });
  });
});

describe("Controller.targets()", () => {
  test("when asked before and after a turn, then it builds no adapter itself, and reads running once the harness is open", async () => {
    home = makeTestHome();
    const fake = fakeDefinition({ turns: [[{ type: "text", text: "ok" }]] });
    session = await openTestSession(home, { definitions: [fake] });
    expect(session.controller.targets().get("fake")).toMatchObject({ canCompact: true, canConfigure: true, running: false });
    expect(session.controller.targets().list()).toHaveLength(1);
    expect(fake.adapters).toHaveLength(0);
    await session.controller.submit("fake", [{ type: "text", text: "hi" }]);
    expect(fake.adapters).toHaveLength(1);
    expect(session.controller.targets().get("fake")?.running).toBe(true);
  });
});
