import type { Tone } from "./types.ts";

/** Colours of the view. `authorColor` maps an item's `authorKey` to its accent colour. */
export interface ChatTheme {
  readonly text: string;
  readonly muted: string;
  readonly accent: string;
  readonly border: string;
  readonly borderActive: string;
  readonly user: string;
  readonly info: string;
  readonly success: string;
  readonly warning: string;
  readonly error: string;
  readonly diffAdd: string;
  readonly diffRemove: string;
  readonly diffHunk: string;
  readonly lineNumber: string;
  readonly code: string;
  readonly selectedBg: string;
  readonly selectedFg: string;
  readonly authorColor: (authorKey: string) => string;
}

export const defaultTheme: ChatTheme = {
  text: "#d8dee9",
  muted: "#7b8394",
  accent: "#88c0d0",
  border: "#4c566a",
  borderActive: "#88c0d0",
  user: "#88c0d0",
  info: "#81a1c1",
  success: "#a3be8c",
  warning: "#ebcb8b",
  error: "#bf616a",
  diffAdd: "#a3be8c",
  diffRemove: "#bf616a",
  diffHunk: "#b48ead",
  lineNumber: "#616e88",
  code: "#d08770",
  selectedBg: "#3b4252",
  selectedFg: "#eceff4",
  authorColor: () => "#b48ead",
};

export function createTheme(overrides: Partial<ChatTheme> = {}): ChatTheme {
  return { ...defaultTheme, ...overrides };
}

export function toneColor(theme: ChatTheme, tone: Tone | undefined): string {
  switch (tone) {
    case undefined:
    case "info":
      return theme.info;
    case "success":
      return theme.success;
    case "warning":
      return theme.warning;
    case "error":
      return theme.error;
  }
}

export function authorAccent(theme: ChatTheme, authorKey: string | undefined, fallback: string): string {
  return authorKey === undefined ? fallback : theme.authorColor(authorKey);
}
