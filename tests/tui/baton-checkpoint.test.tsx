/**
 * The screen opens from a checkpoint without reading the whole ledger first, then checks the
 * checkpoint's ledger digest after the frame (#12.11): an edit of the ledger before the checkpoint's
 * offset is noticed, the transcript is rebuilt from the ledger and a notice says so.
 */
import { afterEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { STALE_CHECKPOINT_NOTICE } from "../../src/app/history-check.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { makeTestHome, openTestSession, type TestHome } from "../support/session-host.ts";
import { mountBaton, type BatonMounted } from "./baton-setup.tsx";

let mounted: BatonMounted | undefined;
let home: TestHome | undefined;
afterEach(async () => {
  await mounted?.destroy();
  mounted = undefined;
  home?.cleanup();
  home = undefined;
});

async function sessionWithCheckpoint(text: string): Promise<{ id: string; ledger: string }> {
  home = makeTestHome();
  // Every close writes one (a one-turn session is below CHECKPOINT_MIN_TAIL_BYTES).
  const session = await openTestSession(home, { definitions: [fakeDefinition({ turns: [[{ type: "text", text }]] }, "fake")], checkpointTailBytes: 0 });
  await session.controller.submit("fake", [{ type: "text", text: "hello" }]);
  await session.close();
  return { id: session.ref.batonSessionId, ledger: session.ref.paths.ledger };
}

test("a same-length edit before the checkpoint is found after the first frame; the transcript is rebuilt from the ledger", async () => {
  const { id, ledger } = await sessionWithCheckpoint("Hi there, friend.");
  writeFileSync(ledger, readFileSync(ledger, "utf8").replace('"text":"Hi there, friend."', '"text":"Yo there, friend."'));
  mounted = await mountBaton({ home: home!, choice: { kind: "id", id }, verifyCheckpoint: "deferred" });
  // Opened from the (stale) checkpoint: nothing waited for the check.
  expect(mounted.opened[0]!.loaded.fromCheckpoint).toBe(true);
  await mounted.waitFor("Hi there, friend.");
  await mounted.opened[0]!.verifyHistory();
  await mounted.waitFor("Yo there, friend.");
  expect(mounted.frame()).toContain(STALE_CHECKPOINT_NOTICE.slice(0, 40));
  expect(mounted.frame()).not.toContain("Hi there, friend.");
  await mounted.destroy();
  mounted = undefined;
  // The checkpoint written at close matches the ledger again.
  const again = await openTestSession(home!, { definitions: [fakeDefinition({ turns: [] })], choice: { kind: "id", id } });
  expect(again.loaded.fromCheckpoint).toBe(true);
  expect(again.loaded.checkpointProblem).toBeUndefined();
  expect(JSON.stringify(again.controller.state.messages)).toContain("Yo there, friend.");
  await again.close();
});

test("an intact checkpoint passes the check and nothing is rebuilt", async () => {
  const { id } = await sessionWithCheckpoint("All good here.");
  mounted = await mountBaton({ home: home!, choice: { kind: "id", id }, verifyCheckpoint: "deferred" });
  const before = mounted.host.controller.state;
  await mounted.opened[0]!.verifyHistory();
  await mounted.waitFor("All good here.");
  expect(mounted.host.controller.state).toBe(before);
  expect(mounted.frame()).not.toContain(STALE_CHECKPOINT_NOTICE.slice(0, 40));
});
