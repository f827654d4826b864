/**
 * Baton's read-only Turn resources at a turn end (#18): a loop watches Turns, so every turn end announces the new
 * one to each active plugin. Announcing must not build the list of every Turn (each one's texts resolved from its
 * messages — read from the checkpoint in a session opened from one), and after a turn end the list is the previous
 * one plus the new turn's resource, not every turn's built again.
 */
import { afterEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { turnResource, turnResources } from "../../src/plugin/resources/turns.ts";
import { TURN_TYPE, type ResourceObject } from "../../src/plugin/resources/schema.ts";
import { ResourceStore } from "../../src/plugin/resources/store.ts";
import { allSummaries } from "../../src/projection/index.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import type { Logger } from "../../src/shared/log.ts";
import { append, FOLD, ledgerAt, turnOf } from "../support/checkpointed-session.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const tempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-turns-"));
  dirs.push(dir);
  return dir;
};

const silent = { log: () => undefined, child: () => silent } as unknown as Logger;

test("announcing a Turn, or asking whether a type is derived, does not list the Turns; reading them does", async () => {
  let listed = 0;
  const turn = { ...TURN_TYPE, metadata: { name: "t_1", namespace: "baton-system" }, spec: {}, status: {} } as unknown as ResourceObject;
  const store = new ResourceStore({
    root: tempDir(),
    namespace: "pi_0123456789abcdef",
    owned: [],
    reconciled: [],
    clock: new ManualClock(),
    log: silent,
    derived: (type) => (type.kind === "Turn" ? () => (listed++, [turn]) : undefined),
  });
  const announced: string[] = [];
  store.onChange((change) => announced.push(`${change.reason}:${change.object.metadata.name}`));
  store.announce(turn);
  expect(store.isDerived(TURN_TYPE)).toBe(true);
  expect(announced).toEqual(["created:t_1"]);
  expect(listed).toBe(0);
  expect((await store.list(TURN_TYPE)).map((o) => o.metadata.name)).toEqual(["t_1"]);
  expect((await store.get({ ...TURN_TYPE, name: "t_1" }))?.metadata.name).toBe("t_1");
  expect(listed).toBe(2);
});

test("after a turn end the Turns are the previous ones plus the new one; a state of another lineage is listed afresh", async () => {
  const ledger = ledgerAt(path.join(tempDir(), "session.jsonl"));
  let state = FOLD.initial();
  for (let turn = 0; turn < 5; turn++) state = append(ledger, state, turnOf(turn));
  const before = turnResources(state);
  expect(before.map((o) => o.metadata.name)).toEqual(allSummaries(state).map((s) => s.turnId));
  state = append(ledger, state, turnOf(5));
  const after = turnResources(state);
  expect(after).toHaveLength(6);
  for (let i = 0; i < before.length; i++) expect(after[i]).toBe(before[i] as ResourceObject); // not built again
  const last = allSummaries(state).at(-1);
  expect(after[5]).toEqual(turnResource(state, last as NonNullable<typeof last>));
  await ledger.close();

  // The same turns folded again (a rebuilt projection): equal resources, built from that state.
  const other = ledgerAt(path.join(tempDir(), "session.jsonl"));
  let rebuilt = FOLD.initial();
  for (let turn = 0; turn < 6; turn++) rebuilt = append(other, rebuilt, turnOf(turn));
  const again = turnResources(rebuilt);
  expect(again[0]).not.toBe(after[0] as ResourceObject);
  expect(JSON.stringify(again)).toBe(JSON.stringify(after));
  await other.close();
});
