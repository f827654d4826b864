/**
 * Incremental checkpoints against a full reduce (#18), as a property: random sessions (several targets; messages,
 * streamed chunks, tool calls with large and `$`-keyed inputs, plans, interactions, notices, errors, file
 * checkpoints, turn summaries; enough items to fill timeline pages and spread over the table trie) are appended
 * to a real ledger; at random turn ends a checkpoint is written, and at some of them the session is "reopened"
 * (a new Ledger, the state loaded lazily from checkpoint + tail, and the next turns folded onto that state).
 * At the end an open from checkpoint + tail must give, selector by selector — transcript (whole and windowed),
 * footer, activity, waiting, rewind points, last driven target, pending interactions and proposals, plugin
 * commands, every summary, every item by id, the export markdown, plugin Turn resources, the session context
 * a new agent gets — then as a whole plain state, exactly what a full reduce of the ledger gives.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { EventDraft } from "../../src/event/envelope.ts";
import {
  allSummaries,
  initialState,
  lastSummary,
  listAt,
  plainState,
  recentSummaries,
  selectActivity,
  selectFooter,
  selectLastDrivenTarget,
  selectPendingInteractions,
  selectPendingProposals,
  selectPluginCommands,
  selectRewindPoints,
  selectTargetContext,
  selectTargetPlan,
  selectTranscript,
  selectTranscriptWindow,
  selectWaiting,
  storedProjectionFold,
  summaryOf,
  tableGet,
  type ProjectionState,
} from "../../src/projection/index.ts";
import { transcriptMarkdown } from "../../src/app/transcript-markdown.ts";
import { turnResources } from "../../src/plugin/resources/turns.ts";
import { summaryRecords } from "../../src/controller/context-delivery.ts";
import { ledgerFiles } from "../support/ledger-files.ts";
import { type BatonSessionId, type TargetId, type TurnId } from "../../src/shared/ids.ts";
import { loadState, writeCheckpoint, type StateFold } from "../../src/store/checkpoint.ts";

const SESSION = "bs_00000000000000000000000007" as BatonSessionId;
const FOLD: StateFold<ProjectionState> = { ...storedProjectionFold, initial: () => initialState(SESSION) };
const TARGETS = ["codex", "codex-work", "claude"] as const;
const { file: ledgerFile, open } = ledgerFiles(SESSION, "baton-ckpt-diff-");

interface TurnSpec {
  readonly target: number;
  readonly messages: readonly { readonly thought: boolean; readonly chunks: readonly number[] }[];
  readonly tools: readonly { readonly input: number; readonly output: number; readonly failed: boolean }[];
  readonly interaction: "none" | "resolved" | "pending" | "proposal";
  readonly extras: readonly ("plan" | "notice" | "error" | "usage" | "file_checkpoint" | "steer" | "plugin")[];
  readonly cancelled: boolean;
  /** Small tool calls on top (fills timeline pages and spreads ids over the table trie). */
  readonly bulk: number;
  /** After this turn: nothing, a checkpoint, or a checkpoint and a reopen. */
  readonly after: "none" | "checkpoint" | "reopen";
}

const turnSpec: fc.Arbitrary<TurnSpec> = fc.record({
  target: fc.nat(TARGETS.length - 1),
  messages: fc.array(fc.record({ thought: fc.boolean(), chunks: fc.array(fc.constantFrom(1, 20, 120, 300, 900), { minLength: 1, maxLength: 6 }) }), { maxLength: 4 }),
  tools: fc.array(fc.record({ input: fc.nat(5), output: fc.constantFrom(0, 40, 400, 3000), failed: fc.boolean() }), { maxLength: 6 }),
  interaction: fc.constantFrom("none", "none", "resolved", "pending", "proposal"),
  extras: fc.uniqueArray(fc.constantFrom("plan", "notice", "error", "usage", "file_checkpoint", "steer", "plugin"), { maxLength: 4 }),
  cancelled: fc.boolean(),
  bulk: fc.constantFrom(0, 0, 0, 60, 150),
  after: fc.constantFrom("none", "none", "checkpoint", "checkpoint", "reopen"),
});

/** Raw inputs a tool call may carry, including objects shaped like a checkpoint token. */
const INPUTS: readonly unknown[] = [
  { command: ["bash", "-lc", "ls"] },
  { $: [0, 10] },
  { $: [0, 10, 99], note: "x".repeat(300) },
  { nested: { $: [1, 2] }, list: [{ $: "y" }] },
  "a plain string input",
  { big: "z".repeat(1200) },
];

const text = (chars: number, salt: string): string => `${salt} `.repeat(Math.ceil(chars / (salt.length + 1))).slice(0, chars);

function* draftsOf(spec: TurnSpec, turn: number): Generator<EventDraft> {
  const target = TARGETS[spec.target]!;
  const harness = target.split("-")[0]!;
  const h = { source: { type: "harness", harnessTargetId: target }, harness, harnessTargetId: target } as const;
  const turnId = `t_${String(turn).padStart(5, "0")}` as TurnId;
  yield { kind: "user_message", source: { type: "user" }, turnId, harnessTargetId: target, payload: { messageId: `m_u_${turn}`, content: [{ type: "text", text: text(40 + (turn % 7) * 50, `ask${turn}`) }], delivery: "prompt" } };
  yield { kind: "state_update", ...h, turnId, payload: { state: "running" } };
  let tool = 0;
  for (const [m, message] of spec.messages.entries()) {
    const messageId = `${message.thought ? "rs" : "msg"}_${turn}_${m}`;
    for (const chars of message.chunks) {
      yield { kind: message.thought ? "agent_thought_chunk" : "agent_message_chunk", ...h, turnId, payload: { messageId, content: { type: "text", text: text(chars, `w${turn}.${m}`) } } };
    }
    const call = spec.tools[tool];
    if (call !== undefined) {
      const toolCallId = `call_${turn}_${tool}`;
      yield { kind: "tool_call_update", ...h, turnId, payload: { toolCallId, title: `Run ${tool}`, kind: "execute", status: "in_progress", rawInput: INPUTS[call.input] } };
      yield { kind: "tool_call_update", ...h, turnId, payload: { toolCallId, status: call.failed ? "failed" : "completed", content: call.output === 0 ? [] : [{ type: "text", text: text(call.output, `out${turn}`) }], rawOutput: { exitCode: call.failed ? 1 : 0 } } };
      tool++;
    }
  }
  for (; tool < spec.tools.length; tool++) {
    yield { kind: "tool_call_update", ...h, turnId, payload: { toolCallId: `call_${turn}_${tool}`, title: `Late ${tool}`, status: "pending", rawInput: INPUTS[spec.tools[tool]!.input] } };
  }
  for (let i = 0; i < spec.bulk; i++) {
    yield { kind: "tool_call_update", ...h, turnId, payload: { toolCallId: `bulk_${turn}_${i}`, title: `Read ${i}`, kind: "read", status: "completed" } };
  }
  for (const extra of spec.extras) {
    switch (extra) {
      case "plan":
        yield { kind: "plan_update", ...h, turnId, payload: { planId: `pl_${target}`, entries: [{ content: `step of ${turn}`, priority: "high", status: "in_progress" }] } };
        break;
      case "notice":
        yield { kind: "_baton_notice", source: { type: "baton" }, turnId, harnessTargetId: target, payload: { level: "warning", title: `notice ${turn}`, detail: text(500, "d") } };
        break;
      case "error":
        yield { kind: "_baton_error_update", ...h, turnId, payload: { message: `boom ${turn}`, willRetry: false } };
        break;
      case "usage":
        yield { kind: "usage_update", ...h, turnId, payload: { inputTokens: 100 + turn, outputTokens: 10 } };
        yield { kind: "context_usage_update", ...h, turnId, payload: { contextUsed: turn, contextSize: 1000 } };
        break;
      case "file_checkpoint":
        yield { kind: "_baton_checkpoint", source: { type: "baton" }, turnId, payload: { turnId, commit: "a".repeat(40), dirtyPaths: ["a.txt"], boundary: "before" } };
        yield { kind: "_baton_checkpoint", source: { type: "baton" }, turnId, payload: { turnId, commit: "b".repeat(40), dirtyPaths: ["a.txt", "src/b.ts"], boundary: "after" } };
        break;
      case "steer":
        yield { kind: "user_message", source: { type: "user" }, turnId, harnessTargetId: target, payload: { messageId: `m_s_${turn}`, content: [{ type: "text", text: `also ${turn}` }], delivery: "steer" } };
        break;
      case "plugin":
        yield {
          kind: "_baton_plugin_binding_update",
          source: { type: "baton" },
          payload: { pluginInstanceId: "pi_0123456789abcdef", pluginId: "acme/hello", packageVersion: `0.${turn % 3}.0`, treeDigest: "sha512-x", state: "active", registrations: [{ type: "command", commandId: "hello", name: "hello", description: `v${turn}` }] },
        };
        break;
    }
  }
  const interactionId = `ix_${turn}`;
  if (spec.interaction === "proposal") {
    yield { kind: "interaction.opened", source: { type: "baton" }, payload: { interactionId, requester: { type: "plugin", pluginInstanceId: "pi_0123456789abcdef" }, draft: { type: "proposed_input", title: `try ${turn}`, text: "run it", dedupeKey: `k${turn % 4}` } } } as EventDraft;
  } else if (spec.interaction !== "none") {
    yield { kind: "interaction.opened", ...h, turnId, payload: { interactionId, requester: { type: "harness", harnessTargetId: target }, draft: { type: "permission", title: `allow ${turn}?`, options: [{ optionId: "allow", name: "Allow", polarity: "allow", lifetime: "once" }] } } } as EventDraft;
    if (spec.interaction === "resolved") yield { kind: "interaction.resolved", source: { type: "user" }, turnId, payload: { interactionId, resolution: { outcome: "selected", optionId: "allow" } } } as EventDraft;
  }
  const stopReason = spec.cancelled ? "cancelled" : "end_turn";
  if (spec.interaction !== "pending") {
    yield { kind: "state_update", ...h, turnId, payload: { state: "idle", stopReason } };
    yield {
      kind: "_baton_turn_summary",
      source: { type: "baton" },
      turnId,
      harnessTargetId: target,
      payload: { turnId, role: turn % 5 === 4 ? "observed" : "driven", stopReason, userMessageId: `m_u_${turn}`, agentText: text(60, `sum${turn}`), toolCalls: spec.tools.map((_, i) => ({ toolCallId: `call_${turn}_${i}`, title: `Run ${i}`, kind: "execute", status: "completed" })) },
    } as EventDraft;
  }
}

/** What every reader of the projection sees (TUI, exec, export, plugins, context delivery), as plain data. */
function views(state: ProjectionState): Record<string, unknown> {
  const out: Record<string, unknown> = {
    transcript: selectTranscript(state),
    window: selectTranscriptWindow(state, Math.max(0, state.timeline.length - 40), state.timeline.length),
    footer: selectFooter(state),
    activity: selectActivity(state),
    waiting: selectWaiting(state),
    rewind: selectRewindPoints(state),
    lastDriven: selectLastDrivenTarget(state),
    pending: selectPendingInteractions(state),
    proposals: selectPendingProposals(state),
    commands: selectPluginCommands(state),
    lastSummary: lastSummary(state),
    recent: recentSummaries(state, 3),
    summaries: allSummaries(state),
    summaryOf: allSummaries(state).map((s) => summaryOf(state, s.turnId)),
    timelineItems: Array.from({ length: state.timeline.length }, (_, i) => listAt(state.timeline, i)),
    markdown: transcriptMarkdown(state, { title: "t", batonSessionId: SESSION, cwd: "/w", createdAt: "now" }),
    turns: turnResources(state),
    records: summaryRecords(state, (id) => id),
  };
  for (const target of TARGETS) {
    out[`plan:${target}`] = selectTargetPlan(state, target as TargetId);
    out[`context:${target}`] = selectTargetContext(state, target as TargetId);
  }
  return JSON.parse(JSON.stringify(out));
}

/** Every item by id, looked up one at a time (each lookup resolves only its own path of stubs). */
function byId(state: ProjectionState, ids: readonly { type: string; id: string }[]): unknown[] {
  return ids.map(({ type, id }) => {
    const table = type === "message" ? state.messages : type === "tool_call" ? state.toolCalls : type === "notice" ? state.notices : type === "error" ? state.errors : type === "plan" ? state.plans : state.interactions;
    return JSON.parse(JSON.stringify(tableGet(table as never, id) ?? null));
  });
}

const plain = (state: ProjectionState): unknown => JSON.parse(JSON.stringify(plainState(state)));

describe("incremental checkpoint ≡ full reduce (property)", () => {
  test("random sessions, checkpoints at random turn ends, reopen from checkpoint + tail: every selector and the whole state equal a full reduce", async () => {
    let reopens = 0;
    let lazyOpens = 0;
    let paged = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(turnSpec, { minLength: 1, maxLength: 40 }), fc.nat(3), async (turns, tailTurns) => {
        const file = ledgerFile();
        let ledger = open(file);
        let state = FOLD.initial();
        let turn = 0;
        const fold = (spec: TurnSpec): void => {
          for (const draft of draftsOf(spec, turn)) state = FOLD.fold(state, ledger.append(draft));
          turn++;
        };
        for (const spec of turns) {
          fold(spec);
          if (spec.after === "none") continue;
          expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
          if (spec.after !== "reopen") continue;
          await ledger.close();
          ledger = open(file);
          const loaded = loadState(ledger, FOLD, { verify: turn % 2 === 0 ? "sync" : "deferred" });
          expect(loaded.fromCheckpoint).toBe(true);
          if (loaded.verifyCheckpoint !== undefined) expect(await loaded.verifyCheckpoint()).toBeUndefined();
          state = loaded.state; // later turns fold onto the lazily loaded state, as a reopened session does
          reopens++;
        }
        for (let i = 0; i < tailTurns; i++) fold(turns[i % turns.length]!);
        const live = plain(state);
        await ledger.close();

        const reader = open(file);
        const full = loadState(reader, FOLD, { useCheckpoint: false }).state;
        const lazy = loadState(reader, FOLD, { verify: "sync" });
        if (lazy.fromCheckpoint) lazyOpens++;
        if (lazy.fromCheckpoint && full.timeline.pages.length > 0) paged++;
        const ids = [...Array(full.timeline.length).keys()].map((i) => listAt(full.timeline, i)!).filter((ref) => ref.type !== "task");
        // Item by item first (lazily loaded bodies, one path at a time), then the selectors, then everything.
        expect(byId(lazy.state, ids)).toEqual(byId(full, ids));
        expect(views(lazy.state)).toEqual(views(full));
        expect(plain(lazy.state)).toEqual(plain(full));
        expect(live).toEqual(plain(full));
        await reader.close();
      }),
      { numRuns: 40 },
    );
    // The property exercised what it is about.
    expect(reopens).toBeGreaterThan(5);
    expect(lazyOpens).toBeGreaterThan(10);
    expect(paged).toBeGreaterThan(3);
  }, 120_000);
});
