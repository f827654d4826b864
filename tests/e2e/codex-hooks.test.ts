/**
 * Hook trust (COD-05, IX-11, CFG-03) against the REAL codex binary (pinned 0.171.0) and the mock
 * Responses server: a real `hooks.json` hook in a temp CODEX_HOME, whose UserPromptSubmit command
 * appends to a marker file, so "the hook ran" is observed, not assumed. Temp HOME/CODEX_HOME/state dir
 * per test; no network.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { CodexAdapter } from "../../src/harness/codex/adapter.ts";
import { codexDefinition } from "../../src/harness/codex/definition.ts";
import { resolveInstalledCodex } from "../../src/harness/codex/executable.ts";
import { HOOK_BYPASS_FLAG } from "../../src/harness/codex/hook-trust.ts";
import { spawnProcess, type ProcessHandle as CodexProcess } from "../../src/rpc/process-handle.ts";
import type { HarnessHandle, HarnessOpenOptions } from "../../src/harness/contract.ts";
import type { InteractionResolution } from "../../src/event/interaction-types.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { isBatonError } from "../../src/shared/errors.ts";
import { createUlidSource, type TurnId } from "../../src/shared/ids.ts";
import { silentLogger } from "../../src/shared/log.ts";
import { makeCodexHome, type CodexHome } from "../support/codex-home.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { RecordingSink, ScriptedInteractions } from "../support/recording-host.ts";
import { ledgerOf, openRealSession, waitFor } from "../support/session-host.ts";

const CODEX_BIN = resolveInstalledCodex();
setDefaultTimeout(30_000);
const ids = createUlidSource();

let mock: MockResponses;
const homes: CodexHome[] = [];
const opened: { adapter: CodexAdapter; handle: HarnessHandle }[] = [];

interface Fixture {
  home: CodexHome;
  stateDir: string;
  hookFile: string;
  marker: string;
}

/** A CODEX_HOME with one user hook (UserPromptSubmit → append to a marker file). */
function fixture(command?: string): Fixture {
  const home = makeCodexHome({ baseUrl: mock.baseUrl });
  homes.push(home);
  const marker = path.join(home.root, "hook-ran");
  const f: Fixture = { home, stateDir: path.join(home.root, "baton-state"), hookFile: path.join(home.root, "baton-state", "hook.json"), marker };
  writeHook(f, command ?? `echo ran >> ${marker}`);
  return f;
}

function writeHook(f: Fixture, command: string): void {
  const hooks = { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command }] }] } };
  fs.writeFileSync(path.join(f.home.codexHome, "hooks.json"), JSON.stringify(hooks));
}

const hookKey = (f: Fixture): string => `${path.join(f.home.codexHome, "hooks.json")}:user_prompt_submit:0:0`;

interface Opened {
  adapter: CodexAdapter;
  handle: HarnessHandle;
  sink: RecordingSink;
  interactions: ScriptedInteractions;
  spawned: CodexProcess[];
  turnId: TurnId;
  wire: string[];
}

/** A CodexAdapter on the fixture's state dir that records the app-servers it spawns and the methods it sends. */
function adapterFor(f: Fixture, settings: Record<string, unknown> = {}): { adapter: CodexAdapter; spawned: CodexProcess[]; wire: string[] } {
  const spawned: CodexProcess[] = [];
  const wire: string[] = [];
  const adapter = new CodexAdapter({
    settings,
    stateDir: f.stateDir,
    log: silentLogger,
    trace: (direction, message) => {
      const method = (message as { method?: unknown }).method;
      if (direction === "out" && typeof method === "string") wire.push(method);
    },
    spawn: (spec) => {
      const child = spawnProcess(spec);
      spawned.push(child);
      return child;
    },
  });
  return { adapter, spawned, wire };
}

const openOptions = (f: Fixture, interactions: ScriptedInteractions, turnId: TurnId): HarnessOpenOptions => ({
  targetId: "codex",
  cwd: f.home.workdir,
  env: { ...f.home.env, BATON_CODEX_BIN: CODEX_BIN as string },
  interactions,
  ids,
  clock: systemClock,
  log: silentLogger,
  turnId,
});

async function openWith(f: Fixture, interactions: ScriptedInteractions, settings: Record<string, unknown> = {}): Promise<Opened> {
  const { adapter, spawned, wire } = adapterFor(f, settings);
  const sink = new RecordingSink();
  const turnId = ids.mint("turn");
  const handle = await adapter.open(openOptions(f, interactions, turnId), sink, sink);
  opened.push({ adapter, handle });
  return { adapter, handle, sink, interactions, spawned, turnId, wire };
}

/** Open with every hook-trust card answered `answer` ("none": as if nobody could answer). */
function open(f: Fixture, answer: InteractionResolution["outcome"] | "none", settings: Record<string, unknown> = {}): Promise<Opened> {
  const interactions = new ScriptedInteractions([], () =>
    answer === "cancelled" ? { outcome: "cancelled", reason: "user" } : answer === "trusted" || answer === "skipped" ? { outcome: answer } : { outcome: "cancelled", reason: "non-interactive" },
  );
  return openWith(f, interactions, settings);
}

async function runTurn(o: Opened): Promise<void> {
  await mock.script([{ kind: "text", text: "done" }]);
  const input = { turnId: ids.mint("turn"), messageId: ids.mint("message"), blocks: [{ type: "text" as const, text: "go" }] };
  expect(await o.adapter.sendTurn(o.handle, input)).toEqual({ accepted: true, effective: "new_turn" });
  expect(await o.sink.waitForIdle(input.turnId)).toBe("end_turn");
}

const saved = (f: Fixture): unknown => JSON.parse(fs.readFileSync(f.hookFile, "utf8"));
const notices = (o: Opened) => o.sink.of("_baton_notice").map((d) => ({ level: d.payload.level, title: d.payload.title, turnId: d.turnId }));
const argvTail = (child: CodexProcess | undefined): string[] => (child === undefined ? [] : child.argv.slice(1));
const exited = async (children: readonly CodexProcess[]): Promise<boolean> => {
  const done = await Promise.all(children.map((c) => Promise.race([c.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3_000))])));
  return done.every(Boolean);
};

describe.skipIf(CODEX_BIN === undefined)("codex hook trust against the real codex app-server", () => {
  beforeAll(async () => {
    mock = await startMockResponses();
  });
  afterEach(async () => {
    for (const { adapter, handle } of opened.splice(0)) await adapter.close(handle);
    for (const home of homes.splice(0)) home.cleanup();
    await mock.reset();
  });
  afterAll(async () => {
    await mock.stop();
  });

  test("untrusted hook → card; trusted → relaunch with the bypass flag before app-server, fingerprint saved, the hook runs", async () => {
    const f = fixture();
    const o = await open(f, "trusted");
    expect(o.interactions.requests).toHaveLength(1);
    const request = o.interactions.requests[0]!;
    expect(request.context.turnId).toBe(o.turnId);
    expect(request.draft).toMatchObject({
      type: "hook_trust",
      harnessName: "Codex",
      hooks: [{ key: hookKey(f), source: "user", sourcePath: path.join(f.home.codexHome, "hooks.json"), trustStatus: "untrusted", command: `echo ran >> ${f.marker}`, eventName: "userPromptSubmit" }],
    });
    const currentHash = (request.draft as { hooks: { currentHash?: string }[] }).hooks[0]?.currentHash;
    expect(currentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(o.spawned).toHaveLength(2);
    expect(argvTail(o.spawned[0])).toEqual(["app-server"]);
    expect(argvTail(o.spawned[1])).toEqual([HOOK_BYPASS_FLAG, "app-server"]);
    expect(o.spawned[0]?.exitInfo()).toBeDefined();
    expect(saved(f)).toEqual({ trust: { targets: { codex: { [hookKey(f)]: currentHash } } } });
    expect(fs.statSync(f.hookFile).mode & 0o777).toBe(0o600);
    expect(o.wire.filter((m) => m === "hooks/list")).toHaveLength(2);
    await runTurn(o);
    expect(fs.readFileSync(f.marker, "utf8")).toBe("ran\n");
  });

  test("a second open with the same hook: no card, an info notice, still bypassed; editing the command asks again", async () => {
    const f = fixture();
    await open(f, "trusted");
    const again = await open(f, "cancelled");
    expect(again.interactions.requests).toHaveLength(0);
    expect(notices(again)).toEqual([{ level: "info", title: "Enabled 1 previously trusted Codex hook(s)", turnId: again.turnId }]);
    expect(argvTail(again.spawned.at(-1))).toEqual([HOOK_BYPASS_FLAG, "app-server"]);
    await runTurn(again);
    expect(fs.readFileSync(f.marker, "utf8")).toBe("ran\n");

    writeHook(f, `echo edited >> ${f.marker}`);
    const edited = await open(f, "trusted");
    expect(edited.interactions.requests).toHaveLength(1);
    expect(edited.interactions.requests[0]?.draft).toMatchObject({ hooks: [{ key: hookKey(f), command: `echo edited >> ${f.marker}` }] });
    const newHash = (edited.interactions.requests[0]?.draft as { hooks: { currentHash?: string }[] }).hooks[0]?.currentHash;
    expect(saved(f)).toEqual({ trust: { targets: { codex: { [hookKey(f)]: newHash } } } });
    await runTurn(edited);
    expect(fs.readFileSync(f.marker, "utf8")).toBe("ran\nedited\n");
  });

  test("skipped → no flag, one process, nothing saved, the hook does not run", async () => {
    const f = fixture();
    const o = await open(f, "skipped");
    expect(o.interactions.requests).toHaveLength(1);
    expect(o.spawned).toHaveLength(1);
    expect(argvTail(o.spawned[0])).toEqual(["app-server"]);
    expect(fs.existsSync(f.hookFile)).toBe(false);
    await runTurn(o);
    expect(fs.existsSync(f.marker)).toBe(false);
  });

  test("cancelled → the open fails and no app-server is left running", async () => {
    const f = fixture();
    const { adapter, spawned } = adapterFor(f);
    const interactions = new ScriptedInteractions([() => ({ outcome: "cancelled", reason: "user" })]);
    const sink = new RecordingSink();
    const error = await adapter
      .open(openOptions(f, interactions, ids.mint("turn")), sink, sink)
      .catch((e: unknown) => e);
    expect(isBatonError(error, "harness_start_failed")).toBe(true);
    expect(String((error as Error).message)).toContain("hook trust");
    expect(interactions.requests).toHaveLength(1);
    expect(spawned).toHaveLength(1);
    expect(await exited(spawned)).toBe(true);
    const pid = spawned[0]?.pid as number;
    expect(() => process.kill(pid, 0)).toThrow();
    expect(fs.existsSync(f.hookFile)).toBe(false);
    expect(sink.identities).toHaveLength(0);
  });

  test("a corrupt hook.json → a warning notice and a card (fail closed), even for a hook trusted before", async () => {
    const f = fixture();
    await open(f, "trusted");
    fs.writeFileSync(f.hookFile, fs.readFileSync(f.hookFile, "utf8").slice(0, -5));
    const o = await open(f, "skipped");
    expect(notices(o)).toEqual([{ level: "warning", title: "Could not load saved hook trust", turnId: o.turnId }]);
    expect(o.interactions.requests).toHaveLength(1);
    expect(argvTail(o.spawned.at(-1))).toEqual(["app-server"]);
  });

  test("a hook edited while the card is open is not run unasked: the bypassing process is replaced by a plain one", async () => {
    const f = fixture();
    const interactions = new ScriptedInteractions([
      () => {
        writeHook(f, `echo sneaky >> ${f.marker}`);
        return { outcome: "trusted" };
      },
    ]);
    const o = await openWith(f, interactions);
    const { spawned, turnId } = o;
    expect(spawned.map(argvTail)).toEqual([["app-server"], [HOOK_BYPASS_FLAG, "app-server"], ["app-server"]]);
    expect(await exited(spawned.slice(0, 2))).toBe(true);
    expect(notices(o)).toEqual([{ level: "warning", title: "Codex hooks changed while starting; continuing without them", turnId }]);
    await runTurn(o);
    expect(fs.existsSync(f.marker)).toBe(false);
  });

  test("no hooks → no card, no notice, one process; an argv already bypassing trust skips the preflight", async () => {
    const f = fixture();
    fs.rmSync(path.join(f.home.codexHome, "hooks.json"));
    const plain = await open(f, "cancelled");
    expect(plain.interactions.requests).toHaveLength(0);
    expect(notices(plain)).toEqual([]);
    expect(plain.spawned).toHaveLength(1);
    expect(plain.wire).toContain("hooks/list");

    writeHook(f, `echo ran >> ${f.marker}`);
    const bypassing = await open(f, "cancelled", { command: [CODEX_BIN as string, HOOK_BYPASS_FLAG, "app-server"] });
    expect(bypassing.interactions.requests).toHaveLength(0);
    expect(bypassing.wire).not.toContain("hooks/list");
    expect(bypassing.spawned).toHaveLength(1);
  });

  test("through the controller: the card carries the turn that triggered the cold start, and trust lands in $BATON_HOME/state/hook.json", async () => {
    const f = fixture();
    const { session, cleanup } = await openRealSession({ definitions: [codexDefinition], cwd: f.home.workdir, env: f.home.env, settings: { generateTitles: false } });
    try {
      await mock.script([{ kind: "text", text: "done" }]);
      const outcome = session.controller.submit("codex", [{ type: "text", text: "go" }]);
      await waitFor(() => session.controller.pendingInteractions().length > 0, 20_000, "the hook trust card");
      const pending = session.controller.pendingInteractions()[0]!;
      expect(pending.draft.type).toBe("hook_trust");
      const userMessage = ledgerOf(session).find((e) => e.kind === "user_message");
      expect(pending.turnId).toBe(userMessage?.turnId as TurnId);
      await session.controller.resolveInteraction(pending.interactionId, { outcome: "trusted" });
      expect(await outcome).toBe("completed");
      expect(fs.readFileSync(f.marker, "utf8")).toBe("ran\n");
      const batonHome = path.resolve(path.dirname(session.ref.paths.ledger), "../../../..");
      const stored = JSON.parse(fs.readFileSync(path.join(batonHome, "state", "hook.json"), "utf8")) as { trust: { targets: Record<string, Record<string, string>> } };
      expect(Object.keys(stored.trust.targets["codex"] ?? {})).toEqual([hookKey(f)]);
    } finally {
      await cleanup();
    }
  });
});
