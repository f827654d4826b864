/** Session titles (TTL-02) with the real Codex: generated after the first turn on an ephemeral thread. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { openRealSession } from "../support/session-host.ts";
import { codexDefinition } from "../../src/harness/codex/definition.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { makeCodexHome } from "../support/codex-home.ts";

let mock: MockResponses;
beforeAll(async () => {
  mock = await startMockResponses();
});
afterAll(async () => {
  await mock.stop();
});

function rollouts(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(d, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith(".jsonl")) out.push(full);
    }
  };
  walk(dir);
  return out;
}

async function withSession<T>(run: (session: OpenedSession, codexHome: string) => Promise<T>): Promise<T> {
  const home = makeCodexHome({ baseUrl: mock.baseUrl });
  const { session, cleanup } = await openRealSession({ definitions: [codexDefinition], cwd: home.workdir, env: home.env });
  try {
    return await run(session, home.env["CODEX_HOME"]!);
  } finally {
    await cleanup();
    home.cleanup();
  }
}

test("after the first completed turn Codex titles the session without creating a native session", async () => {
  await mock.reset();
  await mock.script([{ kind: "text", text: "The parser is fixed." }, { kind: "text", text: '{"title":"Fix the flaky parser test"}' }]);
  await withSession(async (session, codexHome) => {
    await session.controller.submit("codex", [{ type: "text", text: "please fix the flaky parser test" }]);
    const before = rollouts(path.join(codexHome, "sessions"));
    expect(await session.controller.titleGeneration).toBe("Fix the flaky parser test");
    expect(session.meta().title).toBe("Fix the flaky parser test");
    expect(session.meta().preview).toBe("please fix the flaky parser test");
    // the title came from an ephemeral thread: no new rollout, the live thread untouched
    expect(rollouts(path.join(codexHome, "sessions"))).toEqual(before);
    const titleRequest = (await mock.requests()).at(-1)!;
    expect(JSON.stringify(titleRequest.body)).toContain("please fix the flaky parser test");
  });
}, 60_000);

test("a failing title generation keeps the preview and does not fail the turn", async () => {
  await mock.reset();
  await mock.script([{ kind: "text", text: "done" }, { kind: "http_error", status: 500, body: "no titles today" }]);
  await withSession(async (session) => {
    expect(await session.controller.submit("codex", [{ type: "text", text: "rename the module" }])).toBe("completed");
    expect(await session.controller.titleGeneration).toBeUndefined();
    expect(session.meta().title).toBeUndefined();
    expect(session.meta().preview).toBe("rename the module");
  });
}, 60_000);
