import { useCallback, useSyncExternalStore } from "react";
import type { ChatStore } from "./store.ts";
import type { ChatStateKey, ChatStates } from "./types.ts";

/** Subscribes a component to one state of the store; re-renders only when that state changes. */
export function useChatState<K extends ChatStateKey>(store: ChatStore, key: K): ChatStates[K] {
  const subscribe = useCallback((onChange: () => void) => store.subscribe(key, onChange), [store, key]);
  const get = useCallback(() => store.get(key), [store, key]);
  return useSyncExternalStore(subscribe, get, get);
}

/** Subscribes to a value derived from one state; re-renders only when that value changes (`Object.is`). */
export function useChatSelection<K extends ChatStateKey, T>(store: ChatStore, key: K, select: (state: ChatStates[K]) => T): T {
  const subscribe = useCallback((onChange: () => void) => store.subscribe(key, onChange), [store, key]);
  const get = (): T => select(store.get(key));
  return useSyncExternalStore(subscribe, get, get);
}
