/**
 * Plugin ContextProviders in a real session (CTX-06, CTXP-01, plugins.md §5): the board fixture's `card`
 * provider answers `@` completion as `board.card` without `provide` ever running; a submitted prompt that
 * references a card gets its body through the snapshot → transport → receipt pipeline with a
 * `plugin_resource` source (owner pi_…, key <apiVersion>/<Kind>/<name>#<uid>), within the reference budget,
 * and the stored user message keeps only what was typed. A binding that stops takes its provider along.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { AppContext } from "../../src/app/app-context.ts";
import { createCatalog, sessionPlugins } from "../../src/app/plugins.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { tableValues } from "../../src/projection/index.ts";
import { readLedgerFile } from "../../src/store/index.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { BOARD_DIR, npmEnv } from "../support/plugin-rig.ts";
import { makeTestHome, openTestSession, type TestHome } from "../support/session-host.ts";

setDefaultTimeout(30_000);

const CARD = { apiVersion: "board.baton.dev/v1", kind: "Card" };
let home: TestHome | undefined;
let opened: OpenedSession | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
  home?.cleanup();
  home = undefined;
});

async function session(capabilities?: Record<string, never>, budget?: number) {
  home = makeTestHome();
  const ctx = { home: home.home, childEnv: npmEnv(path.dirname(home.home)) } as unknown as AppContext;
  const catalog = createCatalog(ctx);
  await catalog.install(BOARD_DIR);
  await catalog.enable({ pluginId: "baton-test/board" }, async () => true);
  const fake = fakeDefinition({ turns: [[{ type: "text", text: "seen" }], [{ type: "text", text: "again" }]], ...(capabilities === undefined ? {} : { capabilities }) });
  opened = await openTestSession(home, { definitions: [fake], ...(budget === undefined ? {} : { settings: { mentionBudgetChars: budget } }) });
  const plugins = sessionPlugins(ctx, opened, new Set(["exit", "model"]));
  await plugins.manager.start();
  const binding = plugins.manager.activeBindings()[0];
  const store = binding?.resources;
  if (binding === undefined || store === undefined) throw new Error("the board fixture did not start");
  const provides = path.join(opened.ref.paths.dir, "plugins", "baton-test%2Fboard", binding.instance.pluginInstanceId, "provides.log");
  return { opened, plugins, binding, store, fake, provides: () => (existsSync(provides) ? readFileSync(provides, "utf8").trim().split("\n") : []) };
}

describe("plugin context", () => {
  test("CTXP-01: @ completion lists cards without calling provide; a submitted reference arrives as a plugin_resource snapshot with its receipt", async () => {
    const s = await session();
    const card = await s.store.create({ ...CARD, metadata: { name: "alpha" }, spec: { title: "Alpha card", body: "ALPHA-BODY " } });
    const provider = s.opened.contextProviders.byPrefix("board.card");
    expect(provider?.kind).toBe("board@card");
    expect(await provider?.search("al", { limit: 6 })).toEqual([{ id: "alpha", label: "Alpha card", detail: "card" }]);
    expect(await provider?.search("zz", { limit: 6 })).toEqual([]);
    expect(s.provides()).toEqual([]);

    await s.opened.controller.submit("fake", [{ type: "text", text: "summarize @board.card:alpha please" }]);
    expect(s.provides()).toHaveLength(1);
    const events = readLedgerFile(s.opened.ref.paths.ledger);
    const snapshot = events.find((e) => e.kind === "_baton_context_snapshot");
    const key = `board.baton.dev/v1/Card/alpha#${card.metadata.uid}`;
    expect(snapshot?.payload).toMatchObject({ source: { kind: "plugin_resource", owner: s.binding.instance.pluginInstanceId, key }, text: "ALPHA-BODY " });
    const receipt = events.find((e) => e.kind === "_baton_context_delivery_receipt");
    expect(receipt?.parentEventId).toBe(snapshot?.eventId);
    expect(receipt?.payload).toMatchObject({ transport: "sync_context", accepted: true });
    // The fake takes context without a turn: the card went there, the prompt is what was typed.
    const adapter = s.fake.adapters[0];
    expect(adapter?.record.synced.join("\n")).toContain("@board.card:alpha\nALPHA-BODY");
    const userMessage = events.find((e) => e.kind === "user_message");
    expect(JSON.stringify(userMessage?.payload)).not.toContain("ALPHA-BODY");
    expect(adapter?.record.prompts[0]?.blocks).toEqual([{ type: "text", text: "summarize @board.card:alpha please" }]);
    // Delivered context is a fact of the projection; it does not move the history watermark.
    const delivered = tableValues(s.opened.controller.state.contextSnapshots).filter((c) => c.source.kind === "plugin_resource");
    expect(delivered.map((c) => c.receipt?.transport)).toEqual(["sync_context"]);
  });

  test("without sync_context the card is prepended as <baton-context> (receipt after acceptance), cut to the reference budget", async () => {
    const s = await session({}, 600);
    await s.store.create({ ...CARD, metadata: { name: "long" }, spec: { body: "0123456789", repeat: 500 } });
    await s.opened.controller.submit("fake", [{ type: "text", text: "read @board.card:long" }]);
    expect(s.provides()).toEqual(["long 600"]);
    const events = readLedgerFile(s.opened.ref.paths.ledger);
    const snapshot = events.find((e) => e.kind === "_baton_context_snapshot");
    const text = String((snapshot?.payload as { text: string }).text);
    expect(text.length).toBeLessThanOrEqual(600);
    expect(text.endsWith("…")).toBe(true);
    const prompt = s.fake.adapters[0]?.record.prompts[0]?.blocks ?? [];
    expect(prompt).toHaveLength(2);
    expect(prompt[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^<baton-context[^>]*>\nContext explicitly referenced by the user:\n\n@board\.card:long\n0123456789/) });
    expect(prompt[1]).toEqual({ type: "text", text: "read @board.card:long" });
    const kinds = events.map((e) => e.kind);
    expect(kinds.indexOf("_baton_context_delivery_receipt")).toBeGreaterThan(kinds.indexOf("_baton_context_snapshot"));
    expect(events.find((e) => e.kind === "_baton_context_delivery_receipt")?.payload).toMatchObject({ transport: "prompt_prepend" });
  });

  test("an unknown card stays as typed; a stopped binding takes its provider along", async () => {
    const s = await session();
    await s.opened.controller.submit("fake", [{ type: "text", text: "what about @board.card:nothing" }]);
    expect(readLedgerFile(s.opened.ref.paths.ledger).some((e) => e.kind === "_baton_context_snapshot")).toBe(false);
    await s.plugins.manager.disable("baton-test/board");
    expect(s.opened.contextProviders.byPrefix("board.card")).toBeUndefined();
  });
});
