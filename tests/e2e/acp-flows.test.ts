/**
 * The ACP harness inside Baton (controller, store, ledger) with real agents offline: an interrupt resolves a pending
 * card once; a SIGKILLed agent fails its turn once, the queue moves on and the next prompt respawns and
 * resumes; `session/load` adds nothing to the ledger; a session the agent lost only shows at the first prompt.
 */
import { expect, test } from "bun:test";
import { AcpAdapter } from "../../src/harness/acp/adapter.ts";
import { acpDefinition } from "../../src/harness/acp/definition.ts";
import type { spawnAgent } from "../../src/harness/acp/connection.ts";
import type { HarnessDefinition } from "../../src/harness/definition.ts";
import { readLedgerFile } from "../../src/store/index.ts";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { makeClaudeAcpWorld, makeCodexAcpWorld, spawnEditingInitialize, type AcpWorld } from "../support/acp-rig.ts";
import { reply } from "../support/mock-anthropic/script.ts";
import { mockModelServers } from "../support/mock-servers.ts";
import { bindingOf } from "../support/controller-internals.ts";
import { kindsOf, openRealSession, waitFor } from "../support/session-host.ts";

const mocks = mockModelServers();

/** The real ACP definition, optionally with its agent started through another process port. */
function definition(spawn?: typeof spawnAgent): HarnessDefinition {
  if (spawn === undefined) return acpDefinition;
  return {
    ...acpDefinition,
    create: (context) =>
      new AcpAdapter({ targetId: context.target.id, settings: context.target.settings, log: context.log, spawn, ...(context.stateDir !== undefined ? { stateDir: context.stateDir } : {}) }),
  };
}

async function open(world: AcpWorld, options: { spawn?: typeof spawnAgent; home?: string; id?: string } = {}) {
  return openRealSession({
    definitions: [definition(options.spawn)],
    config: { harnesses: {}, targets: { [world.targetId]: { harness: "acp", ...world.settings } } },
    cwd: world.cwd,
    env: world.env,
    settings: { generateTitles: false, cancelGraceMs: 5_000 },
    ...(options.home !== undefined ? { home: options.home } : {}),
    ...(options.id !== undefined ? { choice: { kind: "id", id: options.id } } : {}),
  });
}

const text = (value: string) => [{ type: "text" as const, text: value }];

test("interrupt while a card is open: the agent is answered, the card resolves once, the turn ends cancelled", async () => {
  await mocks.anthropic.reset();
  const world = makeClaudeAcpWorld(mocks.anthropic);
  const { session, cleanup } = await open(world);
  try {
    const controller = session.controller;
    await world.scriptPermission("never.txt");
    const done = controller.submit(world.targetId, text("write it"));
    await waitFor(() => controller.pendingInteractions().length === 1, 30_000, "the permission card");
    expect(controller.interrupt()).toBe(true);
    expect(await done).toBe("interrupted");
    const ledger = readLedgerFile(session.ref.paths.ledger);
    // exactly one resolution: the user's interrupt cancels the card (the host names it so for every harness)
    expect(kindsOf(ledger, (e) => e.kind === "interaction.resolved")).toEqual(["resolved:cancelled/user"]);
    expect(kindsOf(ledger, (e) => e.kind === "state_update" && (e.payload as { state: string }).state === "idle")).toEqual(["state:idle(cancelled)"]);
    expect(existsSync(path.join(world.cwd, "never.txt"))).toBe(false);
  } finally {
    await cleanup();
    world.cleanup();
  }
}, 60_000);

test("SIGKILL of the agent mid-turn: one error and one failed terminal, the queued prompt runs on a respawned agent that resumed the session", async () => {
  await mocks.anthropic.reset();
  const world = makeClaudeAcpWorld(mocks.anthropic);
  const { session, cleanup } = await open(world);
  try {
    const controller = session.controller;
    await world.scriptText("first answer");
    expect(await controller.submit(world.targetId, text("remember the word lime"))).toBe("completed");
    const before = session.meta().harnessSessions[world.targetId]?.harnessSessionId;
    await world.scriptSlow();
    const slow = controller.submit(world.targetId, text("go slowly"));
    const adapter = bindingOf(controller, world.targetId).adapter as AcpAdapter;
    await waitFor(() => readLedgerFile(session.ref.paths.ledger).filter((e) => e.kind === "agent_message_chunk").length > 2, 30_000, "the slow stream");
    const queued = controller.submit(world.targetId, text("which word?"));
    const pid = adapter.processId(bindingOf(controller, world.targetId).handle!);
    process.kill(pid!, "SIGKILL");
    expect(await slow).toBe("failed");
    await mocks.anthropic.reset();
    await mocks.anthropic.script(reply.text("lime"));
    expect(await queued).toBe("completed");
    const ledger = readLedgerFile(session.ref.paths.ledger);
    const slowTurn = ledger.find((e) => e.kind === "user_message" && JSON.stringify(e.payload).includes("go slowly"))?.turnId;
    expect(ledger.filter((e) => e.kind === "_baton_error_update" && e.turnId === slowTurn).length).toBe(1);
    expect(kindsOf(ledger, (e) => e.turnId === slowTurn && e.kind === "state_update" && (e.payload as { state: string }).state === "idle")).toEqual(["state:idle(failed)"]);
    expect(session.meta().harnessSessions[world.targetId]?.harnessSessionId).toBe(before);
    expect((await world.modelTexts()).at(-1)).toContain("remember the word lime");
  } finally {
    await cleanup();
    world.cleanup();
  }
}, 90_000);

test("reopening with session/load (resume hidden): the replayed history adds nothing to the ledger", async () => {
  await mocks.responses.reset();
  const world = makeCodexAcpWorld(mocks.responses);
  const first = await open(world);
  let home = first.home;
  const id = first.session.ref.batonSessionId;
  try {
    await world.scriptText("noted: pear");
    expect(await first.session.controller.submit(world.targetId, text("remember the word pear"))).toBe("completed");
  } finally {
    await first.session.close();
  }
  const hidden = spawnEditingInitialize((caps) => {
    delete (caps["sessionCapabilities"] as Record<string, unknown>)["resume"];
  });
  const second = await open(world, { spawn: hidden, home, id });
  try {
    const count = () => readLedgerFile(second.session.ref.paths.ledger).length;
    const binding = bindingOf(second.session.controller, world.targetId);
    const beforeOpen = count();
    await binding.ensureOpen();
    const opened = readLedgerFile(second.session.ref.paths.ledger).slice(beforeOpen);
    // the open records the session's config; not one replayed message, tool call or usage
    expect(opened.map((e) => e.kind).filter((k) => k !== "config_option_update" && k !== "available_commands_update" && k !== "context_usage_update")).toEqual([]);
    expect(readLedgerFile(second.session.ref.paths.ledger).filter((e) => e.kind === "agent_message").length).toBe(1);
    expect(second.session.meta().harnessSessions[world.targetId]?.resumeState?.data).toMatchObject({ via: "load" });
    await mocks.responses.reset();
    await world.scriptText("pear it was");
    expect(await second.session.controller.submit(world.targetId, text("which word?"))).toBe("completed");
    expect((await world.modelTexts()).at(-1)).toContain("remember the word pear");
    expect(readLedgerFile(second.session.ref.paths.ledger).filter((e) => e.kind === "_baton_context_delivery_receipt").length).toBe(0);
  } finally {
    await second.cleanup();
    home = "";
    rmSync(first.home, { recursive: true, force: true });
    world.cleanup();
  }
}, 120_000);

test("a lost session that resume does not reveal (no session/list): the first prompt fails and says so; the next one gets a new session with the history", async () => {
  await mocks.responses.reset();
  const world = makeCodexAcpWorld(mocks.responses);
  const first = await open(world);
  const id = first.session.ref.batonSessionId;
  try {
    await world.scriptText("noted: quince");
    expect(await first.session.controller.submit(world.targetId, text("remember the word quince"))).toBe("completed");
  } finally {
    await first.session.close();
  }
  rmSync(world.agentStore, { recursive: true, force: true });
  const noList = spawnEditingInitialize((caps) => {
    delete (caps["sessionCapabilities"] as Record<string, unknown>)["list"];
  });
  const second = await open(world, { spawn: noList, home: first.home, id });
  try {
    const controller = second.session.controller;
    expect(await controller.submit(world.targetId, text("which word?"))).toBe("failed");
    const errors = readLedgerFile(second.session.ref.paths.ledger).filter((e) => e.kind === "_baton_error_update");
    expect(JSON.stringify(errors.at(-1)?.payload)).toContain("its session is gone");
    await mocks.responses.reset();
    await world.scriptText("quince, from the history");
    expect(await controller.submit(world.targetId, text("which word, then?"))).toBe("completed");
    const last = (await world.modelTexts()).at(-1) ?? "";
    expect(last).toContain("remember the word quince");
    const receipts = readLedgerFile(second.session.ref.paths.ledger).filter((e) => e.kind === "_baton_context_delivery_receipt");
    expect(receipts.map((r) => (r.payload as { transport: string }).transport)).toEqual(["prompt_prepend"]);
  } finally {
    await second.cleanup();
    rmSync(first.home, { recursive: true, force: true });
    world.cleanup();
  }
}, 120_000);
