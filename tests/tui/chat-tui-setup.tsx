/** Shared mounting helper for chat-tui component tests (not a test file itself). */
import { act } from "react";
import { testRender } from "@opentui/react/test-utils";
import {
  ChatApp,
  createChatStore,
  type ChatCommand,
  type ChatIntent,
  type ChatStatePatch,
  type ChatStore,
  type ChatSurface,
  type ChatTheme,
  type MentionQuery,
} from "chat-tui";
import { CodeRenderable, type TreeSitterClient } from "@opentui/core";
import { driver, renderablesOf, type Driver, type TestSetup } from "./driver.ts";

export { renderablesOf, tidy } from "./driver.ts";

export const COMMANDS: readonly ChatCommand[] = [
  { name: "model", description: "Pick the model" },
  { name: "mode", description: "Switch the mode" },
  { name: "effort", description: "Reasoning effort" },
  { name: "sessions", description: "Browse sessions", aliases: ["resume"] },
  { name: "clear", description: "Start a new session" },
];

/** A fixed wall clock (ms since epoch) that tests can move. */
export interface TestClock {
  now: () => number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function createTestClock(start = 1_700_000_000_000): TestClock {
  let t = start;
  return {
    now: () => t,
    set: (ms) => {
      t = ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

export interface MountOptions {
  readonly initial?: ChatStatePatch;
  readonly width?: number;
  readonly height?: number;
  readonly commands?: readonly ChatCommand[];
  readonly onMentionQuery?: MentionQuery;
  readonly clock?: TestClock;
  readonly kittyKeyboard?: boolean;
  readonly timelineWindow?: number;
  readonly theme?: ChatTheme;
  /** Highlights markdown and code (default: OpenTUI's shared tree-sitter client). */
  readonly treeSitterClient?: TreeSitterClient;
  readonly liveBlockChars?: number;
}

export interface Mounted extends Driver {
  readonly store: ChatStore;
  readonly intents: ChatIntent[];
  readonly renders: ChatSurface[];
  readonly clock: TestClock;
  commit(patch: ChatStatePatch): Promise<void>;
  resize(width: number, height: number): Promise<void>;
  destroy(): Promise<void>;
  readonly setup: TestSetup;
}

export async function mountChat(options: MountOptions = {}): Promise<Mounted> {
  const store = createChatStore(options.initial ?? {});
  const intents: ChatIntent[] = [];
  const renders: ChatSurface[] = [];
  const clock = options.clock ?? createTestClock();
  const setup = await testRender(
    <ChatApp
      store={store}
      onIntent={(i) => intents.push(i)}
      commands={options.commands ?? COMMANDS}
      now={clock.now}
      timelineWindow={options.timelineWindow ?? 100}
      onSurfaceRender={(s) => renders.push(s)}
      {...(options.onMentionQuery === undefined ? {} : { onMentionQuery: options.onMentionQuery })}
      {...(options.theme === undefined ? {} : { theme: options.theme })}
      {...(options.treeSitterClient === undefined ? {} : { treeSitterClient: options.treeSitterClient })}
      {...(options.liveBlockChars === undefined ? {} : { liveBlockChars: options.liveBlockChars })}
    />,
    {
      width: options.width ?? 80,
      height: options.height ?? 24,
      exitOnCtrlC: false,
      ...(options.kittyKeyboard === true ? { kittyKeyboard: true } : {}),
    },
  );
  const drive = driver(setup);
  await drive.render();
  await drive.render();
  const { render } = drive;
  return {
    ...drive,
    store,
    intents,
    renders,
    clock,
    setup,
    async commit(patch) {
      await act(async () => {
        store.commit(patch);
      });
      await render();
    },
    async resize(width, height) {
      await act(async () => {
        setup.resize(width, height);
      });
      await render();
      await render();
    },
    async destroy() {
      await act(async () => {
        setup.renderer.destroy();
      });
    },
  };
}

/** Renders until no code block is still highlighting (at most 50 rounds), then the frame. */
export async function highlightedFrame(mounted: Mounted): Promise<string> {
  for (let round = 0; round < 50; round++) {
    const pending = renderablesOf(mounted.setup.renderer.root, CodeRenderable).filter((c) => c.isHighlighting);
    if (round > 0 && pending.length === 0) break;
    await act(async () => {
      await Promise.all(pending.map((c) => c.highlightingDone));
    });
    await mounted.render();
  }
  return mounted.frame();
}
