/**
 * Reasoning summaries on the real codex app-server (COD-04): Baton asks for them ("auto") once per thread, not in
 * every turn/start — the override is sticky ("for this turn and subsequent turns"), and every override costs Codex
 * part of the turn. A user whose Codex config says `model_reasoning_summary = "none"` still gets summaries in every
 * model request of a Baton thread, a fresh one and a resumed one alike.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { CodexAdapter } from "../../src/harness/codex/adapter.ts";
import { resolveInstalledCodex } from "../../src/harness/codex/executable.ts";
import type { HarnessHandle, ResumeState } from "../../src/harness/contract.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { createUlidSource } from "../../src/shared/ids.ts";
import { silentLogger } from "../../src/shared/log.ts";
import { makeCodexHome, type CodexHome } from "../support/codex-home.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { RecordingSink, ScriptedInteractions } from "../support/recording-host.ts";

const CODEX_BIN = resolveInstalledCodex();
setDefaultTimeout(30_000);
const ids = createUlidSource();

let mock: MockResponses;
let home: CodexHome;

/** One adapter on `home`'s thread; `turns` prompts run to their end. Returns the thread and the turn/start params sent. */
async function run(turns: readonly string[], resumeState?: ResumeState): Promise<{ resumeState: ResumeState; turnStarts: Record<string, unknown>[] }> {
  const turnStarts: Record<string, unknown>[] = [];
  const trace = (direction: "in" | "out", message: unknown): void => {
    const record = message as { method?: string; params?: Record<string, unknown> };
    if (direction === "out" && record.method === "turn/start" && record.params !== undefined) turnStarts.push(record.params);
  };
  const sink = new RecordingSink();
  const adapter = new CodexAdapter({ settings: {}, trace });
  const handle: HarnessHandle = await adapter.open(
    {
      targetId: "codex",
      cwd: home.workdir,
      env: { ...home.env, BATON_CODEX_BIN: CODEX_BIN as string },
      interactions: new ScriptedInteractions(),
      ids,
      clock: systemClock,
      log: silentLogger,
      ...(resumeState === undefined ? {} : { resumeState }),
    },
    sink,
    sink,
  );
  try {
    for (const text of turns) {
      const turnId = ids.mint("turn");
      await mock.script([{ kind: "text", text: `answer to ${text}` }]);
      expect(await adapter.sendTurn(handle, { turnId, messageId: ids.mint("message"), blocks: [{ type: "text", text }] })).toEqual({ accepted: true, effective: "new_turn" });
      expect(await sink.waitForIdle(turnId, 15_000)).toBe("end_turn");
    }
  } finally {
    await adapter.close(handle);
  }
  return { resumeState: sink.identities[0]!.resumeState, turnStarts };
}

describe.skipIf(CODEX_BIN === undefined)("reasoning summaries: one sticky override per thread (real codex)", () => {
  beforeAll(async () => {
    mock = await startMockResponses();
    home = makeCodexHome({ baseUrl: mock.baseUrl });
    // The user's own Codex config turns summaries off: only Baton's override asks for them.
    const config = path.join(home.codexHome, "config.toml");
    fs.writeFileSync(config, `model_reasoning_summary = "none"\n${fs.readFileSync(config, "utf8")}`);
  });
  afterAll(async () => {
    await mock.stop();
    home.cleanup();
  });

  test("the first turn/start of a thread carries summary auto, later ones do not; every model request asks for summaries", async () => {
    const fresh = await run(["one", "two", "three"]);
    expect(fresh.turnStarts.map((params) => params["summary"])).toEqual(["auto", undefined, undefined]);
    const resumed = await run(["four", "five"], fresh.resumeState);
    expect(resumed.turnStarts.map((params) => params["summary"])).toEqual(["auto", undefined]);
    const requests = (await mock.requests()).filter((request) => request.body !== null);
    expect(requests).toHaveLength(5);
    expect(requests.map((request) => (request.body as { reasoning?: unknown }).reasoning)).toEqual(Array.from({ length: 5 }, () => ({ summary: "auto" })));
  });
});
