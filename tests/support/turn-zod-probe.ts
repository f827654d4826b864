/**
 * Run by tests/unit/turn-zod.test.ts in a process of its own: a session with another agent's turn behind it is
 * closed and opened again (as the TUI opens one), and its next turn carries that history to the agent (a context snapshot,
 * then its receipt). Prints whether zod was loaded before and after that turn, and the kinds the turn appended.
 */
import { zodLoaded } from "../../src/shared/lazy-schema.ts";
import { fakeDefinition } from "./fake-adapter.ts";
import { kindsOf, ledgerOf, makeTestHome, openTestSession } from "./session-host.ts";

const home = makeTestHome();
// The first turn is another agent's, so the second agent is sent it (a resumed agent is sent only others' turns).
const definitions = [fakeDefinition({ turns: [[{ type: "text", text: "second answer" }]] }, "fake"), fakeDefinition({ turns: [[{ type: "text", text: "first answer" }]] }, "other")];
const writer = await openTestSession(home, { definitions, settings: { generateTitles: false } });
await writer.controller.submit("other", [{ type: "text", text: "first question" }]);
const id = writer.ref.batonSessionId;
await writer.close();
const session = await openTestSession(home, { definitions, choice: { kind: "id", id }, verifyCheckpoint: "deferred", settings: { generateTitles: false } });
const before = zodLoaded();
const seen = ledgerOf(session).length;
await session.controller.submit("fake", [{ type: "text", text: "second question" }]);
const kinds = kindsOf(ledgerOf(session).slice(seen));
const after = zodLoaded();
await session.close();
home.cleanup();
process.stdout.write(`${JSON.stringify({ before, after, kinds })}\n`);
