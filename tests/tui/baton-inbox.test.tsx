/**
 * #20.2 `/inbox` on the Baton screen: every project's waiting sessions in a picker (read from the disk, the open
 * session from memory); Enter opens one in its own directory, and `/sessions` then lists that project.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { makeTestHome, openTestSession, waitFor } from "../support/session-host.ts";
import { mountBaton, type BatonMounted } from "./baton-setup.tsx";

let mounted: BatonMounted | undefined;
afterEach(async () => {
  await mounted?.destroy();
  mounted = undefined;
});

describe("Baton screen: /inbox", () => {
  test("lists a session of another project that was waiting when Baton exited; Enter opens it in its directory", async () => {
    const home = makeTestHome();
    const elsewhere = path.join(path.dirname(home.cwd), "elsewhere");
    fs.mkdirSync(elsewhere);
    const waiting = await openTestSession(home, { cwd: elsewhere, definitions: [fakeDefinition({ turns: [[{ type: "permission", title: "Run npm test" }]] })], settings: { generateTitles: false } });
    void waiting.controller.submit("fake", [{ type: "text", text: "run the tests there" }]).catch(() => undefined);
    await waitFor(() => waiting.controller.state.pendingInteractionIds.length === 1, 5000, "the approval card");
    await waiting.close();

    mounted = await mountBaton({ home, script: { turns: [] } });
    const here = mounted.host.session.sessionId;
    await mounted.submit("/inbox");
    await mounted.waitFor(/Waiting for you[\s\S]*❯ approval \(Baton exited\) · \[fake\] run the tests there  was waiting/);
    await mounted.keys((k) => k.pressEnter());
    await mounted.waitFor(`Switched to session ${waiting.ref.batonSessionId}`);
    expect(mounted.host.session.cwd).toBe(waiting.ref.meta.cwd);
    expect(mounted.frame()).toContain("run the tests there");

    // Its project is the one /sessions lists now; the session Baton started with is in another project.
    await mounted.submit("/sessions");
    const sessions = await mounted.waitFor(/Sessions of this project[\s\S]*run the tests there/);
    expect(sessions).not.toContain(here);
  });

  test("with nothing waiting it says so and opens no picker", async () => {
    mounted = await mountBaton({ script: { turns: [] } });
    await mounted.submit("/inbox");
    await mounted.waitFor("Nothing waits for you");
    expect(mounted.frame()).not.toContain("Waiting for you");
  });
});
