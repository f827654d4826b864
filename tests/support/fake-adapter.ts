/**
 * A scripted fake harness for controller tests. It never ships in src/. Each turn follows the next
 * script step; a step is a list of actions (text chunks, a permission request, a pause, a terminal).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { PromptBlock } from "../../src/event/content.ts";
import type { AdapterDraft } from "../../src/event/envelope.ts";
import type { StopReason } from "../../src/event/stop-reasons.ts";
import type { InteractionResolution } from "../../src/event/interaction-types.ts";
import { SUPPORTED, type Capabilities, type ReconcileResult, type SessionConfigOption } from "../../src/harness/capabilities.ts";
import type {
  BindingSink,
  EventSink,
  HarnessAdapter,
  HarnessHandle,
  HarnessOpenOptions,
  PromptInput,
  SendTurnResult,
} from "../../src/harness/contract.ts";
import { unsupportedBlocks } from "../../src/harness/contract.ts";
import { supportedPromptBlocks } from "../../src/harness/capabilities.ts";
import type { ExecutableReport, HarnessDefinition } from "../../src/harness/definition.ts";
import { BatonError } from "../../src/shared/errors.ts";
import type { HandleId, TurnId } from "../../src/shared/ids.ts";

export type FakeAction =
  | { readonly type: "text"; readonly text: string; readonly chunks?: number }
  | { readonly type: "thought"; readonly text: string }
  | { readonly type: "tool"; readonly id: string; readonly title: string; readonly status?: "completed" | "failed" | "declined"; readonly output?: string }
  /** `command`: the shell line it asks to run (Baton's approval rules judge it); `always`: it offers an "always" option. */
  | { readonly type: "permission"; readonly title: string; readonly toolCallId?: string; readonly runOnAllow?: FakeAction; readonly command?: string; readonly always?: boolean }
  | { readonly type: "question"; readonly question: string }
  | { readonly type: "wait"; readonly ms: number }
  /** Wait until `cancel` is called (a harness that honours interrupt). */
  | { readonly type: "waitForCancel" }
  /** Never finish (a harness that ignores interrupt). */
  | { readonly type: "hang" }
  /** Wait until the test calls `release(name)` (output that resumes exactly when the test says). */
  | { readonly type: "gate"; readonly name: string }
  | { readonly type: "crash"; readonly message?: string }
  | { readonly type: "usage"; readonly input: number; readonly output: number }
  /** Write (or, with `content: null`, delete) a file under the session's cwd, as an agent's edit tool would. */
  | { readonly type: "write"; readonly path: string; readonly content: string | null }
  /** Emit this draft as is (e.g. one that claims another target). */
  | { readonly type: "emit"; readonly draft: Record<string, unknown> }
  | { readonly type: "end"; readonly stopReason?: string };

export interface FakeScript {
  /** One entry per turn, in order; a turn without a step answers "ok" and ends. */
  readonly turns: FakeAction[][];
  readonly openDelayMs?: number;
  readonly openError?: string;
  readonly sendError?: string;
  /** `syncContext` throws this (the native session did not take the history). */
  readonly syncError?: string;
  /** `steer` accepts mid-turn messages, `reject` refuses them. */
  readonly steer?: "steer" | "reject";
  /** What a compaction turn does (default: one short message). */
  readonly compactSteps?: FakeAction[];
  /** A steer is accepted only after this delay (the turn may end meanwhile: the harness race). */
  readonly steerDelayMs?: number;
  readonly capabilities?: Capabilities;
  /** Emit a harness-initiated (observed) turn after the next driven turn ends. */
  readonly observedAfterTurn?: FakeAction[];
  readonly reconcile?: ReconcileResult["state"];
  /** What `approvalRoute` reports for an open session (declare `approvalRouting` in `capabilities` too). */
  readonly approvalRoute?: "user" | "delegated" | null;
  readonly ignoreCancel?: boolean;
  /** Called in `open` just before the native identity is published (tests fill the disk there). */
  readonly beforeIdentity?: () => void;
  /** Resume fails with "not found": a fresh native session is started. */
  readonly resumeMissing?: boolean;
  /** The fake declares `textgen` and a session title generation answers this (after `titleDelayMs`). */
  readonly title?: string;
  readonly titleDelayMs?: number;
}

/** What a fake declares unless its script says otherwise. */
const FAKE_CAPABILITIES: Capabilities = { compact: SUPPORTED, config: SUPPORTED, reconcile: SUPPORTED, syncContext: SUPPORTED };

function capabilitiesOf(script: FakeScript): Capabilities {
  return script.capabilities ?? (script.title === undefined ? FAKE_CAPABILITIES : { ...FAKE_CAPABILITIES, textgen: SUPPORTED });
}

interface Live {
  readonly handle: HarnessHandle;
  readonly options: HarnessOpenOptions;
  readonly sink: EventSink;
  readonly sessionId: string;
  activeTurn: TurnId | undefined;
  cancelled: Set<string>;
  cancelWaiters: Map<string, () => void>;
  dead: boolean;
}

export interface FakeRecord {
  readonly opens: HarnessOpenOptions[];
  readonly prompts: PromptInput[];
  readonly cancels: string[];
  /** The history each `syncContext` call delivered, joined, in order. */
  readonly synced: string[];
  readonly drafts: AdapterDraft[];
  readonly answers: InteractionResolution[];
  closes: number;
}

let sessionCounter = 0;

export class FakeAdapter implements HarnessAdapter {
  readonly capabilities: Capabilities;
  readonly record: FakeRecord = { opens: [], prompts: [], cancels: [], synced: [], drafts: [], answers: [], closes: 0 };
  private turnIndex = 0;
  private readonly gates = new Map<string, { readonly opened: Promise<void>; readonly open: () => void }>();

  get turnsPlayed(): number {
    return this.turnIndex;
  }
  private readonly lives = new Map<string, Live>();

  constructor(private readonly script: FakeScript) {
    this.capabilities = capabilitiesOf(script);
  }

  /** Title generation (declared only with `script.title`). */
  async generateStructured(): Promise<unknown> {
    if (this.script.titleDelayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, this.script.titleDelayMs));
    return { title: this.script.title };
  }

  async open(options: HarnessOpenOptions, sink: EventSink, binding: BindingSink): Promise<HarnessHandle> {
    this.record.opens.push(options);
    if (this.script.openDelayMs) await sleep(this.script.openDelayMs);
    if (this.script.openError) throw new BatonError("harness_start_failed", this.script.openError);
    const resumed = typeof options.resumeState?.data["sessionId"] === "string" && !this.script.resumeMissing;
    const sessionId = resumed ? String(options.resumeState?.data["sessionId"]) : `fake-session-${++sessionCounter}`;
    const handle: HarnessHandle = { id: options.ids.mint("handle") as HandleId };
    const recordingSink: EventSink = {
      emit: (draft) => {
        this.record.drafts.push(draft);
        sink.emit(draft);
      },
    };
    this.lives.set(handle.id, { handle, options, sink: recordingSink, sessionId, activeTurn: undefined, cancelled: new Set(), cancelWaiters: new Map(), dead: false });
    this.script.beforeIdentity?.();
    binding.publishIdentity({ harnessSessionId: sessionId, resumeState: { version: 1, data: { sessionId } }, fresh: !resumed });
    return handle;
  }

  async syncContext(_handle: HarnessHandle, blocks: readonly PromptBlock[]): Promise<void> {
    await sleep(0);
    if (this.script.syncError) throw new BatonError("harness_start_failed", this.script.syncError);
    this.record.synced.push(blocks.map((block) => (block.type === "text" ? block.text : "")).join("\n"));
  }

  async sendTurn(handle: HarnessHandle, input: PromptInput): Promise<SendTurnResult> {
    const live = this.live(handle);
    if (live.dead) throw new BatonError("harness_dead", "the fake harness died");
    const unsupported = unsupportedBlocks(input.blocks, supportedPromptBlocks(this.capabilities));
    if (unsupported.length > 0) throw new BatonError("prompt_unsupported", `fake does not accept ${unsupported.join(", ")}`);
    if (live.activeTurn) {
      if (this.script.steer === "steer" && live.activeTurn === input.turnId) {
        this.record.prompts.push(input);
        if (this.script.steerDelayMs) await sleep(this.script.steerDelayMs);
        return { accepted: true, effective: "steer" };
      }
      return { accepted: false, effective: "rejected", reason: "a turn is running" };
    }
    if (this.script.sendError) throw new BatonError("harness_start_failed", this.script.sendError);
    this.record.prompts.push(input);
    live.activeTurn = input.turnId;
    const steps = this.script.turns[this.turnIndex++] ?? [{ type: "text", text: "ok" }];
    void this.play(live, input.turnId, steps, true);
    return { accepted: true, effective: "new_turn" };
  }

  async cancel(handle: HarnessHandle, turnId: TurnId): Promise<void> {
    const live = this.live(handle);
    this.record.cancels.push(turnId);
    if (this.script.ignoreCancel) return;
    live.cancelled.add(turnId);
    live.cancelWaiters.get(turnId)?.();
  }

  async close(handle: HarnessHandle): Promise<void> {
    this.record.closes++;
    const live = this.lives.get(handle.id);
    if (!live) return;
    if (live.activeTurn && !live.dead) this.terminal(live, live.activeTurn, "cancelled");
    live.dead = true;
    this.lives.delete(handle.id);
  }

  async compactContext(handle: HarnessHandle, turnId: TurnId): Promise<SendTurnResult> {
    const live = this.live(handle);
    live.activeTurn = turnId;
    void this.play(live, turnId, this.script.compactSteps ?? [{ type: "text", text: "compacted" }], true);
    return { accepted: true, effective: "new_turn" };
  }

  async getConfig(): Promise<readonly SessionConfigOption[]> {
    return [{ id: "model", name: "Model", type: "select", value: "fake-1", options: [{ value: "fake-1", name: "Fake 1" }, { value: "fake-2", name: "Fake 2" }] }];
  }

  async setConfig(): Promise<void> {}

  /** Let a turn waiting at `{type:"gate", name}` go on. */
  release(name: string): void {
    this.gate(name).open();
  }

  private gate(name: string): { readonly opened: Promise<void>; readonly open: () => void } {
    let gate = this.gates.get(name);
    if (gate === undefined) {
      let open = (): void => undefined;
      const opened = new Promise<void>((resolve) => (open = resolve));
      gate = { opened, open };
      this.gates.set(name, gate);
    }
    return gate;
  }

  async reconcile(): Promise<ReconcileResult> {
    return { state: this.script.reconcile ?? "unknown" };
  }

  approvalRoute(): "user" | "delegated" | null {
    return this.script.approvalRoute ?? null;
  }

  /** Kill the fake "process": the active turn gets one error and one failed terminal. */
  crash(message = "fake harness exited (signal 9)"): void {
    for (const live of this.lives.values()) {
      if (live.dead) continue;
      live.dead = true;
      if (live.activeTurn) {
        live.sink.emit({ kind: "_baton_error_update", payload: { message, retryable: false }, turnId: live.activeTurn });
        this.terminal(live, live.activeTurn, "failed");
      }
    }
  }

  private async play(live: Live, turnId: TurnId, steps: FakeAction[], driven: boolean): Promise<void> {
    const emit = (draft: AdapterDraft): void => {
      if (!live.dead) live.sink.emit(draft);
    };
    const messageId = live.options.ids.mint("message");
    // Like a real harness, output starts after the turn was accepted.
    await sleep(0);
    for (const step of steps) {
      if (live.dead || live.activeTurn !== turnId) return;
      if (live.cancelled.has(turnId)) return this.terminal(live, turnId, "cancelled");
      switch (step.type) {
        case "text": {
          const pieces = splitInto(step.text, step.chunks ?? 2);
          for (const piece of pieces) emit({ kind: "agent_message_chunk", payload: { messageId, content: { type: "text", text: piece } }, turnId });
          emit({ kind: "agent_message", payload: { messageId, content: [{ type: "text", text: step.text }] }, turnId });
          break;
        }
        case "thought":
          emit({ kind: "agent_thought", payload: { messageId: `${messageId}-thought`, content: [{ type: "text", text: step.text }] }, turnId });
          break;
        case "tool":
          emit({ kind: "tool_call_update", payload: { toolCallId: step.id, title: step.title, kind: "execute", status: "in_progress" }, turnId });
          if (step.output) emit({ kind: "tool_call_content_chunk", payload: { toolCallId: step.id, content: { type: "text", text: step.output } }, turnId });
          emit({ kind: "tool_call_update", payload: { toolCallId: step.id, status: step.status ?? "completed" }, turnId });
          break;
        case "permission": {
          const toolCallId = step.toolCallId ?? "tool-1";
          emit({ kind: "tool_call_update", payload: { toolCallId, title: step.title, kind: "execute", status: "pending" }, turnId });
          const answer = await live.options.interactions.request(
            {
              type: "permission",
              title: step.title,
              toolCallId,
              options: [
                { optionId: "allow", name: "Allow once", polarity: "allow", lifetime: "once" },
                ...(step.always === true ? [{ optionId: "allow_always", name: "Always allow", polarity: "allow" as const, lifetime: "persistent" as const }] : []),
                { optionId: "deny", name: "Deny", polarity: "reject", lifetime: "once" },
              ],
              ...(step.command === undefined ? {} : { subject: { kind: "command" as const, command: step.command } }),
            },
            { turnId },
          );
          this.record.answers.push(answer);
          const allowed = answer.outcome === "selected" && (answer.optionId === "allow" || answer.optionId === "allow_always");
          emit({ kind: "tool_call_update", payload: { toolCallId, status: allowed ? "completed" : "declined" }, turnId });
          if (answer.outcome === "cancelled" && live.cancelled.has(turnId)) return this.terminal(live, turnId, "cancelled");
          break;
        }
        case "question": {
          const answer = await live.options.interactions.request(
            { type: "question", questions: [{ questionId: "q1", header: "Q", question: step.question, options: [{ label: "yes" }, { label: "no" }] }] },
            { turnId },
          );
          this.record.answers.push(answer);
          break;
        }
        case "wait":
          await this.sleepOrCancel(live, turnId, step.ms);
          break;
        case "waitForCancel":
          await new Promise<void>((resolve) => live.cancelWaiters.set(turnId, resolve));
          break;
        case "hang":
          await new Promise<void>(() => undefined);
          return;
        case "gate":
          await this.gate(step.name).opened;
          break;
        case "crash":
          this.crash(step.message);
          return;
        case "usage":
          emit({ kind: "usage_update", payload: { inputTokens: step.input, outputTokens: step.output }, turnId });
          break;
        case "emit":
          emit({ ...step.draft, turnId } as unknown as AdapterDraft);
          break;
        case "write": {
          const file = path.resolve(live.options.cwd, step.path);
          // One id per turn and file: a tool call id is the session's (a second write of a.txt is a new call).
          const toolCallId = `write-${turnId}-${step.path}`;
          emit({ kind: "tool_call_update", payload: { toolCallId, title: `Write ${step.path}`, kind: "edit", status: "in_progress" }, turnId });
          if (step.content === null) rmSync(file, { force: true });
          else {
            mkdirSync(path.dirname(file), { recursive: true });
            writeFileSync(file, step.content);
          }
          emit({ kind: "tool_call_update", payload: { toolCallId, status: "completed" }, turnId });
          break;
        }
        case "end":
          return this.terminal(live, turnId, step.stopReason ?? "end_turn");
      }
    }
    if (live.cancelled.has(turnId)) return this.terminal(live, turnId, "cancelled");
    this.terminal(live, turnId, "end_turn");
    if (driven && this.script.observedAfterTurn) {
      const observed = live.options.ids.mint("turn");
      live.activeTurn = observed;
      emit({ kind: "state_update", payload: { state: "running" }, turnId: observed });
      await this.play(live, observed, this.script.observedAfterTurn, false);
    }
  }

  private terminal(live: Live, turnId: TurnId, stopReason: string): void {
    if (live.activeTurn !== turnId) return;
    live.activeTurn = undefined;
    live.cancelWaiters.delete(turnId);
    // Deliberately open: a test may make the fake break the contract with a word outside the vocabulary.
    live.sink.emit({ kind: "state_update", payload: { state: "idle", stopReason: stopReason as StopReason }, turnId });
  }

  private async sleepOrCancel(live: Live, turnId: string, ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      live.cancelWaiters.set(turnId, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private live(handle: HarnessHandle): Live {
    const live = this.lives.get(handle.id);
    if (!live) throw new BatonError("harness_dead", "unknown or closed handle");
    return live;
  }
}

function splitInto(text: string, parts: number): string[] {
  if (parts <= 1 || text.length < parts) return [text];
  const size = Math.ceil(text.length / parts);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A harness definition around fake adapters; `adapters` collects every adapter it built. */
export function fakeDefinition(script: FakeScript | (() => FakeScript), id = "fake"): HarnessDefinition & { adapters: FakeAdapter[] } {
  const adapters: FakeAdapter[] = [];
  return {
    id,
    aliases: [`${id[0] ?? "f"}x`],
    label: `Fake ${id}`,
    sessionKey: `${id}-wire`,
    shortName: id,
    color: "#888888",
    /** A fake accepts one setting of its own, so config validation of a harness that is not built in is testable. */
    settingsSchema: z.strictObject({ flavour: z.enum(["plain", "spicy"]).optional() }),
    // A script given as a function is read per adapter; the fakes built that way keep the default declaration.
    capabilities: typeof script === "function" ? FAKE_CAPABILITIES : capabilitiesOf(script),
    adapters,
    create() {
      const adapter = new FakeAdapter(typeof script === "function" ? script() : script);
      adapters.push(adapter);
      return adapter;
    },
    async probeExecutable(): Promise<ExecutableReport> {
      return { ok: true, argv: ["fake"], source: "built-in", version: "fake 1.0" };
    },
  };
}
