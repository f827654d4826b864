/**
 * A bundled plugin (bundled-plugins/<name>) installed through the real pipeline and run in a real runner inside
 * a real session: turn summaries become Turn resources, reconcile outputs go through the app's loop port, so a
 * proposal is a `proposed_input` interaction in the session's ledger. Nothing here wakes a controller by hand:
 * `settle()` only waits for the work the session's own events started.
 */
import path from "node:path";
import type { OpenedSession } from "../../src/app/open-session.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";
import type { Board } from "../../src/plugin/board.ts";
import type { PluginBinding } from "../../src/plugin/binding.ts";
import { selectPendingProposals, type ProposalItem } from "../../src/projection/index.ts";
import { fakeDefinition, type FakeAction } from "./fake-adapter.ts";
import { createPluginRig, type PluginRig } from "./plugin-rig.ts";
import { ledgerOf, makeTestHome, openTestSession, type TestHome } from "./session-host.ts";

export const BUNDLED_DIR = path.resolve(import.meta.dir, "../../bundled-plugins");

export interface BundledLoop {
  readonly rig: PluginRig;
  readonly binding: PluginBinding;
  readonly pluginInstanceId: string;
  /** Wait until no controller has work and the ledger has caught up (a few rounds: one reconcile starts another). */
  settle(): Promise<void>;
  /** Pending proposals, as the dock shows them. */
  pending(): readonly ProposalItem[];
  /** Every proposal this plugin ever opened, as `interaction.opened` events in the ledger. */
  opened(): readonly AnyEvent[];
  /** The Board items of this plugin: `title: status`. */
  board(): readonly string[];
  /** Poll `read` (settling in between) until it returns a value. */
  until<T>(read: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs?: number): Promise<T>;
}

/** Install and enable `bundled-plugins/<name>` with `config` in `session` (closed with the rig). */
export async function bundledLoop(session: OpenedSession, name: string, config?: unknown, env?: Record<string, string>): Promise<BundledLoop> {
  const rig = createPluginRig({ session, ...(env === undefined ? {} : { env }) });
  try {
    const key = await rig.installAndEnable(path.join(BUNDLED_DIR, name), config);
    const binding = rig.manager.binding(key);
    if (binding?.state !== "active") throw new Error(`bundled plugin ${name} is ${binding?.state ?? "missing"}, not active`);
    const pluginInstanceId = binding.instance.pluginInstanceId;
    const settle = async (): Promise<void> => {
      for (let i = 0; i < 3; i++) {
        await binding.controllerHost?.idle();
        await binding.board?.idle();
        await session.controller.pipeline.sync();
      }
    };
    const mine = (e: AnyEvent): boolean =>
      e.kind === "interaction.opened" &&
      (e.payload as { draft: { type: string } }).draft.type === "proposed_input" &&
      (e.payload as { requester?: { pluginInstanceId?: string } }).requester?.pluginInstanceId === pluginInstanceId;
    return {
      rig,
      binding,
      pluginInstanceId,
      settle,
      pending: () => selectPendingProposals(session.controller.state).filter((p) => p.requester.type === "plugin" && p.requester.pluginInstanceId === pluginInstanceId),
      opened: () => ledgerOf(session).filter(mine),
      board: () => boardLines(rig.manager.board, binding.instance.pluginId),
      async until(read, what, timeoutMs = 30_000) {
        const start = Date.now();
        for (;;) {
          const value = await read();
          if (value !== undefined) return value;
          if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 25));
          await settle();
        }
      },
    };
  } catch (error) {
    await rig.close();
    throw error;
  }
}

export function boardLines(board: Board, pluginId: string): readonly string[] {
  return board.sections.filter((s) => s.pluginId === pluginId).flatMap((s) => s.items.map((i) => `${i.title}: ${i.status ?? ""}`));
}

export interface FakeLoopSession {
  readonly session: OpenedSession;
  readonly home: TestHome;
  /** Target `fake` and target `other`, each answering its scripted turns in order. */
  readonly fake: ReturnType<typeof fakeDefinition>;
  readonly other: ReturnType<typeof fakeDefinition>;
  /** Submit a prompt to a target and wait for the turn to end. */
  say(target: string, text: string): Promise<string>;
  close(): Promise<void>;
}

/** A real session (temp BATON_HOME) over two scripted fake targets, `fake` and `other`. */
export async function fakeLoopSession(turns: { fake: FakeAction[][]; other?: FakeAction[][] }, home: TestHome = makeTestHome()): Promise<FakeLoopSession> {
  const fake = fakeDefinition({ turns: turns.fake });
  const other = fakeDefinition({ turns: turns.other ?? [] }, "other");
  const session = await openTestSession(home, { definitions: [fake, other] });
  return {
    session,
    home,
    fake,
    other,
    say: (target, text) => session.controller.submit(target, [{ type: "text", text }], { displayText: text }),
    async close() {
      await session.close();
      home.cleanup();
    },
  };
}
