/**
 * Property (issue #16): whatever a plugin proposes, the user dismisses and resources do (spec moves,
 * deletion), replaying the session's ledger — twice, from nothing — yields the same proposal cards as the live
 * session, and no two pending cards are the same suggestion (resource incarnation, generation, text). Drives
 * the app's loop port (the path every plugin output takes) over a real session with a fake harness.
 */
import { afterEach, expect, test } from "bun:test";
import fc from "fast-check";
import { loopPort } from "../../src/app/plugin-loops.ts";
import type { ResourceObject } from "../../src/plugin/resources/schema.ts";
import { replay, selectPendingProposals, type ProjectionState } from "../../src/projection/index.ts";
import { silentLogger } from "../../src/shared/log.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { ledgerOf, makeTestHome, openTestSession, type TestHome } from "../support/session-host.ts";

let homes: TestHome[] = [];
afterEach(() => {
  for (const h of homes) h.cleanup();
  homes = [];
});

type Op =
  | { readonly op: "propose"; readonly name: string; readonly text: string; readonly rv: number }
  | { readonly op: "dismiss"; readonly index: number }
  | { readonly op: "spec"; readonly name: string }
  | { readonly op: "delete"; readonly name: string };

const NAMES = ["a", "b", "c"];
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("propose" as const), name: fc.constantFrom(...NAMES), text: fc.constantFrom("fix it", "test it"), rv: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ op: fc.constant("dismiss" as const), index: fc.nat(3) }),
  fc.record({ op: fc.constant("spec" as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ op: fc.constant("delete" as const), name: fc.constantFrom(...NAMES) }),
);

const cards = (state: ProjectionState) =>
  selectPendingProposals(state).map((p) => ({ id: p.interactionId, text: p.draft.text, key: p.draft.dedupeKey, requester: p.requester, context: p.draft.pluginContext }));

test("replaying the ledger twice yields the live session's proposal cards; no suggestion is pending twice", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
      const home = makeTestHome();
      homes.push(home);
      const session = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })] });
      try {
        const port = loopPort(session.controller, { batonSessionId: session.ref.batonSessionId, cwd: home.cwd }, silentLogger);
        // Each name has an incarnation (uid) and a generation; deleting starts a new incarnation.
        const live = new Map(NAMES.map((name) => [name, { uid: `pr_${name}0`, generation: 1, incarnation: 0 }]));
        const object = (name: string, rv = 0): ResourceObject => {
          const r = live.get(name) ?? { uid: "pr_x", generation: 1, incarnation: 0 };
          return {
            apiVersion: "loops.baton.dev/v1",
            kind: "Task",
            metadata: { name, namespace: "pi_test", uid: r.uid, generation: r.generation, resourceVersion: String(r.generation + rv), creationTimestamp: "2026-03-01T10:00:00.000Z" },
            spec: {},
            status: {},
          };
        };
        for (const op of ops) {
          if (op.op === "propose") {
            await port.publish({ pluginInstanceId: "pi_test", pluginId: "baton-test/loops", packageVersion: "0.1.0", controllerId: "c", resource: object(op.name, op.rv), output: { kind: "proposed-input", text: op.text } });
          } else if (op.op === "dismiss") {
            const pending = selectPendingProposals(session.controller.state);
            const item = pending[op.index % Math.max(1, pending.length)];
            if (item !== undefined) session.controller.proposals.dismiss(item.interactionId);
          } else if (op.op === "spec") {
            const r = live.get(op.name);
            if (r !== undefined) r.generation++;
            port.resourceChanged("pi_test", object(op.name), false);
          } else {
            port.resourceChanged("pi_test", object(op.name), true);
            const r = live.get(op.name);
            if (r !== undefined) live.set(op.name, { uid: `pr_${op.name}${r.incarnation + 1}`, generation: 1, incarnation: r.incarnation + 1 });
          }
        }
        await session.controller.pipeline.sync();
        const now = cards(session.controller.state);
        const ledger = ledgerOf(session);
        expect(cards(replay(ledger))).toEqual(now);
        expect(cards(replay(ledger))).toEqual(now);
        const bases = now.map((c) => JSON.stringify([(c.context as { resource: { uid: string } }).resource.uid, (c.context as { basedOnGeneration: number }).basedOnGeneration, c.text]));
        expect(new Set(bases).size).toBe(bases.length);
        // Nothing pending is based on a generation or incarnation that has moved on.
        for (const c of now) {
          const ctx = c.context as { resource: { name: string; uid: string }; basedOnGeneration: number };
          const r = live.get(ctx.resource.name);
          expect([ctx.resource.uid, ctx.basedOnGeneration] as unknown[]).toEqual([r?.uid, r?.generation]);
        }
      } finally {
        await session.close();
      }
    }),
    { numRuns: 25 },
  );
}, 60_000);
