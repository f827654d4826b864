import type { ChatStateKey, ChatStates } from "./types.ts";

export type ChatStatePatch = { [K in ChatStateKey]?: ChatStates[K] };

export type ChatStoreListener = () => void;

/**
 * Holder of the five view states. `commit` replaces whole states atomically and then notifies only the
 * subscribers of states that really changed. A replacement that is shallow-equal to the current state keeps
 * the current object, so unchanged states keep their identity.
 */
export interface ChatStore {
  get<K extends ChatStateKey>(key: K): ChatStates[K];
  snapshot(): ChatStates;
  commit(patch: ChatStatePatch): void;
  subscribe(key: ChatStateKey, listener: ChatStoreListener): () => void;
}

const KEYS: readonly ChatStateKey[] = ["timeline", "composer", "activity", "footer", "sidecar"];

const EMPTY_STATES: ChatStates = {
  timeline: { items: [] },
  composer: {},
  activity: {},
  footer: {},
  sidecar: undefined,
};

export function createChatStore(initial: ChatStatePatch = {}): ChatStore {
  let states: ChatStates = { ...EMPTY_STATES, ...initial };
  const listeners = new Map<ChatStateKey, Set<ChatStoreListener>>(KEYS.map((k) => [k, new Set()]));

  function commit(patch: ChatStatePatch): void {
    const changed: ChatStateKey[] = [];
    const next: Record<string, unknown> = { ...states };
    for (const key of KEYS) {
      if (!Object.hasOwn(patch, key)) continue;
      const value = patch[key];
      if (shallowEqual(states[key], value)) continue;
      next[key] = value;
      changed.push(key);
    }
    if (changed.length === 0) return;
    states = next as unknown as ChatStates;
    for (const key of changed) {
      for (const listener of [...(listeners.get(key) ?? [])]) listener();
    }
  }

  return {
    get: (key) => states[key],
    snapshot: () => states,
    commit,
    subscribe(key, listener) {
      const set = listeners.get(key);
      if (set === undefined) throw new Error(`unknown chat state key: ${String(key)}`);
      set.add(listener);
      return () => {
        set.delete(listener);
      };
    },
  };
}

function shallowEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    if (!Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}
