/**
 * The one conformance suite every adapter passes (style rule 12). A kit per harness knows how to make
 * its model do a text reply, ask for a permission, stream slowly, and how to kill its process.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { AdapterDraft } from "../../src/event/envelope.ts";
import type { InteractionDraft, InteractionResolution } from "../../src/event/interaction-types.ts";
import { checkCapabilityMethods, supportedPromptBlocks } from "../../src/harness/capabilities.ts";
import type { HarnessAdapter, HarnessHandle, HarnessIdentity, HarnessOpenOptions } from "../../src/harness/contract.ts";
import { isBatonError } from "../../src/shared/errors.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { createUlidSource, type TurnId } from "../../src/shared/ids.ts";
import { silentLogger } from "../../src/shared/log.ts";

export interface ContractKit {
  readonly adapter: HarnessAdapter;
  /** A second adapter instance of the same target (resume in "another process"). */
  makeAnother(): HarnessAdapter;
  readonly targetId: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** The next turn answers with this text. */
  scriptText(text: string): Promise<void>;
  /** The next turn asks for one permission (a shell command), then ends. */
  scriptPermission(): Promise<void>;
  /** The next turn streams slowly for several seconds (to cancel or steer it). */
  scriptSlow(): Promise<void>;
  /** Kill the harness process behind the handle (SIGKILL). */
  kill(handle: HarnessHandle): Promise<void>;
  cleanup(): Promise<void>;
}

export interface Recorder {
  readonly drafts: AdapterDraft[];
  readonly identities: HarnessIdentity[];
  readonly requests: InteractionDraft[];
  answer: (draft: InteractionDraft) => InteractionResolution;
  terminals(turnId: string): AdapterDraft[];
  waitForTerminal(turnId: string, timeoutMs?: number): Promise<AdapterDraft>;
}

const ids = createUlidSource();

export function openOptions(kit: ContractKit, recorder: Recorder, resumeState?: HarnessIdentity["resumeState"]): { options: HarnessOpenOptions; sink: { emit(d: AdapterDraft): void }; binding: { publishIdentity(i: HarnessIdentity): void } } {
  return {
    options: {
      targetId: kit.targetId,
      cwd: kit.cwd,
      env: kit.env,
      ...(resumeState ? { resumeState } : {}),
      interactions: {
        request: async (draft) => {
          recorder.requests.push(draft);
          return recorder.answer(draft);
        },
      },
      ids,
      clock: systemClock,
      log: silentLogger,
    },
    sink: { emit: (draft) => void recorder.drafts.push(draft) },
    binding: { publishIdentity: (identity) => void recorder.identities.push(identity) },
  };
}

export function makeRecorder(): Recorder {
  const drafts: AdapterDraft[] = [];
  const isTerminal = (d: AdapterDraft, turnId: string) => d.kind === "state_update" && d.turnId === turnId && (d.payload as { state: string }).state === "idle";
  return {
    drafts,
    identities: [],
    requests: [],
    answer: (draft) => (draft.type === "permission" ? { outcome: "selected", optionId: draft.options.find((o) => o.polarity === "allow")?.optionId ?? "" } : { outcome: "cancelled", reason: "user" }),
    terminals: (turnId) => drafts.filter((d) => isTerminal(d, turnId)),
    async waitForTerminal(turnId, timeoutMs = 30_000) {
      const start = Date.now();
      for (;;) {
        const found = drafts.find((d) => isTerminal(d, turnId));
        if (found) return found;
        if (Date.now() - start > timeoutMs) throw new Error(`no terminal for ${turnId} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

const prompt = (turnId: TurnId, text: string) => ({ turnId, messageId: ids.mint("message"), blocks: [{ type: "text" as const, text }] });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeHarnessContract(name: string, makeKit: () => Promise<ContractKit>, options: { timeoutMs?: number } = {}): void {
  const timeout = options.timeoutMs ?? 60_000;
  describe(`harness contract: ${name}`, () => {
    let kit: ContractKit | undefined;
    const handles: { adapter: HarnessAdapter; handle: HarnessHandle }[] = [];
    afterEach(async () => {
      for (const { adapter, handle } of handles.splice(0)) await adapter.close(handle).catch(() => undefined);
      await kit?.cleanup();
      kit = undefined;
    });

    async function start(recorder = makeRecorder(), adapter?: HarnessAdapter, resumeState?: HarnessIdentity["resumeState"]) {
      kit ??= await makeKit();
      const chosen = adapter ?? kit.adapter;
      const { options: open, sink, binding } = openOptions(kit, recorder, resumeState);
      const handle = await chosen.open(open, sink, binding);
      handles.push({ adapter: chosen, handle });
      return { kit, recorder, handle, adapter: chosen };
    }

    /** A slowly streaming turn that has produced its first chunk. */
    async function startSlowTurn(kit: ContractKit, adapter: HarnessAdapter, handle: HarnessHandle, recorder: Recorder): Promise<TurnId> {
      await kit.scriptSlow();
      const turnId = ids.mint("turn");
      await adapter.sendTurn(handle, prompt(turnId, "go slowly"));
      const startWait = Date.now();
      while (!recorder.drafts.some((d) => d.turnId === turnId && d.kind === "agent_message_chunk") && Date.now() - startWait < 20_000) await pause(20);
      return turnId;
    }

    test("declared capabilities are implemented; no unregistered markers", async () => {
      kit = await makeKit();
      expect(checkCapabilityMethods(kit.adapter)).toEqual([]);
    });

    test("a text turn: accepted as new_turn, output drafts, exactly one terminal; drafts are not self-attributed", async () => {
      const { kit, recorder, handle, adapter } = await start();
      await kit.scriptText("contract text reply");
      const turnId = ids.mint("turn");
      expect(await adapter.sendTurn(handle, prompt(turnId, "hello"))).toEqual({ accepted: true, effective: "new_turn" });
      const terminal = await recorder.waitForTerminal(turnId);
      expect((terminal.payload as { stopReason?: string }).stopReason).toBe("end_turn");
      // Nothing can follow a close (and a close of a turn still thought active would add a terminal): then count.
      await adapter.close(handle);
      expect(recorder.terminals(turnId).length).toBe(1);
      const text = recorder.drafts.filter((d) => d.kind === "agent_message" && d.turnId === turnId).map((d) => JSON.stringify(d.payload)).join("");
      expect(text).toContain("contract text reply");
      for (const draft of recorder.drafts) {
        expect(draft.source).toBeUndefined();
        expect(draft.harnessTargetId).toBeUndefined();
      }
      expect(recorder.identities.length).toBeGreaterThanOrEqual(1);
    }, timeout);

    test("an unsupported prompt block fails admission with a typed error naming it", async () => {
      const { recorder, handle, adapter } = await start();
      if (supportedPromptBlocks(adapter.capabilities).has("image")) return;
      const before = recorder.drafts.length;
      const error = await adapter
        .sendTurn(handle, { turnId: ids.mint("turn"), messageId: ids.mint("message"), blocks: [{ type: "image", mimeType: "image/png", data: "AA==" }] })
        .then(() => undefined, (e: unknown) => e);
      expect(isBatonError(error, "prompt_unsupported")).toBe(true);
      expect(String((error as Error).message)).toContain("image");
      expect(recorder.drafts.length).toBe(before);
    }, timeout);

    test("permission: the request goes through the host and the turn ends once", async () => {
      const { kit, recorder, handle, adapter } = await start();
      await kit.scriptPermission();
      const turnId = ids.mint("turn");
      await adapter.sendTurn(handle, prompt(turnId, "run the command"));
      await recorder.waitForTerminal(turnId);
      expect(recorder.requests.filter((r) => r.type === "permission").length).toBe(1);
      // Nothing can follow a close (and a close of a turn still thought active would add a terminal): then count.
      await adapter.close(handle);
      expect(recorder.terminals(turnId).length).toBe(1);
    }, timeout);

    test("cancel during a slow stream ends the turn cancelled, once", async () => {
      const { kit, recorder, handle, adapter } = await start();
      const turnId = await startSlowTurn(kit, adapter, handle, recorder);
      await adapter.cancel(handle, turnId);
      const terminal = await recorder.waitForTerminal(turnId);
      expect((terminal.payload as { stopReason?: string }).stopReason).toBe("cancelled");
      // Nothing can follow a close (and a close of a turn still thought active would add a terminal): then count.
      await adapter.close(handle);
      expect(recorder.terminals(turnId).length).toBe(1);
    }, timeout);

    test("a mid-turn message is a steer or rejected; rejected emits nothing", async () => {
      const { kit, recorder, handle, adapter } = await start();
      const turnId = await startSlowTurn(kit, adapter, handle, recorder);
      const steerMessage = prompt(turnId, "and also this");
      const result = await adapter.sendTurn(handle, steerMessage);
      expect(["steer", "rejected"]).toContain(result.effective);
      if (result.effective === "rejected") {
        expect(recorder.drafts.some((d) => JSON.stringify(d.payload).includes(steerMessage.messageId))).toBe(false);
      }
      await adapter.cancel(handle, turnId);
      await recorder.waitForTerminal(turnId);
    }, timeout);

    test("resume: another adapter instance continues the same native session", async () => {
      const first = await start();
      await first.kit.scriptText("first");
      const turnId = ids.mint("turn");
      await first.adapter.sendTurn(first.handle, prompt(turnId, "remember me"));
      await first.recorder.waitForTerminal(turnId);
      const identity = first.recorder.identities.at(-1);
      expect(identity).toBeDefined();
      await first.adapter.close(first.handle);
      const second = await start(makeRecorder(), first.kit.makeAnother(), identity!.resumeState);
      await second.kit.scriptText("second");
      const next = ids.mint("turn");
      await second.adapter.sendTurn(second.handle, prompt(next, "again"));
      await second.recorder.waitForTerminal(next);
      expect(second.recorder.identities.at(-1)?.harnessSessionId).toBe(identity!.harnessSessionId);
      expect(second.recorder.identities.at(-1)?.fresh).toBe(false);
    }, timeout);

    test("crash: a killed harness gives one error and one terminal within 2 s", async () => {
      const { kit, recorder, handle, adapter } = await start();
      const turnId = await startSlowTurn(kit, adapter, handle, recorder);
      const killedAt = Date.now();
      await kit.kill(handle);
      const terminal = await recorder.waitForTerminal(turnId, 5000);
      expect(Date.now() - killedAt).toBeLessThan(2000);
      expect((terminal.payload as { stopReason?: string }).stopReason).toBe("failed");
      expect(recorder.drafts.filter((d) => d.kind === "_baton_error_update" && d.turnId === turnId).length).toBe(1);
      // Nothing can follow a close (and a close of a turn still thought active would add a terminal): then count.
      await adapter.close(handle);
      expect(recorder.terminals(turnId).length).toBe(1);
    }, timeout);

    test("close with an active turn synthesizes its terminal", async () => {
      const { kit, recorder, handle, adapter } = await start();
      await kit.scriptSlow();
      const turnId = ids.mint("turn");
      await adapter.sendTurn(handle, prompt(turnId, "go slowly"));
      await adapter.close(handle);
      const terminal = await recorder.waitForTerminal(turnId, 5000);
      expect((terminal.payload as { stopReason?: string }).stopReason).toBe("cancelled");
    }, timeout);
  });
}
