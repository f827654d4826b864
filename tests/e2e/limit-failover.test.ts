/**
 * #20.3 limit failover with the real `codex` and the real Claude Code against the mock model servers: a usage limit
 * maps to one closed `quota_exhausted` error at the adapter boundary, the turn fails, and Baton proposes (never
 * does) continuing on the other agent; accepting sends the prompt there with the session's history. A rate limit
 * or an unknown 4xx proposes nothing; `failover: off` turns it off.
 */
import { describe, expect, test } from "bun:test";
import { useTwoAgents } from "../support/two-agents.ts";
import { type MockResponses } from "../support/mock-responses/index.ts";
import { type MockAnthropic } from "../support/mock-anthropic/client.ts";
import { allMessageText, reply } from "../support/mock-anthropic/script.ts";
import { type ClaudeTestEnv } from "../support/claude-env.ts";
import { ledgerOf, openRealSession, waitFor } from "../support/session-host.ts";
import { builtinDefinitions } from "../../src/app/harnesses.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";
import type { ControllerSettings } from "../../src/controller/ports.ts";
import { brand } from "../support/ids.ts";

let codexMock: MockResponses;
let claudeMock: MockAnthropic;
let claude: ClaudeTestEnv;
let env: Record<string, string>;

useTwoAgents((a) => ({ codexMock, claudeMock, claude, env } = a), { extraEnv: { CLAUDE_CODE_MAX_RETRIES: "0" } });

const USAGE_LIMIT = JSON.stringify({ error: { type: "usage_limit_reached", message: "You've hit your usage limit.", plan_type: "plus", resets_in_seconds: 3600 } });
/** What Anthropic answers a claude.ai plan whose usage is used up: 429 with the unified limiter's verdict in headers. */
const CLAUDE_USAGE_LIMIT = {
  ...reply.error(429, "Claude AI usage limit reached", "rate_limit_error"),
  headers: { "anthropic-ratelimit-unified-status": "rejected", "anthropic-ratelimit-unified-reset": String(Math.floor(Date.now() / 1000) + 3600), "anthropic-ratelimit-unified-representative-claim": "five_hour" },
};
/**
 * Claude Code 2.1.332 reads the unified limiter's headers only for a plan (claude.ai login) or a Claude gateway: with an
 * API key a 429 is a plain rate limit and no `rate_limit_event` says `rejected`. An unsigned JWT whose audience is
 * `claude-gateway` (as ANTHROPIC_AUTH_TOKEN, with a non-Anthropic base URL) makes the real binary take the plan path
 * offline: it then emits `rate_limit_event {status: "rejected", rateLimitType: "five_hour"}` before the failed result.
 */
const GATEWAY_TOKEN = [{ alg: "none", typ: "JWT" }, { aud: "claude-gateway", sub: "baton-test" }].map((part) => Buffer.from(JSON.stringify(part)).toString("base64url")).join(".") + ".";
const text = (value: string) => [{ type: "text" as const, text: value }];
const errorsOf = (events: readonly AnyEvent[]) => events.filter((e) => e.kind === "_baton_error_update").map((e) => e.payload as { code?: string; nativeCode?: string });
const proposalsOf = (events: readonly AnyEvent[]) =>
  events.filter((e) => e.kind === "interaction.opened" && (e.payload as { draft: { type: string } }).draft.type === "proposed_input").map((e) => e.payload as { interactionId: string; requester: unknown; draft: { text: string; targetId?: string; title?: string } });

async function open(settings: Partial<ControllerSettings> = {}): Promise<{ session: OpenedSession; cleanup(): Promise<void> }> {
  return openRealSession({ definitions: builtinDefinitions(), cwd: claude.cwd, env, settings: { generateTitles: false, ...settings } });
}

describe("limit failover", () => {
  test("Codex usage limit → one quota_exhausted, turn failed, a proposal to Claude; accepting sends Claude the prompt and the Codex history", async () => {
    const { session, cleanup } = await open();
    try {
      await codexMock.script([{ kind: "text", text: "Noted: the word is pineapple." }]);
      expect(await session.controller.submit("codex", text("remember the word pineapple"))).toBe("completed");
      await codexMock.script(Array.from({ length: 6 }, () => ({ kind: "http_error" as const, status: 429, body: USAGE_LIMIT })));
      const failed = await session.controller.submit("codex", text("now refactor the parser")).catch(() => "rejected");
      expect(failed).toBe("failed");
      await waitFor(() => proposalsOf(ledgerOf(session)).length > 0, 10_000, "the failover proposal");
      const events = ledgerOf(session);
      const quota = errorsOf(events).filter((e) => e.code === "quota_exhausted");
      expect(quota).toEqual([expect.objectContaining({ code: "quota_exhausted", nativeCode: "usageLimitExceeded" })]);
      const [proposal, ...more] = proposalsOf(events);
      expect(more).toEqual([]);
      expect(proposal?.requester).toEqual({ type: "baton" });
      expect(proposal?.draft).toMatchObject({ text: "now refactor the parser", targetId: "claude", title: "Codex hit its usage limit. Continue this task on Claude Code?" });
      expect(session.controller.state.runState).toBe("idle");

      await claudeMock.script(reply.text("Claude refactored the parser."));
      expect(await session.controller.proposals.submit(proposal!.interactionId)).toBe("completed");
      const [request] = await claudeMock.modelRequests();
      const sent = allMessageText(request!.body);
      expect(sent).toContain("remember the word pineapple");
      expect(sent).toContain("Noted: the word is pineapple.");
      expect(sent).toContain("now refactor the parser");
      const message = ledgerOf(session).filter((e) => e.kind === "user_message").at(-1);
      expect(message?.harnessTargetId).toBe(brand.target("claude"));
      expect(message?.parentEventId).toBeDefined();
    } finally {
      await cleanup();
    }
  }, 120_000);

  test("an unknown 4xx from Codex fails the turn and proposes nothing", async () => {
    const { session, cleanup } = await open();
    try {
      await codexMock.script(Array.from({ length: 6 }, () => ({ kind: "http_error" as const, status: 404, body: JSON.stringify({ error: { type: "invalid_request_error", message: "no such model" } }) })));
      expect(await session.controller.submit("codex", text("hello?")).catch(() => "rejected")).toBe("failed");
      const events = ledgerOf(session);
      expect(errorsOf(events).some((e) => e.code === "quota_exhausted" || e.code === "rate_limited")).toBe(false);
      expect(proposalsOf(events)).toEqual([]);
    } finally {
      await cleanup();
    }
  }, 120_000);

  test("failover: { codex: off } keeps the quota error and proposes nothing", async () => {
    const { session, cleanup } = await open({ failover: { codex: "off" } });
    try {
      await codexMock.script(Array.from({ length: 6 }, () => ({ kind: "http_error" as const, status: 429, body: USAGE_LIMIT })));
      expect(await session.controller.submit("codex", text("go")).catch(() => "rejected")).toBe("failed");
      const events = ledgerOf(session);
      expect(errorsOf(events).map((e) => e.code)).toContain("quota_exhausted");
      expect(proposalsOf(events)).toEqual([]);
    } finally {
      await cleanup();
    }
  }, 120_000);

  test("Claude's usage limit (429, unified status rejected) → one quota_exhausted, a proposal to Codex; accepting sends Codex the prompt and the Claude history", async () => {
    const { ANTHROPIC_API_KEY: _apiKey, ...rest } = env;
    env = { ...rest, ANTHROPIC_AUTH_TOKEN: GATEWAY_TOKEN };
    const { session, cleanup } = await open();
    try {
      await claudeMock.script(reply.text("Noted: the word is mango."));
      expect(await session.controller.submit("claude", text("remember the word mango"))).toBe("completed");
      await claudeMock.script(...Array.from({ length: 4 }, () => CLAUDE_USAGE_LIMIT));
      expect(await session.controller.submit("claude", text("now rename the module")).catch(() => "rejected")).toBe("failed");
      await waitFor(() => proposalsOf(ledgerOf(session)).length > 0, 10_000, "the failover proposal");
      const events = ledgerOf(session);
      expect(errorsOf(events).filter((e) => e.code === "quota_exhausted")).toEqual([expect.objectContaining({ code: "quota_exhausted", nativeCode: "rate_limit_error" })]);
      const [proposal, ...more] = proposalsOf(events);
      expect(more).toEqual([]);
      expect(proposal?.requester).toEqual({ type: "baton" });
      expect(proposal?.draft).toMatchObject({ text: "now rename the module", targetId: "codex", title: "Claude Code hit its usage limit. Continue this task on Codex?" });

      await codexMock.script([{ kind: "text", text: "Codex renamed the module." }]);
      expect(await session.controller.proposals.submit(proposal!.interactionId)).toBe("completed");
      const sent = JSON.stringify((await codexMock.requests()).at(-1)?.body);
      expect(sent).toContain("remember the word mango");
      expect(sent).toContain("Noted: the word is mango.");
      expect(sent).toContain("now rename the module");
      expect(ledgerOf(session).filter((e) => e.kind === "user_message").at(-1)?.harnessTargetId).toBe(brand.target("codex"));
    } finally {
      await cleanup();
    }
  }, 120_000);

  test("Claude's 429 rate_limit_error is rate_limited: the turn fails and nothing is proposed", async () => {
    const { session, cleanup } = await open();
    try {
      await claudeMock.script(...Array.from({ length: 4 }, () => reply.error(429, "Number of request tokens has exceeded your per-minute rate limit", "rate_limit_error")));
      expect(await session.controller.submit("claude", text("hello?")).catch(() => "rejected")).toBe("failed");
      const events = ledgerOf(session);
      expect(errorsOf(events).map((e) => e.code)).toContain("rate_limited");
      expect(proposalsOf(events)).toEqual([]);
    } finally {
      await cleanup();
    }
  }, 120_000);
});
