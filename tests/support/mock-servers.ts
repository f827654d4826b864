/**
 * Both mock model servers for one test file — the Anthropic Messages mock (Claude Code, claude-agent-acp) and the
 * OpenAI Responses mock (Codex, codex-acp) — started in its beforeAll and stopped in its afterAll. Read them
 * inside tests (or hooks): they exist once the file's beforeAll has run.
 */
import { afterAll, beforeAll } from "bun:test";
import { startMockAnthropic, type MockAnthropic } from "./mock-anthropic/client.ts";
import { startMockResponses, type MockResponses } from "./mock-responses/index.ts";

export interface MockModelServers {
  readonly anthropic: MockAnthropic;
  readonly responses: MockResponses;
}

export function mockModelServers(): MockModelServers {
  let servers: MockModelServers | undefined;
  beforeAll(async () => {
    const [anthropic, responses] = await Promise.all([startMockAnthropic(), startMockResponses()]);
    servers = { anthropic, responses };
  });
  afterAll(async () => {
    if (servers !== undefined) await Promise.all([servers.anthropic.stop(), servers.responses.stop()]);
  });
  const up = (): MockModelServers => {
    if (servers === undefined) throw new Error("mockModelServers: the servers are not up (call it at the top of the test file)");
    return servers;
  };
  return {
    get anthropic() {
      return up().anthropic;
    },
    get responses() {
      return up().responses;
    },
  };
}
