/** Shared mounting helper for chat-tui component tests (not a test file itself). */
import { act } from "react";
import { testRender } from "@opentui/react/test-utils";
import { isEditBufferRenderable } from "@opentui/core";
import type { MockInput } from "@opentui/core/testing";
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
} from "../../packages/chat-tui/src/index.ts";

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
}

export interface Mounted {
  readonly store: ChatStore;
  readonly intents: ChatIntent[];
  readonly renders: ChatSurface[];
  readonly clock: TestClock;
  frame(): string;
  render(): Promise<void>;
  keys(fn: (input: MockInput) => void | Promise<void>): Promise<void>;
  type(text: string): Promise<void>;
  escape(): Promise<void>;
  commit(patch: ChatStatePatch): Promise<void>;
  resize(width: number, height: number): Promise<void>;
  /** Text of the focused editor (composer textarea or a card/picker input). */
  draft(): string;
  destroy(): Promise<void>;
  readonly setup: Awaited<ReturnType<typeof testRender>>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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
    />,
    {
      width: options.width ?? 80,
      height: options.height ?? 24,
      exitOnCtrlC: false,
      ...(options.kittyKeyboard === true ? { kittyKeyboard: true } : {}),
    },
  );
  const render = async (): Promise<void> => {
    await act(async () => {
      await setup.renderOnce();
    });
  };
  await render();
  await render();
  return {
    store,
    intents,
    renders,
    clock,
    setup,
    frame: () => setup.captureCharFrame(),
    render,
    async keys(fn) {
      await act(async () => {
        await fn(setup.mockInput);
      });
      await render();
    },
    async type(text) {
      await act(async () => {
        await setup.mockInput.typeText(text);
      });
      await render();
    },
    async escape() {
      await act(async () => {
        setup.mockInput.pressEscape();
        await sleep(30);
      });
      await render();
    },
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
    draft() {
      const focused = setup.renderer.currentFocusedRenderable;
      return focused !== null && isEditBufferRenderable(focused) ? focused.plainText : "";
    },
    async destroy() {
      await act(async () => {
        setup.renderer.destroy();
      });
    },
  };
}

/** Frame with trailing spaces trimmed per line and trailing blank lines dropped (stable snapshots). */
export function tidy(frame: string): string {
  return frame
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .replace(/\n+$/, "");
}
