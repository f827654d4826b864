/**
 * IX-08 / TUI-05 through the controller's door (#13): the footer's `approvals:auto-review` comes from the route
 * the target's harness reported (a projected fact), shown while that harness runs; rendering never builds an
 * adapter (before, the view asked `controller.binding(t)`, which created one for any target in the history).
 */
import { afterEach, expect, test } from "bun:test";
import { SUPPORTED } from "../../src/harness/capabilities.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { ledgerOf, makeTestHome, openTestSession, type TestHome } from "../support/session-host.ts";
import { mountBaton, type BatonMounted } from "./baton-setup.tsx";
import { brand } from "../support/ids.ts";

let mounted: BatonMounted | undefined;
let home: TestHome | undefined;
afterEach(async () => {
  await mounted?.destroy();
  mounted = undefined;
  home?.cleanup();
  home = undefined;
});

const delegating = { capabilities: { approvalRouting: SUPPORTED, config: SUPPORTED }, approvalRoute: "delegated" as const };

test("a delegated route the harness reported is recorded once per open and shown while its harness runs", async () => {
  mounted = await mountBaton({ script: { ...delegating, turns: [[{ type: "text", text: "reviewed reply" }]] } });
  expect(mounted.frame()).not.toContain("approvals:auto-review");
  await mounted.submit("hi");
  await mounted.waitFor("reviewed reply");
  await mounted.waitFor("approvals:auto-review");
  const routes = ledgerOf(mounted.opened[0]!).filter((event) => event.kind === "approval_route_update");
  expect(routes.map((event) => [event.harnessTargetId, event.payload])).toEqual([["fake", { route: "delegated" }]]);
});

test("a route the harness reports as the user's shows nothing", async () => {
  mounted = await mountBaton({ script: { ...delegating, approvalRoute: "user", turns: [[{ type: "text", text: "plain reply" }]] } });
  await mounted.submit("hi");
  await mounted.waitFor("plain reply");
  expect(mounted.frame()).not.toContain("approvals:auto-review");
});

test("reopening a session with that history renders without building an adapter, and claims no route until the harness runs", async () => {
  home = makeTestHome();
  const first = await openTestSession(home, { definitions: [fakeDefinition({ ...delegating, turns: [[{ type: "text", text: "earlier reply" }]] })] });
  await first.controller.submit("fake", [{ type: "text", text: "hello" }]);
  await first.close();
  mounted = await mountBaton({ home, choice: { kind: "id", id: first.ref.batonSessionId }, script: { ...delegating, turns: [[{ type: "text", text: "later reply" }]] } });
  await mounted.waitFor("earlier reply");
  for (let i = 0; i < 3; i++) await mounted.render();
  expect(mounted.host.controller.state.perTarget[brand.target("fake")]?.approvalRoute).toBe("delegated");
  expect(mounted.adapters("fake")).toHaveLength(0);
  expect(mounted.frame()).not.toContain("approvals:auto-review");
  await mounted.submit("again");
  await mounted.waitFor("later reply");
  await mounted.waitFor("approvals:auto-review");
  expect(mounted.adapters("fake")).toHaveLength(1);
});
