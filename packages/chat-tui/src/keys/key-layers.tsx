import { createContext, useContext, useLayoutEffect, useMemo, useRef, type ReactNode } from "react";
import type { KeyEvent } from "@opentui/core";
import { useAppContext } from "@opentui/react";

/**
 * Layered key routing (VIEW-05): one key does one thing. Every surface registers a layer with a priority;
 * the single keyboard hook offers each key to the layers from the highest priority down.
 *
 * - "consume": the layer handled the key; nobody else sees it (not even the focused editor).
 * - "editor": stop offering the key to lower layers, but let the focused editor/input type it.
 * - "pass": not mine; offer it to the next layer. If every layer passes, the focused editor gets it.
 *
 * The keyboard subscription and every layer are in place when React commits, in layout effects: the first frame
 * can be painted, and a key read, before passive effects run (`useKeyboard` and `useEffect` subscribe only then),
 * and such a key went straight to the focused editor — a Ctrl+D on the first idle frame was ignored, an Enter
 * typed a newline instead of sending.
 */
export type KeyOutcome = "consume" | "editor" | "pass";

export type KeyLayerHandler = (key: KeyEvent) => KeyOutcome;

/** Priorities, highest first. */
export const KeyLayer = {
  system: 100,
  overlay: 90,
  picker: 80,
  modal: 60,
  popup: 40,
  editing: 30,
  surface: 20,
  application: 10,
} as const;

interface Registration {
  readonly priority: number;
  readonly order: number;
  readonly handler: { current: KeyLayerHandler };
}

interface KeyLayerRegistry {
  register(priority: number, handler: { current: KeyLayerHandler }): () => void;
}

const KeyLayerContext = createContext<KeyLayerRegistry | null>(null);

export function KeyLayerProvider(props: { readonly children: ReactNode }): ReactNode {
  const layers = useRef<Registration[]>([]);
  const counter = useRef(0);
  const registry = useMemo<KeyLayerRegistry>(
    () => ({
      register(priority, handler) {
        const entry: Registration = { priority, order: counter.current++, handler };
        layers.current = [...layers.current, entry].sort((a, b) => b.priority - a.priority || a.order - b.order);
        return () => {
          layers.current = layers.current.filter((l) => l !== entry);
        };
      },
    }),
    [],
  );
  const { keyHandler } = useAppContext();
  useLayoutEffect(() => {
    if (keyHandler === null) return;
    const onKey = (key: KeyEvent): void => {
      for (const layer of layers.current) {
        const outcome = layer.handler.current(key);
        if (outcome === "pass") continue;
        if (outcome === "consume") {
          key.preventDefault();
          key.stopPropagation();
        }
        return;
      }
    };
    keyHandler.on("keypress", onKey);
    return () => {
      keyHandler.off("keypress", onKey);
    };
  }, [keyHandler]);
  return <KeyLayerContext.Provider value={registry}>{props.children}</KeyLayerContext.Provider>;
}

/** Registers `handler` at `priority` for the component's lifetime; the latest handler is always used. */
export function useKeyLayer(priority: number, handler: KeyLayerHandler): void {
  const registry = useContext(KeyLayerContext);
  if (registry === null) throw new Error("useKeyLayer needs a KeyLayerProvider");
  const ref = useRef(handler);
  ref.current = handler;
  useLayoutEffect(() => registry.register(priority, ref), [registry, priority]);
}

/** True for a key that types a character (no ctrl/meta, a printable sequence). */
export function isPrintable(key: KeyEvent): boolean {
  if (key.ctrl || key.meta || key.super === true || key.hyper === true) return false;
  if (key.name === "space") return true;
  const seq = key.sequence;
  if (seq === undefined || seq.length === 0) return false;
  const code = seq.charCodeAt(0);
  return code >= 32 && code !== 127;
}

export function isPlainKey(key: KeyEvent, name: string): boolean {
  return key.name === name && !key.ctrl && !key.meta && !key.shift;
}

export function isCtrl(key: KeyEvent, name: string): boolean {
  return key.name === name && key.ctrl && !key.meta;
}
