import { useCallback, useSyncExternalStore } from "react";
import type { ChatStore } from "./store.ts";
import type { ChatStateKey, ChatStates } from "./types.ts";

/** Subscribes a component to one state of the store; re-renders only when that state changes. */
export function useChatState<K extends ChatStateKey>(store: ChatStore, key: K): ChatStates[K] {
  const subscribe = useCallback((onChange: () => void) => store.subscribe(key, onChange), [store, key]);
  const get = useCallback(() => store.get(key), [store, key]);
  return useSyncExternalStore(subscribe, get, get);
}
