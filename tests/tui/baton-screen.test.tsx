/**
 * The Baton screen end to end in the test renderer: a real session, a real controller and scripted fake
 * harnesses. Typing, streaming, approvals, Esc, queue and recall, pickers, plan mode, exit keys.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { act } from "react";
import { readLedgerFile } from "../../src/store/index.ts";
import { mountBaton, tidy, type BatonMounted } from "./baton-setup.tsx";
import { makeTestHome } from "../support/session-host.ts";
import { PAUSED_HINT } from "chat-tui";

let mounted: BatonMounted | undefined;
afterEach(async () => {
  await mounted?.destroy();
  mounted = undefined;
});

const ledgerKinds = (m: BatonMounted): string[] => readLedgerFile(m.opened.at(-1)!.ref.paths.ledger).map((e) => e.kind);

describe("Baton screen", () => {
  test("first frame: header with the session id, idle activity, placeholder and footer", async () => {
    mounted = await mountBaton();
    const id = mounted.host.session.sessionId;
    const frame = mounted.frame();
    expect(frame.split("\n")[0]).toContain(`baton · session ${id}`);
    expect(frame).toContain("/fake switch agent");
    expect(frame).toContain("fake · idle");
    expect(frame).toContain("Message Fake fake (/ commands, @ mentions, Shift+Tab mode, Ctrl+J newline)");
    expect(frame).toContain(`session: ${id}`);
    expect(frame).toContain("queue:0");
    expect(frame).toContain("cwd:");
  });

  test("a prompt streams the agent's answer; the footer counts the turn and tokens", async () => {
    mounted = await mountBaton({ script: { turns: [[{ type: "text", text: "Hello **there**, friend.", chunks: 4 }, { type: "usage", input: 12, output: 34 }]] } });
    await mounted.submit("say hello");
    await mounted.waitFor("Hello there, friend.");
    const frame = await mounted.waitFor("turns:1");
    expect(frame).toContain("› say hello");
    expect(frame).toContain("in:12 out:34");
    expect(mounted.adapters()[0]!.record.prompts[0]!.blocks).toEqual([{ type: "text", text: "say hello" }]);
    expect(mounted.titles.at(-1)).toBe("say hello");
  });

  test("a generated session title reaches the terminal's title when it is generated, not at the next turn's end", async () => {
    // The title takes a while (as a real harness's does): it lands after the first turn's summary.
    mounted = await mountBaton({ script: { turns: [[{ type: "text", text: "Hi there." }]], title: "Greet the user", titleDelayMs: 150 } });
    await mounted.submit("say hello");
    await mounted.waitFor("Hi there.");
    expect(await mounted.opened[0]!.controller.titleGeneration).toBe("Greet the user");
    await mounted.until(() => mounted?.titles.at(-1) === "Greet the user");
    expect(mounted.titles.slice(-2)).toEqual(["say hello", "Greet the user"]);
    expect(mounted.adapters()[0]!.record.prompts).toHaveLength(1);
  });

  test("an approval card: 1 allows, the tool runs and its block reads Ran", async () => {
    mounted = await mountBaton({
      script: { turns: [[{ type: "permission", title: "Run ls -la", toolCallId: "tool-1" }, { type: "text", text: "listed" }]] },
    });
    await mounted.submit("list files");
    const card = await mounted.waitFor("1. Allow once");
    expect(card).toContain("Run ls -la");
    expect(card).toContain("2. Deny");
    expect(card).toContain("waiting for you…");
    await mounted.keys((k) => k.pressKey("1"));
    const frame = await mounted.waitFor("listed");
    expect(frame).toContain("→ approved");
    expect(mounted.adapters()[0]!.record.answers).toEqual([{ outcome: "selected", optionId: "allow" }]);
    expect(frame).not.toContain("1. Allow once");
  });

  test("Esc on a card answers the card (cancelled) and interrupts the turn; no lingering card", async () => {
    mounted = await mountBaton({
      script: { turns: [[{ type: "permission", title: "Delete everything" }, { type: "wait", ms: 2000 }, { type: "text", text: "never" }]] },
    });
    await mounted.submit("go");
    await mounted.waitFor("Delete everything");
    await mounted.escape();
    await mounted.waitFor("fake · idle");
    expect(mounted.adapters()[0]!.record.answers).toEqual([{ outcome: "cancelled", reason: "user" }]);
    expect(mounted.frame()).not.toContain("never");
    expect(mounted.host.controller.pendingInteractions()).toEqual([]);
  });

  test("Esc interrupts the running turn; Esc while idle does nothing", async () => {
    mounted = await mountBaton({ script: { turns: [[{ type: "text", text: "working on it" }, { type: "waitForCancel" }]] } });
    await mounted.escape();
    expect(mounted.adapters()).toHaveLength(0);
    await mounted.submit("long task");
    const running = await mounted.waitFor("Esc to interrupt");
    expect(running).toMatch(/fake · thinking… \(\d\d:\d\d\)/);
    // Wait until the adapter runs the turn: an Esc while the turn is still being prepared ends it without
    // asking the adapter (a different path, covered by the controller tests).
    await mounted.waitFor("working on it");
    await mounted.escape();
    await mounted.waitFor("fake · idle");
    expect(mounted.adapters()[0]!.record.cancels).toHaveLength(1);
    expect(ledgerKinds(mounted)).toContain("_baton_turn_summary");
  });

  test("Enter while a turn runs queues (harness refuses steering); the follow-up runs after; ↑ recalls the latest queued", async () => {
    mounted = await mountBaton({
      script: { turns: [[{ type: "text", text: "first answer" }, { type: "wait", ms: 400 }], [{ type: "text", text: "second answer" }]] },
    });
    await mounted.submit("first");
    await mounted.waitFor("first answer");
    await mounted.submit("second");
    await mounted.submit("third");
    let frame = await mounted.waitFor("queue:2");
    expect(frame).toContain("↑ recall queued");
    expect(frame).toContain("third");
    await mounted.keys((k) => k.pressArrow("up"));
    frame = await mounted.waitFor("queue:1");
    expect(mounted.draft()).toBe("third");
    expect(frame).toContain("Recalled queued message");
    await mounted.waitFor("second answer", 4000);
    const prompts = mounted.adapters()[0]!.record.prompts.map((p) => p.blocks[0]);
    expect(prompts).toEqual([{ type: "text", text: "first" }, { type: "text", text: "second" }]);
  });

  test("a queue left by a previous run comes back paused: the hint, both inputs, nothing sent; Esc drops the latest, Enter sends the rest", async () => {
    const home = makeTestHome();
    const before = await mountBaton({ home, script: { turns: [[{ type: "text", text: "busy" }, { type: "waitForCancel" }]] } });
    await before.submit("first");
    await before.waitFor("busy");
    await before.submit("second");
    await before.submit("third");
    await before.waitFor("queue:2");
    const id = before.host.session.sessionId;
    await before.destroy();
    mounted = await mountBaton({ home, choice: { kind: "id", id }, script: { turns: [[{ type: "text", text: "second answer" }]] } });
    let frame = await mounted.waitFor(PAUSED_HINT);
    expect(frame).toContain("⏸ paused → fake: second");
    expect(frame).toContain("⏸ paused → fake: third");
    expect(mounted.adapters()).toHaveLength(0);
    await mounted.escape();
    frame = await mounted.waitFor("Dropped queued message “third”");
    expect(frame).not.toContain("⏸ paused → fake: third");
    await mounted.keys((k) => k.pressEnter());
    await mounted.waitFor("second answer");
    expect(mounted.adapters()[0]!.record.prompts.map((p) => p.blocks.at(-1))).toEqual([{ type: "text", text: "second" }]);
    expect(mounted.frame()).not.toContain(PAUSED_HINT);
    const exits = readLedgerFile(mounted.opened[0]!.ref.paths.ledger).filter((e) => e.kind === "_baton_input_update").map((e) => (e.payload as { state: string }).state);
    expect(exits).toEqual(["dropped"]);
    await mounted.destroy();
    mounted = undefined;
    home.cleanup();
  });

  test("↑ on a paused queue takes the latest paused input into the composer (recorded), and it is not sent", async () => {
    const home = makeTestHome();
    const before = await mountBaton({ home, script: { turns: [[{ type: "text", text: "busy" }, { type: "waitForCancel" }]] } });
    await before.submit("first");
    await before.waitFor("busy");
    await before.submit("edit me later");
    await before.waitFor("queue:1");
    const id = before.host.session.sessionId;
    await before.destroy();
    mounted = await mountBaton({ home, choice: { kind: "id", id } });
    await mounted.waitFor(PAUSED_HINT);
    await mounted.keys((k) => k.pressArrow("up"));
    await mounted.waitFor("Recalled queued message");
    expect(mounted.draft()).toBe("edit me later");
    expect(mounted.frame()).not.toContain(PAUSED_HINT);
    expect(mounted.adapters()).toHaveLength(0);
    await mounted.destroy();
    mounted = undefined;
    home.cleanup();
  });

  test("the 'steering …' hint goes when its turn ends, not seconds later (#11.15)", async () => {
    mounted = await mountBaton({ script: { steer: "steer", turns: [[{ type: "text", text: "working" }, { type: "wait", ms: 600 }, { type: "text", text: " done" }]] } });
    await mounted.submit("start");
    await mounted.waitFor("working");
    await mounted.submit("also this");
    await mounted.waitFor("steering fake — applies at the next safe point");
    const idle = await mounted.waitFor("fake · idle", 3000);
    // The toast would last 3 s; the turn ended well before that, and the hint with it.
    expect(idle).not.toContain("steering fake");
  });

  test("/model opens a picker of the adapter's models; choosing one applies next turn and is remembered", async () => {
    mounted = await mountBaton();
    await mounted.submit("/model");
    const picker = await mounted.waitFor("Fake 2");
    expect(picker).toContain("Fake fake model");
    await mounted.keys((k) => k.pressArrow("down"));
    await mounted.keys((k) => k.pressEnter());
    const frame = await mounted.waitFor("takes effect next turn");
    expect(frame).toContain("model: Fake 2");
    expect(frame).toContain("fake-2 · idle");
    expect(mounted.opened[0]!.meta().harnessSessions["fake"]?.model).toBe("fake-2");
  });

  test("/model with an argument matches id or name case-insensitively; unknown ones are refused", async () => {
    mounted = await mountBaton();
    await mounted.submit("/model FAKE 2");
    await mounted.waitFor("fake-2 · idle");
    await mounted.submit("/model nope");
    await mounted.waitFor("Unknown Fake fake model 'nope'");
  });

  test("Shift+Tab and /plan toggle plan mode", async () => {
    mounted = await mountBaton();
    await mounted.keys((k) => k.pressTab({ shift: true }));
    let frame = await mounted.waitFor("plan mode (shift+tab to cycle)");
    expect(frame).toContain("· plan mode");
    expect(mounted.opened[0]!.meta().harnessSessions["fake"]?.mode).toBe("plan");
    await mounted.submit("/plan");
    frame = await mounted.waitFor("plan mode off");
    expect(frame).not.toContain("shift+tab to cycle");
  });

  test("/other switches the target and sends the rest; colours and author follow the target", async () => {
    mounted = await mountBaton({ second: { turns: [[{ type: "text", text: "from other" }]] }, secondColor: "#00ff00" });
    await mounted.submit("/other hi there");
    const frame = await mounted.waitFor("from other");
    expect(frame).toContain("Message Fake other");
    expect(frame).toContain("● other");
    expect(mounted.colourOf("other", "● other")).toBe("#00ff00");
    expect(frame).toContain("other · idle");
    expect(mounted.adapters("other")[0]!.record.prompts[0]!.blocks).toEqual([{ type: "text", text: "hi there" }]);
    expect(mounted.adapters("fake").flatMap((a) => a.record.prompts)).toEqual([]);
  });

  test("an ambiguous /<prefix> names the matches and sends nothing; /tmp/x is a prompt", async () => {
    mounted = await mountBaton({ second: { turns: [] }, secondId: "fable" });
    await mounted.submit("/fa do it");
    await mounted.waitFor("'/fa' matches fable, fake; nothing was sent");
    expect(mounted.adapters("fake").flatMap((a) => a.record.prompts)).toEqual([]);
    await mounted.submit("/tmp/x please");
    await mounted.waitFor("› /tmp/x please");
    await mounted.until(() => mounted!.adapters("fake")[0]?.record.prompts.length === 1);
    expect(mounted.adapters("fake")[0]!.record.prompts[0]!.blocks).toEqual([{ type: "text", text: "/tmp/x please" }]);
  });

  test("a mistyped command (/modle) is not sent: the nearest command is suggested and the text comes back (#11.15)", async () => {
    mounted = await mountBaton();
    await mounted.submit("/modle gpt-5");
    await mounted.waitFor("Unknown command '/modle' — did you mean /model? Nothing was sent");
    expect(mounted.draft()).toBe("/modle gpt-5");
    await mounted.keys((k) => k.pressKey("u", { ctrl: true }));
    await mounted.submit("/stauts");
    await mounted.waitFor("did you mean /status?");
    expect(mounted.adapters("fake").flatMap((a) => a.record.prompts)).toEqual([]);
    expect(ledgerKinds(mounted)).toEqual([]);
  });

  test("/help lists the commands, the agents and the keys", async () => {
    mounted = await mountBaton({ second: { turns: [] }, secondId: "other", height: 60 });
    await mounted.submit("/help");
    const frame = await mounted.waitFor("Keys");
    for (const line of [/\/model\s+Choose the model/, /\/exit, \/quit\s+Exit Baton/, /\/help\s+Commands, keys and agents/, /\/fake, \/fx\s+Fake fake\s+← current/, /\/other, \/ox\s+Fake other/, /Esc\s+answer the open card/, /Ctrl\+O\s+expand or fold/, /Shift\+Tab\s+plan mode/]) {
      expect(frame).toMatch(line);
    }
    expect(ledgerKinds(mounted)).toEqual([]);
  });

  test("/status shows session, agent, cwd and tokens as a transient item", async () => {
    mounted = await mountBaton();
    await mounted.submit("/status");
    const frame = await mounted.waitFor("tokens   in:0 out:0");
    expect(frame).toContain(`session  ${mounted.host.session.sessionId}`);
    expect(frame).toContain("agent    Fake fake (fake)");
    expect(frame).toContain(`cwd      ${mounted.home.cwd}`);
    expect(ledgerKinds(mounted)).toEqual([]);
  });

  test("Ctrl+C clears the draft, a second Ctrl+C within 1.5 s exits", async () => {
    mounted = await mountBaton();
    let exited = false;
    void mounted.host.exitRequested.then(() => (exited = true));
    await mounted.type("some draft");
    await mounted.keys((k) => k.pressCtrlC());
    expect(mounted.draft()).toBe("");
    expect(await mounted.waitFor("Press Ctrl+C again to exit")).toBeTruthy();
    expect(exited).toBe(false);
    await mounted.keys((k) => k.pressCtrlC());
    await act(async () => {
      await Promise.resolve();
    });
    expect(exited).toBe(true);
    expect(await mounted.waitFor("Exiting…")).toBeTruthy();
  });

  test("Ctrl+D exits only on an empty idle composer", async () => {
    mounted = await mountBaton();
    let exited = false;
    void mounted.host.exitRequested.then(() => (exited = true));
    await mounted.type("x");
    await mounted.keys((k) => k.pressKey("d", { ctrl: true }));
    await act(async () => {
      await Promise.resolve();
    });
    expect(exited).toBe(false);
    await mounted.keys((k) => k.pressBackspace());
    await mounted.keys((k) => k.pressKey("d", { ctrl: true }));
    await act(async () => {
      await Promise.resolve();
    });
    expect(exited).toBe(true);
  });

  test("resize re-lays out and refits the footer", async () => {
    mounted = await mountBaton({ width: 120 });
    expect(mounted.frame()).toContain("fake · cwd:");
    await mounted.resize(70, 20);
    const frame = tidy(mounted.frame());
    expect(frame.split("\n").every((line) => line.length <= 70)).toBe(true);
    expect(frame).toContain("queue:0");
    expect(frame).toContain("cwd:");
  });
});

describe("control sequences from agents and tools (#11.11)", () => {
  const ESC = "\u001b";
  // eslint-disable-next-line no-control-regex
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
  const strings = (value: unknown): string[] =>
    typeof value === "string" ? [value] : typeof value === "object" && value !== null ? Object.values(value).flatMap(strings) : [];

  test("never reach the screen: streamed text, tool output, cards and notices are shown without them", async () => {
    mounted = await mountBaton({
      script: {
        turns: [
          [
            { type: "text", text: `copy${ESC}]52;c;cHduZWQ=\u0007 title${ESC}]0;pwned\u0007 clear${ESC}[2J done`, chunks: 5 },
            { type: "tool", id: "tool-1", title: `ls ${ESC}[31mred${ESC}[0m`, output: `out${ESC}]2;pwned${ESC}\\put\r\n` },
            { type: "permission", title: `Run ${ESC}]0;evil\u0007rm`, toolCallId: "tool-2" },
          ],
        ],
      },
    });
    await mounted.submit("go");
    const frame = await mounted.waitFor("1. Allow once");
    expect(frame).toContain("copy title clear done");
    expect(frame).toContain("ls red");
    expect(frame).toContain("Run rm");
    for (const key of ["timeline", "composer", "activity", "footer"] as const) {
      expect(strings(mounted.host.store.get(key)).filter((text) => CONTROL.test(text))).toEqual([]);
    }
    expect(CONTROL.test(frame)).toBe(false);
  });
});
