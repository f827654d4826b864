/**
 * The input/render half shared by the TUI mount helpers: every key press or typed text runs inside
 * React's act() and is followed by a render, so assertions read a settled frame. Not a test file.
 */
import { act } from "react";
import type { testRender } from "@opentui/react/test-utils";
import { isEditBufferRenderable } from "@opentui/core";
import type { MockInput } from "@opentui/core/testing";

export type TestSetup = Awaited<ReturnType<typeof testRender>>;

export interface Driver {
  frame(): string;
  render(): Promise<void>;
  keys(fn: (input: MockInput) => void | Promise<void>): Promise<void>;
  type(text: string): Promise<void>;
  escape(): Promise<void>;
  /** Text of the focused editor (composer textarea or a card/picker input). */
  draft(): string;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function driver(setup: TestSetup): Driver {
  const render = async (): Promise<void> => {
    await act(async () => {
      await setup.renderOnce();
    });
  };
  return {
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
    draft() {
      const focused = setup.renderer.currentFocusedRenderable;
      return focused !== null && isEditBufferRenderable(focused) ? focused.plainText : "";
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
