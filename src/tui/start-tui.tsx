/**
 * Takes the terminal (TUI-01 renderer settings: no automatic Ctrl+C exit, ~30 FPS, no mouse, no auto-focus,
 * opaque background) and mounts the Baton screen. The caller opened the session before this, so any error
 * up to here printed as plain text; it also decides when to destroy the renderer (after the session closed).
 */
import { createCliRenderer, type CliRenderer } from "@opentui/core";
import { createRoot } from "@opentui/react";
import { BatonApp } from "./baton-app.tsx";
import type { TuiHost } from "./tui-host.ts";

export const BACKGROUND = "#1b1e26";

export interface StartedTui {
  readonly renderer: CliRenderer;
  /** Unmount and give the terminal back (raw mode off, screen restored). Idempotent. */
  destroy(): void;
}

export interface StartTuiOptions {
  /** Called once, when the first frame was drawn. */
  readonly onFirstFrame?: () => void;
  /** Called when the renderer went away by itself (e.g. the terminal closed). */
  readonly onRendererGone?: () => void;
}

/** Baton's renderer settings, shared by the session screen and the pre-screen picker. */
export function createBatonRenderer(onDestroy?: () => void): Promise<CliRenderer> {
  return createCliRenderer({
    exitOnCtrlC: false,
    // Signals are the app's to handle: it runs the shutdown order, then destroys the renderer.
    exitSignals: [],
    targetFps: 30,
    useMouse: false,
    autoFocus: false,
    backgroundColor: BACKGROUND,
    screenMode: "alternate-screen",
    ...(onDestroy ? { onDestroy } : {}),
  });
}

export async function startTui(host: TuiHost, options: StartTuiOptions = {}): Promise<StartedTui> {
  let destroying = false;
  const renderer = await createBatonRenderer(() => {
    if (!destroying) options.onRendererGone?.();
  });
  const root = createRoot(renderer);
  if (options.onFirstFrame !== undefined) {
    const first = options.onFirstFrame;
    const onFrame = (): void => {
      renderer.off("frame", onFrame);
      first();
    };
    renderer.on("frame", onFrame);
  }
  host.resize(renderer.width);
  renderer.on("resize", (width: number) => host.resize(width));
  root.render(<BatonApp host={host} />);
  return {
    renderer,
    destroy() {
      if (destroying) return;
      destroying = true;
      try {
        root.unmount();
      } finally {
        if (!renderer.isDestroyed) renderer.destroy();
      }
    },
  };
}
