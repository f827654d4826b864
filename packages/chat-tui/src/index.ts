/**
 * chat-tui: a reusable React/OpenTUI chat view layer. Attributes down (a ChatStore with five independently
 * subscribable states), intents up (`onIntent`). It knows nothing about the application that drives it.
 */
export { ChatApp, type ChatAppProps, type ChatSurface } from "./app.tsx";
export { createChatStore, type ChatStatePatch, type ChatStore, type ChatStoreListener } from "./store.ts";
export { useChatState } from "./use-chat-state.ts";
export { createTheme, defaultTheme, toneColor, type ChatTheme } from "./theme.ts";
export type { ChatIntent, ChatIntentType, IntentHandler } from "./intents.ts";
export type { ComposerHandle, NowFn } from "./context.ts";
export { KeyLayer, type KeyOutcome } from "./keys/key-layers.tsx";
export {
  commonPrefix,
  interleaveGroups,
  matchCommands,
  MAX_CANDIDATES,
  mentionQuery,
  resolveCommand,
  slashQuery,
} from "./composer/completion.ts";
export { followNav, historyNext, historyPrev, IDLE_NAV, normaliseHistory, type HistoryNav } from "./composer/history.ts";
export { clipLines, hiddenMarker, splitLines, visualRows } from "./timeline/clip.ts";
export { parseUnifiedDiff, type DiffRow, type DiffRowKind } from "./timeline/diff-lines.ts";
export { isKnownToolStatus, toolStatusLook } from "./timeline/status.ts";
export { planWindow } from "./timeline/pinned-plan.tsx";
export { earlierMarker } from "./timeline/timeline.tsx";
export { estimateRows, tailWindow, WINDOW_MIN_ROWS, WINDOW_SCREENS, type TailWindow } from "./timeline/window-rows.ts";
export { DEFAULT_TIMELINE_WINDOW } from "./timeline/timeline-view.ts";
export { formatElapsed } from "./activity/elapsed.ts";
export { PAUSED_HINT } from "./composer/queued-list.tsx";
export { filterPickerItems } from "./picker/picker-overlay.tsx";
export { sidecarPlacement, SIDECAR_INLINE_MIN_COLUMNS, SIDECAR_WIDTH, type SidecarPlacement } from "./sidecar/sidecar.tsx";
export type {
  ActivityItem,
  ActivityState,
  AgentMessageItem,
  ChatCommand,
  ChatStateKey,
  ChatStates,
  ComposerState,
  DiffContent,
  DiffOp,
  DraftInjection,
  ErrorItem,
  FooterState,
  InteractionCard,
  InteractionResponse,
  MentionCandidate,
  MentionGroup,
  MentionQuery,
  NoticeItem,
  PermissionCard,
  PermissionOption,
  PickerItem,
  PickerState,
  PinnedPlan,
  PlanEntry,
  PlanEntryStatus,
  PlanItem,
  Question,
  QuestionAnswer,
  QuestionCard,
  QuestionOption,
  QueuedInput,
  ReviewItem,
  SidecarItem,
  SidecarSection,
  SidecarState,
  SuggestionCard,
  ThoughtItem,
  TimelineHeader,
  TimelineItem,
  TimelineState,
  Toast,
  Tone,
  ToolContent,
  ToolItem,
  ToolStatus,
  UserMessageItem,
} from "./types.ts";
export { SUGGESTION_EDIT, SUGGESTION_SEND, SUGGESTION_TARGET } from "./types.ts";
