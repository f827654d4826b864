/**
 * #20.4 approval memory owned by Baton, through the Controller with the real Codex, the real Claude Code and a real
 * ACP agent (claude-agent-acp) against the mock model servers, the same path for each: the first `npm test` asks;
 * picking the card's "always" writes a Baton rule (the harness is told "once", so it remembers nothing); the second
 * `npm test` is answered by the rule — it runs, an `approval_review_update` "baton rule <id>" is the receipt, and no
 * card opens; `npm test && git push` still asks; after the rule is revoked `npm test` asks again.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { claudeDefinition } from "../../src/harness/claude/definition.ts";
import { codexDefinition } from "../../src/harness/codex/definition.ts";
import { acpDefinition } from "../../src/harness/acp/definition.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import type { ApprovalRule } from "../../src/event/approval-rule.ts";
import type { PermissionOption } from "../../src/event/interaction-types.ts";
import type { HarnessDefinition } from "../../src/harness/definition.ts";
import type { TargetConfigInput } from "../../src/harness/registry.ts";
import { approvalsFile } from "../../src/store/index.ts";
import { targetIdOf } from "../../src/shared/ids.ts";
import { makeClaudeAcpWorld } from "../support/acp-rig.ts";
import { makeClaudeEnv } from "../support/claude-env.ts";
import { makeCodexHome } from "../support/codex-home.ts";
import { reply } from "../support/mock-anthropic/script.ts";
import { mockModelServers } from "../support/mock-servers.ts";
import { ledgerOf, openRealSession, waitFor } from "../support/session-host.ts";

const mocks = mockModelServers();

interface World {
  readonly targetId: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly definitions: readonly HarnessDefinition[];
  readonly config?: TargetConfigInput;
  /** The next turn: the model runs `command` in a shell (a request that asks), then says something. */
  scriptAsk(command: string): Promise<void>;
  cleanup(): void;
}

function codexWorld(): World {
  // on-request + read-only: the mock's escalated exec_command asks (the same shape a real escalation has).
  const home = makeCodexHome({ baseUrl: mocks.responses.baseUrl, approvalPolicy: "on-request", sandboxMode: "read-only" });
  return {
    targetId: "codex",
    cwd: home.workdir,
    env: home.env,
    definitions: [codexDefinition],
    scriptAsk: (cmd) => mocks.responses.script([{ kind: "exec", cmd, escalate: true }, { kind: "text", text: "ran it" }]),
    cleanup: () => home.cleanup(),
  };
}

function claudeWorld(): World {
  const env = makeClaudeEnv({ baseUrl: mocks.anthropic.url });
  return {
    targetId: "claude",
    cwd: env.cwd,
    env: env.env,
    definitions: [claudeDefinition],
    scriptAsk: (command) => mocks.anthropic.script(reply.tool("Bash", { command, description: "run it" }), reply.text("ran it")),
    cleanup: () => env.cleanup(),
  };
}

function acpWorld(): World {
  const world = makeClaudeAcpWorld(mocks.anthropic);
  return {
    targetId: world.targetId,
    cwd: world.cwd,
    env: world.env,
    definitions: [acpDefinition],
    config: { harnesses: {}, targets: { [world.targetId]: { harness: "acp", ...world.settings } } },
    scriptAsk: (command) => mocks.anthropic.script(reply.tool("Bash", { command, description: "run it" }), reply.text("ran it")),
    cleanup: () => world.cleanup(),
  };
}

const text = (value: string) => [{ type: "text" as const, text: value }];
const count = (s: OpenedSession, kind: string) => ledgerOf(s).filter((e) => e.kind === kind).length;
const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").length : 0);

/** Submit, wait for the card, answer it with the option `pick` finds; resolves with the turn's outcome. */
async function answered(s: OpenedSession, world: World, prompt: string, pick: (options: readonly PermissionOption[]) => PermissionOption | undefined): Promise<{ outcome: string; options: readonly PermissionOption[] }> {
  const opened = count(s, "interaction.opened");
  const done = s.controller.submit(world.targetId, text(prompt));
  await waitFor(() => s.controller.pendingInteractions().length === 1, 60_000, "the approval card");
  expect(count(s, "interaction.opened")).toBe(opened + 1);
  const card = s.controller.pendingInteractions()[0]!;
  if (card.draft.type !== "permission") throw new Error(`expected a permission card, got ${card.draft.type}`);
  const option = pick(card.draft.options);
  if (option === undefined) throw new Error(`no such option among ${card.draft.options.map((o) => o.name).join(" | ")}`);
  await s.controller.resolveInteraction(card.interactionId, { outcome: "selected", optionId: option.optionId });
  return { outcome: await done, options: card.draft.options };
}

async function scenario(world: World): Promise<void> {
  // `npm test` appends a line to tested.txt, so each run that happened is counted (no network, no real tests).
  fs.writeFileSync(path.join(world.cwd, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", scripts: { test: "echo tested >> tested.txt" } }));
  const tested = path.join(world.cwd, "tested.txt");
  const { session, home, cleanup } = await openRealSession({
    definitions: world.definitions,
    cwd: world.cwd,
    env: world.env,
    settings: { generateTitles: false, cancelGraceMs: 5_000 },
    ...(world.config === undefined ? {} : { config: world.config }),
  });
  const file = approvalsFile(home);
  try {
    // 1. The first npm test asks; the card's "always" is Baton's rule now.
    await world.scriptAsk("npm test");
    const first = await answered(session, world, "run the tests", (options) => options.find((o) => o.polarity === "allow" && o.lifetime === "persistent"));
    expect(first.outcome).toBe("completed");
    expect(first.options.filter((o) => o.lifetime === "persistent").map((o) => o.name)).toContain("Always allow in this project (Baton rule): `npm test`");
    expect(lines(tested)).toBe(1);
    const rules = (JSON.parse(fs.readFileSync(file, "utf8")) as { rules: ApprovalRule[] }).rules;
    expect(rules.map((r) => [r.project, r.toolKind, r.commandPrefix, r.decision])).toEqual([[world.cwd, "command", ["npm", "test"], "allow"]]);
    const ruleId = rules[0]!.id;

    // 2. The second npm test: answered by the rule, with a receipt, and no card.
    await world.scriptAsk("npm test");
    const opened = count(session, "interaction.opened");
    expect(await session.controller.submit(world.targetId, text("run them again"))).toBe("completed");
    expect(count(session, "interaction.opened")).toBe(opened);
    expect(lines(tested)).toBe(2);
    const receipts = ledgerOf(session).filter((e) => e.kind === "approval_review_update");
    expect(receipts.map((e) => e.payload)).toMatchObject([{ decision: "approved", rationale: `baton rule ${ruleId}`, actionType: "command" }]);
    expect(receipts[0]!.source).toEqual({ type: "baton" });
    expect(receipts[0]!.harnessTargetId).toBe(targetIdOf(world.targetId));

    // 3. A compound command with a segment no rule allows still asks (declined here: nothing is pushed).
    await world.scriptAsk("npm test && git push");
    await answered(session, world, "test and push", (options) => options.find((o) => o.polarity === "reject"));
    expect(lines(tested)).toBe(2);

    // 4. Revoked, the rule asks again.
    expect((await session.controller.approvals.revoke(ruleId)).id).toBe(ruleId);
    await world.scriptAsk("npm test");
    const last = await answered(session, world, "once more", (options) => options.find((o) => o.polarity === "allow" && o.lifetime === "once"));
    expect(last.outcome).toBe("completed");
    expect(lines(tested)).toBe(3);
    expect(count(session, "approval_review_update")).toBe(1);
  } finally {
    await cleanup();
    world.cleanup();
  }
}

describe("approval memory across agents (real binaries, mock model servers)", () => {
  test("Codex: always → a Baton rule answers the next npm test with a receipt and no card; && git push asks; revoked asks", async () => {
    await mocks.responses.reset();
    await scenario(codexWorld());
  }, 180_000);

  test("Claude Code: the same", async () => {
    await mocks.anthropic.reset();
    await scenario(claudeWorld());
  }, 180_000);

  test("ACP (claude-agent-acp): the same", async () => {
    await mocks.anthropic.reset();
    await scenario(acpWorld());
  }, 180_000);
});
