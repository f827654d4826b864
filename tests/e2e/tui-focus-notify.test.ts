/**
 * #20.1 through the real `baton` in tmux with the real Codex against the mock model server: the renderer's terminal
 * focus reports reach the notifier. A turn that ends while the terminal is focused notifies nothing; after a
 * focus-out report (`ESC [ O`) a turn that ends notifies once (OSC 9 + OSC 777 + BEL in the pane's raw output);
 * after a focus-in report (`ESC [ I`) the next turn notifies nothing again.
 */
import { describe, expect, test } from "bun:test";
import { codexTuiFile } from "../support/codex-tui.ts";
import { EXIT_MARKER } from "../support/tmux.ts";

const ENDED = "\u001b]9;Codex finished its turn\u0007\u001b]777;notify;Baton;Codex finished its turn\u0007\u0007";

const tui = codexTuiFile();

const count = (text: string, part: string): number => text.split(part).length - 1;

describe("turn end while the terminal is unfocused (tmux, real Codex)", () => {
  test("focus-out → the next turn's end notifies once; focused turns notify nothing", async () => {
    const { t, output } = await tui.start({
      codex: { approvalPolicy: "never", sandboxMode: "danger-full-access" },
      replies: [
        { kind: "text", text: "First answer." },
        { kind: "text", text: "Second answer." },
        { kind: "text", text: "Third answer." },
      ],
    });
    t.run(["set-option", "-g", "focus-events", "on"]);
    // A turn is over when the footer counts it and the activity line is idle (the answer's text may be the
    // mock's default: a title request can take a scripted reply).
    let turns = 0;
    const turn = async (prompt: string): Promise<void> => {
      t.type(prompt);
      t.keys("Enter");
      turns++;
      await t.waitFor(new RegExp(`· idle[\\s\\S]*turns:${turns} `), 30_000);
    };
    await t.waitFor(/Message Codex .*Ctrl\+J newline/, 30_000);

    await turn("first");
    expect(count(output(), ENDED)).toBe(0);

    // The terminal reports focus out (as tmux does with focus-events on): the turn that ends now notifies, once.
    t.run(["send-keys", "-t", "main", "-H", "1b", "5b", "4f"]);
    await turn("second");
    await Bun.sleep(200);
    expect(count(output(), ENDED)).toBe(1);
    expect(t.capture()).not.toContain("finished its turn");

    // Focus back in: nothing more.
    t.run(["send-keys", "-t", "main", "-H", "1b", "5b", "49"]);
    await turn("third");
    await Bun.sleep(200);
    expect(count(output(), ENDED)).toBe(1);
    t.keys("C-d");
    await t.waitFor(`${EXIT_MARKER}0]`, 20_000);
  }, 120_000);
});
