/**
 * A key that arrives right after the screen mounted is handled (the flake in tui-claude "-c, -s and resume
 * cc:…": Ctrl+D on the first idle frame was ignored). The key layers and the keyboard subscription are in place
 * once React has committed the screen, not only after its passive effects ran (which may be after the first frame
 * was painted and a key read). Rendered without `act` (which would run the passive effects at once), the key is
 * sent from a layout effect of a sibling that commits after the screen: the moment between commit and passive
 * effects, made deterministic.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { useLayoutEffect } from "react";
import { createTestRenderer } from "@opentui/core/testing";
import { createRoot } from "@opentui/react";
import { ChatApp, createChatStore, type ChatIntent } from "chat-tui";
import { COMMANDS, createTestClock } from "./chat-tui-setup.tsx";

type Setup = Awaited<ReturnType<typeof createTestRenderer>>;
let setup: Setup | undefined;
let root: ReturnType<typeof createRoot> | undefined;

afterEach(() => {
  root?.unmount();
  setup?.renderer.destroy();
  root = undefined;
  setup = undefined;
});

/** Presses `key` during the commit that mounts it (after the components before it were committed). */
function PressOnCommit(props: { readonly press: () => void }): null {
  useLayoutEffect(() => props.press(), [props]);
  return null;
}

describe("keys at mount", () => {
  for (const [name, press, expected] of [
    ["Ctrl+D on an empty composer exits", (s: Setup) => s.mockInput.pressKey("d", { ctrl: true }), "exit"],
    ["Shift+Tab cycles the mode", (s: Setup) => s.mockInput.pressTab({ shift: true }), "cycleMode"],
  ] as const) {
    test(`${name}, also when the key arrives before the screen's passive effects ran`, async () => {
      const current = await createTestRenderer({ width: 80, height: 24, exitOnCtrlC: false });
      setup = current;
      const intents: ChatIntent[] = [];
      const clock = createTestClock();
      let pressed = false;
      root = createRoot(current.renderer);
      root.render(
        <>
          <ChatApp store={createChatStore({})} onIntent={(intent) => intents.push(intent)} commands={COMMANDS} now={clock.now} />
          <PressOnCommit
            press={() => {
              pressed = true;
              press(current);
            }}
          />
        </>,
      );
      while (!pressed) await new Promise((resolve) => setTimeout(resolve, 5));
      // Let React run the passive effects and draw the frame: a handler registered only then must not count.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await current.renderOnce();
      expect(intents.map((intent) => intent.type)).toContain(expected);
    });
  }
});
