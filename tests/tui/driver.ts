/**
 * The input/render half shared by the TUI mount helpers: every key press or typed text runs inside
 * React's act() and is followed by a render, so assertions read a settled frame. Not a test file.
 */
import { act } from "react";
import type { testRender } from "@opentui/react/test-utils";
import { isEditBufferRenderable, type Renderable } from "@opentui/core";
import type { MockInput } from "@opentui/core/testing";
import type { SyncIoGuard } from "./sync-io-guard.ts";

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

/** With a `guard`, every key press and every render runs armed (PROC-01: no synchronous I/O there). */
export function driver(setup: TestSetup, guard?: SyncIoGuard): Driver {
  const armed = (fn: () => unknown): Promise<void> => (guard ? guard.during(fn) : Promise.resolve(fn()).then(() => undefined));
  const render = async (): Promise<void> => {
    await act(async () => {
      await armed(() => setup.renderOnce());
    });
  };
  return {
    frame: () => setup.captureCharFrame(),
    render,
    async keys(fn) {
      await act(async () => {
        await armed(() => fn(setup.mockInput));
      });
      await render();
    },
    async type(text) {
      await act(async () => {
        await armed(() => setup.mockInput.typeText(text));
      });
      await render();
    },
    async escape() {
      await act(async () => {
        await armed(() => setup.mockInput.pressEscape());
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

/** Every renderable of class `kind` under `node`, depth first (the tree the frame was drawn from). */
export function renderablesOf<T extends Renderable>(node: Renderable, kind: abstract new (...args: never[]) => T, out: T[] = []): T[] {
  if (node instanceof kind) out.push(node);
  for (const child of node.getChildren()) renderablesOf(child, kind, out);
  return out;
}
