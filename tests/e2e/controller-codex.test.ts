/** The controller with the real Codex adapter in-process: steering a running turn reaches the model. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { codexDefinition } from "../../src/harness/codex/definition.ts";
import { selectTranscript } from "../../src/projection/index.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { makeCodexHome } from "../support/codex-home.ts";
import { openRealSession, waitFor } from "../support/session-host.ts";

let mock: MockResponses;
beforeAll(async () => {
  mock = await startMockResponses();
});
afterAll(async () => {
  await mock.stop();
});

test("a prompt during a slow Codex turn is a steer: one turn, and the model's next request carries the steer text", async () => {
  const home = makeCodexHome({ baseUrl: mock.baseUrl });
  await mock.script([{ kind: "text", text: "slow ".repeat(60), chunkSize: 5, delayMs: 50 }, { kind: "text", text: "steered answer" }]);
  const { session, cleanup } = await openRealSession({ definitions: [codexDefinition], cwd: home.workdir, env: home.env, settings: { generateTitles: false } });
  try {
    const first = session.controller.submit("codex", [{ type: "text", text: "write slowly" }]);
    await waitFor(() => selectTranscript(session.controller.state).some((entry) => entry.type === "message" && entry.item.role === "agent"), 20_000, "streamed text");
    const steer = session.controller.submit("codex", [{ type: "text", text: "ALSO MENTION BANANAS" }]);
    expect(await first).toBe("completed");
    expect(await steer).toBe("completed");
    const requests = await mock.requests();
    expect(JSON.stringify(requests.at(-1)!.body)).toContain("ALSO MENTION BANANAS");
    const summaries = session.controller.state.turnSummaries;
    expect(summaries.length).toBe(1);
  } finally {
    await cleanup();
    home.cleanup();
  }
}, 60_000);
