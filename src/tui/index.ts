/** Baton's terminal UI on top of packages/chat-tui: the host (projection → view states, intents → controller) and its start. */
export { BatonApp, batonTheme, type BatonAppProps } from "./baton-app.tsx";
export { allCommands, BATON_COMMANDS, targetCommands } from "./commands.ts";
export { ConfigControl } from "./config-control.ts";
export { compactNumber, mapActivity, modelLabel, phaseLabel, type ActivityInput, type TargetSettings } from "./map-activity.ts";
export { HOOK_SKIP, HOOK_TRUST, mapInteraction, resolutionFor } from "./map-cards.ts";
export { splitThought, type ThoughtBlock } from "./map-thoughts.ts";
export { mapTask, mapToolCall, splitPatch } from "./map-tools.ts";
export { mapEntry, type LocalItem, type LookFn, type TimelineOutput } from "./map-transcript.ts";
export { createTimelineMapper, dirtyRefOf, type DirtyRef, type TimelineMapper } from "./timeline-mapper.ts";
export type { ConfigId, SessionListing, SessionOpenChoice, SessionSwitcher, TuiSession } from "./session-port.ts";
export { IMPLEMENT_PLAN_TEXT, latestOpenPlan, runCommand } from "./slash-commands.ts";
export { BACKGROUND, startTui, type StartedTui, type StartTuiOptions } from "./start-tui.tsx";
export { PublishThrottle, STREAM_KINDS, STREAM_PUBLISH_INTERVAL_MS } from "./stream-throttle.ts";
export { createTargetLooks, matchSlashTarget, targetLook, type SlashTarget, type TargetLook } from "./targets.ts";
export { sanitizeTitle, titleSequence } from "./terminal-title.ts";
export { TuiHost, type TuiHostOptions } from "./tui-host.ts";
export { footerTexts, headerFor, placeholderFor, shortCwd } from "./view-states.ts";
export { pickSession, type PickableSession } from "./pick-session.tsx";
