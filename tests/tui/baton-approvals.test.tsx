/**
 * #20.4 on the Baton screen: the card's "always" is Baton's rule; the next matching request shows the rule's receipt
 * in the transcript and no card; `/approvals` lists the rule and Enter revokes it; the request after that asks again.
 * Every key press and render runs under the sync-I/O guard: the rules file is read and written off the key path.
 */
import { expect, test } from "bun:test";
import { waitFor } from "../support/session-host.ts";
import type { FakeAction } from "../support/fake-adapter.ts";
import { batonScreens } from "./baton-setup.tsx";

const screens = batonScreens();

const npmTest = (said: string): FakeAction[] => [{ type: "permission", title: "Run npm test?", command: "npm test", always: true }, { type: "text", text: said }];

test("always → a Baton rule: the next npm test shows a receipt and no card; /approvals revokes it; then it asks again", async () => {
  const home = screens.home();
  const guard = screens.guard();
  const mounted = await screens.mount({ home, guard, script: { turns: [npmTest("first run"), npmTest("second run"), npmTest("third run")] } });

  await mounted.submit("run the tests");
  await mounted.waitFor("Always allow in this project (Baton rule): `npm test`");
  await mounted.keys((k) => k.pressKey("2"));
  await mounted.waitFor("first run");
  await mounted.waitFor(/baton rule apr_\w+ saved: always allow `npm test` in this project/);

  await mounted.submit("again");
  const receipt = await mounted.waitFor("second run");
  expect(receipt).toMatch(/Approval review · command[\s\S]*baton rule apr_\w+/);
  expect(mounted.host.controller.pendingInteractions()).toEqual([]);

  await mounted.submit("/approvals");
  await mounted.waitFor(/Approval rules for this project — Enter revokes[\s\S]*always allow  npm test/);
  await mounted.keys((k) => k.pressEnter());
  await mounted.waitFor(/Revoked apr_\w+ \(allow npm test\): the next such request asks again/);

  await mounted.submit("once more");
  // The first card's receipt still reads "Always allow …": wait for the new card itself.
  await waitFor(() => mounted.host.controller.pendingInteractions().length === 1, 5000, "the card again");
  await mounted.waitFor(/Always allow in this project \(Baton rule\): `npm test`[\s\S]*Always allow in this project \(Baton rule\): `npm test`/);
  await mounted.keys((k) => k.pressKey("1"));
  await mounted.waitFor("third run");
});
