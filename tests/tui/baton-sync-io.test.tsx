/**
 * PROC-01: the host loop does no synchronous file I/O while a key is handled or a frame rendered. A
 * whole session is driven through the keyboard — a prompt, an approval, /model, Shift+Tab, `@`,
 * /sessions and a switch, /status, Esc — with every `fs.*Sync` wrapped; any call made while a key or
 * a render runs fails the test with the function, its argument and the stack.
 */
import { expect, test } from "bun:test";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { openTestSession } from "../support/session-host.ts";
import { batonScreens } from "./baton-setup.tsx";

const screens = batonScreens();

test("no key handler and no render calls a synchronous fs function", async () => {
  const home = screens.home();
  // Another session of the project to list, reference and switch to.
  const other = await openTestSession(home, { definitions: [fakeDefinition({ turns: [[{ type: "text", text: "older answer" }]] }, "fake")] });
  await other.controller.submit("fake", [{ type: "text", text: "an older session" }]);
  await other.close();

  const guard = screens.guard();
  const mounted = await screens.mount({
    home,
    guard,
    script: { turns: [[{ type: "permission", title: "Run ls -la", toolCallId: "tool-1" }, { type: "text", text: "first answer" }], [{ type: "text", text: "working" }, { type: "waitForCancel" }]] },
  });
  await mounted.submit("first prompt");
  await mounted.waitFor("Run ls -la");
  await mounted.keys((k) => k.pressKey("1"));
  await mounted.waitFor("first answer");
  await mounted.waitFor("fake · idle");

  await mounted.submit("/model");
  await mounted.waitFor("Fake 2");
  await mounted.keys((k) => k.pressArrow("down"));
  await mounted.keys((k) => k.pressEnter());
  await mounted.waitFor("takes effect next turn");
  await mounted.keys((k) => k.pressTab({ shift: true }));
  await mounted.waitFor("plan mode (shift+tab to cycle)");
  await mounted.keys((k) => k.pressTab({ shift: true }));

  await mounted.type("look at @an");
  await mounted.waitFor("an older session");
  await mounted.keys((k) => k.pressKey("u", { ctrl: true }));

  await mounted.submit("/status");
  await mounted.waitFor("tokens   in:");
  await mounted.submit("keep going");
  await mounted.waitFor("working");
  await mounted.escape();
  await mounted.waitFor("fake-2 · idle");

  await mounted.submit("/sessions");
  await mounted.waitFor("an older session");
  await mounted.type("older");
  await mounted.keys((k) => k.pressEnter());
  await mounted.waitFor(`Switched to session ${other.ref.batonSessionId}`);
  await mounted.waitFor("older answer");

  expect(guard.calls).toEqual([]);
});

test("the guard sees a synchronous fs call made by a key handler (sanity)", async () => {
  const guard = screens.guard();
  await screens.mount({ guard });
  const fs = await import("node:fs");
  await guard.during(() => fs.default.existsSync("/"));
  expect(guard.calls).toHaveLength(1);
  expect(guard.calls[0]).toMatch(/^fs\.existsSync\("\/"\)/);
});

test("what Enter sets off right after the key writes the ledger line only; the preview reaches meta.json behind", async () => {
  const guard = screens.guard();
  const mounted = await screens.mount({ script: { turns: [[{ type: "text", text: "hi" }]] } });
  await mounted.type("remember this prompt");
  await guard.duringWithFollowUps(() => mounted.keys((k) => k.pressEnter()));
  await mounted.waitFor("fake · idle");
  const ledger = mounted.opened[0]!.ref.paths.ledger;
  expect(guard.calls.filter((call) => !call.startsWith(`fs.writeSync(fd `) || !call.includes(`${ledger})`))).toEqual([]);
  expect(guard.calls.length).toBeGreaterThan(0); // the user message itself: one write(2) into the page cache
  expect(mounted.opened[0]!.meta().preview).toBe("remember this prompt");
  await mounted.opened[0]!.close();
  expect(JSON.parse(require("node:fs").readFileSync(mounted.opened[0]!.ref.paths.meta, "utf8")).preview).toBe("remember this prompt");
});
