/** HAR-08: before the first turn, the Claude target lists Claude Code's own models without creating a session. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { claudeDefinition } from "../../src/harness/claude/definition.ts";
import { makeClaudeEnv } from "../support/claude-env.ts";
import { startMockAnthropic, type MockAnthropic } from "../support/mock-anthropic/client.ts";
import { openRealSession } from "../support/session-host.ts";

let mock: MockAnthropic;
beforeAll(async () => {
  mock = await startMockAnthropic();
});
afterAll(async () => {
  await mock.stop();
});

test("model options come from Claude Code before any turn; no session file, no model request", async () => {
  const env = makeClaudeEnv({ baseUrl: mock.url });
  const { session, cleanup } = await openRealSession({ definitions: [claudeDefinition], cwd: env.cwd, env: env.env, settings: { generateTitles: false } });
  try {
    const options = await session.controller.config.options("claude");
    const choices = options.find((o) => o.id === "model")?.options ?? [];
    expect(choices[0]?.value).toBe("default");
    // the built-in fallback has no descriptions: these came from the binary's own model list
    expect(choices.slice(1).every((c) => (c.description ?? "").length > 0)).toBe(true);
    expect(choices.length).toBeGreaterThan(1);
    const transcripts = (readdirSync(env.configDir, { recursive: true }) as string[]).filter((f) => f.endsWith(".jsonl"));
    expect(transcripts).toEqual([]);
    expect(await mock.modelRequests()).toEqual([]);
  } finally {
    await cleanup();
    env.cleanup();
  }
}, 60_000);
