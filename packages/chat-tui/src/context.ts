import { createContext, useContext } from "react";
import type { SyntaxStyle, TreeSitterClient } from "@opentui/core";
import type { IntentHandler } from "./intents.ts";
import type { ChatStore } from "./store.ts";
import type { ChatTheme } from "./theme.ts";

/** Milliseconds since the epoch; injectable so elapsed timers are deterministic in tests. */
export type NowFn = () => number;

/** Imperative handle the composer exposes to the application key layer. */
export interface ComposerHandle {
  /** Current draft text. */
  text(): string;
  /** Clears the draft; returns true when there was something to clear. */
  clear(): boolean;
}

export interface ChatContextValue {
  readonly store: ChatStore;
  readonly theme: ChatTheme;
  readonly emit: IntentHandler;
  readonly now: NowFn;
  readonly syntaxStyle: SyntaxStyle;
  readonly treeSitterClient: TreeSitterClient | undefined;
  readonly composer: { current: ComposerHandle | null };
}

export const ChatContext = createContext<ChatContextValue | null>(null);

export function useChat(): ChatContextValue {
  const value = useContext(ChatContext);
  if (value === null) throw new Error("chat-tui components must be rendered inside ChatApp");
  return value;
}
