/**
 * A snapshot is stored when it changes, not every time an agent repeats it (issue 12.14): Claude Code sends its
 * command list at every start, so every `exec` stored the same 4 KB again. Against the fake harness and the real
 * store: a repeated command list, context usage or config (EV-06 snapshot kinds) is not appended — in the same
 * process or after a reopen — a changed one is, and the projection holds the latest either way.
 */
import { describe, expect, test } from "bun:test";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { fakeDefinition, type FakeAction } from "../support/fake-adapter.ts";
import { ledgerOf, testSessions } from "../support/session-host.ts";
import { brand } from "../support/ids.ts";

const text = (value: string) => [{ type: "text" as const, text: value }];
const sessions = testSessions();

const commands = (...names: string[]): FakeAction => ({ type: "emit", draft: { kind: "available_commands_update", payload: { commands: names.map((name) => ({ name })) } } });
const context = (used: number): FakeAction => ({ type: "emit", draft: { kind: "context_usage_update", payload: { model: "fake-1", contextUsed: used, contextSize: 1000 } } });
const config = (value: string): FakeAction => ({ type: "emit", draft: { kind: "config_option_update", payload: { options: [{ id: "model", name: "Model", type: "select", value }] } } });
const snapshots = (events: readonly AnyEvent[]) =>
  events.filter((e) => ["available_commands_update", "context_usage_update", "config_option_update"].includes(e.kind)).map((e) => `${e.kind} ${JSON.stringify(e.payload)}`);

describe("snapshot kinds are stored when they change", () => {
  test("repeated snapshots are not appended, changed ones are; after a reopen the stored one counts", async () => {
    const fake = fakeDefinition({
      turns: [
        [commands("compact", "review"), context(100), config("fake-1")],
        [commands("compact", "review"), context(100), config("fake-1")],
        [commands("compact", "review", "init"), context(150), config("fake-1")],
      ],
    });
    const s = await sessions.open({ definitions: [fake] });
    for (const prompt of ["one", "two", "three"]) expect(await s.controller.submit("fake", text(prompt))).toBe("completed");
    expect(snapshots(ledgerOf(s))).toEqual([
      'available_commands_update {"commands":[{"name":"compact"},{"name":"review"}]}',
      'context_usage_update {"model":"fake-1","contextUsed":100,"contextSize":1000}',
      'config_option_update {"options":[{"id":"model","name":"Model","type":"select","value":"fake-1"}]}',
      'available_commands_update {"commands":[{"name":"compact"},{"name":"review"},{"name":"init"}]}',
      'context_usage_update {"model":"fake-1","contextUsed":150,"contextSize":1000}',
    ]);
    await s.close();
    sessions.forget(s);

    const again = fakeDefinition({ turns: [[commands("compact", "review", "init"), context(150)], [commands("compact")]] });
    const reopened = await sessions.open({ definitions: [again], choice: { kind: "id", id: s.ref.batonSessionId } }, true);
    const before = snapshots(ledgerOf(reopened)).length;
    expect(await reopened.controller.submit("fake", text("four"))).toBe("completed");
    expect(snapshots(ledgerOf(reopened)).length).toBe(before);
    expect(await reopened.controller.submit("fake", text("five"))).toBe("completed");
    expect(snapshots(ledgerOf(reopened)).slice(before)).toEqual(['available_commands_update {"commands":[{"name":"compact"}]}']);
    expect(reopened.controller.state.perTarget[brand.target("fake")]?.commands).toEqual([{ name: "compact" }]);
    expect(reopened.controller.state.perTarget[brand.target("fake")]?.contextUsage).toMatchObject({ contextUsed: 150 });
  });
});
