/** Composer, footer and header text (TUI-02, TUI-06, TUI-10), and helpers that keep unchanged values identical. */
import type { Controller } from "../controller/controller.ts";
import { displayUserText, listAt, tableGet, type Footer as ProjectedFooter, type ProjectionState } from "../projection/index.ts";
import type { QueuedInput, TimelineHeader } from "chat-tui";
import { compactNumber } from "./map-activity.ts";
import type { LookFn } from "./map-transcript.ts";
import type { TargetId } from "../shared/ids.ts";

/** A waiting input as the controller lists it. */
type QueuedView = ReturnType<Controller["queued"]>[number];

export function headerFor(sessionId: string, targetIds: readonly TargetId[]): TimelineHeader {
  const switches = targetIds.map((id) => `/${id}`).join(" ");
  return {
    title: `baton · session ${sessionId}`,
    hint: `${switches} switch agent · /sessions · @ references a session · / commands`,
  };
}

export function placeholderFor(label: string, busy: boolean, queued: number): string {
  const tail = queued > 0 ? "↑ recall queued" : busy ? "Enter sends or queues" : "Ctrl+J newline";
  return `Message ${label} (/ commands, @ mentions, Shift+Tab mode, ${tail})`;
}

export function mapQueued(queued: readonly QueuedView[], lookOf: LookFn): QueuedInput[] {
  return queued.map((q) => ({ id: q.messageId, text: q.text, target: lookOf(q.targetId).author, ...(q.paused ? { paused: true } : {}) }));
}

export interface FooterInput {
  readonly sessionId: string;
  readonly footer: ProjectedFooter;
  readonly queue: number;
  readonly plan?: { readonly done: number; readonly total: number };
  /** Pending suggestions (proposals): shown as "N suggestions" when there are any. */
  readonly suggestions?: number;
  /** Items on the plugin Board (shown as `board:N` when there are any). */
  readonly board?: number;
  readonly author: string;
  readonly cwd: string;
  readonly home?: string;
  /** Terminal columns; the texts are shortened to fit (target first, then cwd, then the session id). */
  readonly width?: number;
}

const MAX_CWD = 32;

/** The cwd with the home directory as `~`, and only its last components when longer than `max`. */
export function shortCwd(cwd: string, home?: string, max = MAX_CWD): string {
  const shown = home !== undefined && home !== "" && (cwd === home || cwd.startsWith(`${home}/`)) ? `~${cwd.slice(home.length)}` : cwd;
  if (shown.length <= max) return shown;
  const parts = shown.split("/");
  let tail = parts.pop() ?? "";
  while (parts.length > 0 && tail.length + (parts[parts.length - 1]?.length ?? 0) + 1 <= max - 2) tail = `${parts.pop()}/${tail}`;
  return `…/${tail}`;
}

/** The left text; without a session id the `session:` part is left out, and with `tokens: false` the token counts. */
function leftText(input: FooterInput, sessionId: string | undefined, tokens = true): string {
  const { turns } = input.footer;
  const counts = input.footer.tokens;
  const parts = [
    ...(sessionId === undefined ? [] : [`session: ${sessionId}`]),
    ...(tokens ? [`in:${compactNumber(counts.input)} out:${compactNumber(counts.output)}`] : []),
    `turns:${turns}`,
    `queue:${input.queue}`,
  ];
  if (input.plan !== undefined) parts.push(`plan:${input.plan.done}/${input.plan.total}`);
  const n = input.suggestions ?? 0;
  if (n > 0) parts.push(`${n} suggestion${n === 1 ? "" : "s"}`);
  if (input.board !== undefined) parts.push(`board:${input.board}`);
  return parts.join("  ");
}

/**
 * TUI-10: `session: <id>  in:<n> out:<n>  turns:<n>  queue:<n>[  plan:x/y][  N suggestions][  board:N]` and
 * `<target> · cwd:<cwd>`, shortened in steps until both fit `width` (the footer's own column).
 */
export function footerTexts(input: FooterInput): { readonly left: string; readonly right: string } {
  const full = leftText(input, input.sessionId);
  const cwd = shortCwd(input.cwd, input.home);
  const candidates = [
    { left: full, right: `${input.author} · cwd:${cwd}` },
    { left: full, right: `cwd:${cwd}` },
    { left: full, right: `cwd:${shortCwd(input.cwd, input.home, 16)}` },
    { left: leftText(input, `${input.sessionId.slice(0, 12)}…`), right: `cwd:${shortCwd(input.cwd, input.home, 16)}` },
    // Narrower still (the Board beside a 130-column terminal leaves 88): the session id goes, then the tokens.
    { left: leftText(input, undefined), right: `cwd:${shortCwd(input.cwd, input.home, 16)}` },
    { left: leftText(input, undefined, false), right: `cwd:${shortCwd(input.cwd, input.home, 16)}` },
  ];
  const room = (input.width ?? Number.POSITIVE_INFINITY) - 4;
  return candidates.find((c) => c.left.length + c.right.length <= room) ?? (candidates[candidates.length - 1] as { left: string; right: string });
}

/** `next` unless it equals `prev` element-wise (by `eq`), so unchanged arrays keep their identity. */
export function keepArray<T>(prev: readonly T[] | undefined, next: readonly T[], eq: (a: T, b: T) => boolean): readonly T[] {
  if (prev === undefined || prev.length !== next.length) return next;
  for (let i = 0; i < next.length; i++) if (!eq(prev[i] as T, next[i] as T)) return next;
  return prev;
}

/** Shallow equality of two plain records (values compared with Object.is). */
export function shallowSame(a: object, b: object): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * TUI-13: the ↑/↓ history of a session, seeded from its user messages (visible text, adjacent repeats once) from
 * timeline entry `from` on: the TUI reads only the window it mapped, so a long session's old turns stay unread.
 */
export function historyOf(state: ProjectionState, from = 0): readonly string[] {
  const out: string[] = [];
  for (let i = Math.max(0, from); i < state.timeline.length; i++) {
    const ref = listAt(state.timeline, i);
    if (ref?.type !== "message") continue;
    const item = tableGet(state.messages, ref.id);
    if (item === undefined || item.role !== "user") continue;
    const text = displayUserText(item.content).trim();
    if (text !== "" && out[out.length - 1] !== text) out.push(text);
  }
  return out;
}
