/**
 * Display shapes of chat-tui (VIEW-01, VIEW-03). Attributes flow down through a ChatStore holding five
 * independently subscribable states; the view never holds promises and reports user decisions as intents
 * (see intents.ts). Nothing here knows about a particular agent harness.
 */

/** Status of a tool block. Any other string is shown as a distinct "unknown" warning state. */
export type ToolStatus = "pending" | "in_progress" | "completed" | "failed" | "declined" | "interrupted";

/** Status of one plan entry. Unknown strings are shown as pending. */
export type PlanEntryStatus = "pending" | "in_progress" | "completed";

export type Tone = "info" | "success" | "warning" | "error";

export interface PlanEntry {
  readonly text: string;
  readonly status: PlanEntryStatus | (string & {});
}

export type DiffOp = "add" | "modify" | "delete" | "move";

/** One piece of a tool block's body. */
export type ToolContent =
  | { readonly type: "command"; readonly command: string }
  | { readonly type: "output"; readonly text: string }
  | { readonly type: "text"; readonly text: string }
  /** `clip: false` shows every line (no preview with ctrl+o to expand). */
  | { readonly type: "lines"; readonly lines: readonly string[]; readonly clip?: boolean }
  | { readonly type: "code"; readonly text: string; readonly language?: string }
  | {
      readonly type: "diff";
      readonly op: DiffOp;
      readonly path: string;
      readonly oldPath?: string;
      /** Unified diff text (hunks with `@@ -a,b +c,d @@` headers; `@@ @@` when the position is not known). */
      readonly patch?: string;
    };

/** A file change: a tool block's diff part, or what an approval card would change. */
export type DiffContent = Extract<ToolContent, { readonly type: "diff" }>;

interface ItemBase {
  readonly id: string;
  /** Label shown for the author (e.g. "you", "codex"). */
  readonly author?: string;
  /** Key handed to `theme.authorColor` to pick the accent colour. */
  readonly authorKey?: string;
}

export interface UserMessageItem extends ItemBase {
  readonly kind: "user";
  readonly text: string;
}

export interface AgentMessageItem extends ItemBase {
  readonly kind: "agent";
  readonly text: string;
  /** Defaults to "markdown". */
  readonly format?: "markdown" | "plain";
  readonly streaming?: boolean;
}

export interface ThoughtItem extends ItemBase {
  readonly kind: "thought";
  readonly title?: string;
  readonly text: string;
}

export interface ToolItem extends ItemBase {
  readonly kind: "tool";
  readonly title: string;
  readonly status: ToolStatus | (string & {});
  readonly tone?: "warning";
  readonly content?: readonly ToolContent[];
}

export interface PlanItem extends ItemBase {
  readonly kind: "plan";
  readonly title?: string;
  readonly entries: readonly PlanEntry[];
}

export interface NoticeItem extends ItemBase {
  readonly kind: "notice";
  readonly tone: Tone;
  readonly title: string;
  readonly detail?: string;
}

export interface ErrorItem extends ItemBase {
  readonly kind: "error";
  readonly code?: string;
  readonly message: string;
}

/** Receipt of an approval review (who decided what about which request). */
export interface ReviewItem extends ItemBase {
  readonly kind: "review";
  readonly title: string;
  readonly decision: "approved" | "denied" | "cancelled" | (string & {});
  readonly detail?: string;
}

export type TimelineItem =
  | UserMessageItem
  | AgentMessageItem
  | ThoughtItem
  | ToolItem
  | PlanItem
  | NoticeItem
  | ErrorItem
  | ReviewItem;

export interface TimelineHeader {
  readonly title: string;
  readonly hint?: string;
}

export interface PinnedPlan {
  readonly title?: string;
  readonly entries: readonly PlanEntry[];
}

export interface TimelineState {
  readonly items: readonly TimelineItem[];
  /** Pinned plan shown above the composer while a turn runs. */
  readonly plan?: PinnedPlan;
  readonly header?: TimelineHeader;
  /** Thoughts are hidden when false. Defaults to true. */
  readonly showThoughts?: boolean;
  /**
   * Entries of the session's history before `items` that the host has not mapped yet (a long session opens
   * with only its tail mapped). The view asks for them with a `loadEarlier` intent when it needs more items
   * than it has (PageUp at the top, ↑ past the oldest prompt). Defaults to 0.
   */
  readonly older?: number;
}

export interface QueuedInput {
  readonly id: string;
  readonly text: string;
  /** Label of the target the input is queued for. */
  readonly target?: string;
  /**
   * Waiting for the user rather than for a turn (restored after the host stopped): Enter on an empty composer
   * emits `resumeQueue`, ↑ recalls the latest, Esc is the host's to map (it drops the latest).
   */
  readonly paused?: boolean;
}

export interface PickerItem {
  readonly id: string;
  readonly label: string;
  readonly detail?: string;
  readonly current?: boolean;
}

export interface PickerState {
  readonly id: string;
  readonly title: string;
  readonly items: readonly PickerItem[];
  /** Initial filter text. */
  readonly query?: string;
  /** "local" (default) filters items in the view; "remote" shows items as given and relies on pickerQuery. */
  readonly filter?: "local" | "remote";
  readonly placeholder?: string;
  readonly loading?: boolean;
}

export interface PermissionOption {
  readonly id: string;
  readonly label: string;
  readonly hint?: string;
}

export interface QuestionOption {
  readonly id: string;
  readonly label: string;
  readonly description?: string;
}

export interface Question {
  readonly id: string;
  readonly header?: string;
  readonly question: string;
  readonly options: readonly QuestionOption[];
  readonly multiSelect?: boolean;
  /** Adds an "Other…" row with free text. */
  readonly allowOther?: boolean;
}

export interface QuestionAnswer {
  readonly selected: readonly string[];
  readonly other?: string;
}

/** What the user decided on an interaction card. */
export type InteractionResponse =
  | { readonly outcome: "selected"; readonly optionId: string }
  | { readonly outcome: "answered"; readonly answers: Readonly<Record<string, QuestionAnswer>> }
  | { readonly outcome: "cancelled" };

interface CardBase {
  readonly id: string;
  readonly title: string;
  readonly description?: string;
  readonly author?: string;
  readonly authorKey?: string;
  /** Response sent on Esc. Defaults to `{outcome: "cancelled"}`. */
  readonly escResponse?: InteractionResponse;
  /** Label shown next to "Esc". Defaults to "cancel". */
  readonly escLabel?: string;
}

export interface PermissionCard extends CardBase {
  readonly kind: "permission";
  readonly options: readonly PermissionOption[];
  /** The file changes the request would make, shown above the options (fitted to the screen). */
  readonly diffs?: readonly DiffContent[];
}

export interface QuestionCard extends CardBase {
  readonly kind: "question";
  readonly questions: readonly Question[];
}

/**
 * A suggested next input (non-blocking): Enter sends it (`selected` SUGGESTION_SEND), `e` edits it in the
 * composer (`selected` SUGGESTION_EDIT), `t` asks to pick the target it goes to (`selected` SUGGESTION_TARGET;
 * the host opens a picker and names the choice in `target`), Esc dismisses it (`cancelled`).
 */
export interface SuggestionCard extends CardBase {
  readonly kind: "suggestion";
  readonly text: string;
  /** Who suggests it, shown as "Suggested by <requester>". */
  readonly requester: string;
  /** Label of the target it goes to when sent as it is. */
  readonly target?: string;
}

export const SUGGESTION_SEND = "send";
export const SUGGESTION_EDIT = "edit";
export const SUGGESTION_TARGET = "target";

export type InteractionCard = PermissionCard | QuestionCard | SuggestionCard;

/** Replaces the composer draft once per `id` (recall, suggested input). */
export interface DraftInjection {
  readonly id: string;
  readonly text: string;
  /** "ifEmpty" refuses (intent `draftRejected`) when the user has a draft. Defaults to "replace". */
  readonly mode?: "replace" | "ifEmpty";
}

export interface ComposerState {
  readonly busy?: boolean;
  readonly queued?: readonly QueuedInput[];
  readonly picker?: PickerState;
  readonly interactions?: readonly InteractionCard[];
  readonly placeholder?: string;
  /** Mode label shown under the editor (e.g. "plan mode"). */
  readonly mode?: string;
  /** Submitted inputs, oldest first, for ↑/↓ recall. */
  readonly history?: readonly string[];
  readonly draft?: DraftInjection;
  /** Commands registered at run time (plugins), completed and dispatched like the static ones. */
  readonly commands?: readonly ChatCommand[];
}

export interface ActivityItem {
  readonly id: string;
  readonly label: string;
  /** Epoch milliseconds; elapsed time ticks locally. */
  readonly startedAt?: number;
  readonly hint?: string;
  readonly tone?: Tone;
  readonly author?: string;
  readonly authorKey?: string;
}

export interface ActivityState {
  readonly items?: readonly ActivityItem[];
}

export interface Toast {
  readonly text: string;
  readonly tone?: Tone;
}

export interface FooterState {
  readonly left?: string;
  readonly right?: string;
  readonly toast?: Toast;
}

export interface SidecarItem {
  readonly id: string;
  readonly title: string;
  readonly url?: string;
  readonly status?: string;
  readonly detail?: string;
  readonly tone?: Tone;
}

export interface SidecarSection {
  readonly id: string;
  readonly title?: string;
  readonly items: readonly SidecarItem[];
}

export interface SidecarState {
  readonly title?: string;
  readonly sections: readonly SidecarSection[];
  /** auto: inline on wide terminals only; open: also as an overlay on narrow ones; hidden: never. */
  readonly mode?: "auto" | "open" | "hidden";
}

export interface ChatStates {
  readonly timeline: TimelineState;
  readonly composer: ComposerState;
  readonly activity: ActivityState;
  readonly footer: FooterState;
  readonly sidecar: SidecarState | undefined;
}

export type ChatStateKey = keyof ChatStates;

/** A registered slash command (completion and `command` intents). */
export interface ChatCommand {
  readonly name: string;
  readonly description: string;
  readonly aliases?: readonly string[];
}

export interface MentionCandidate {
  readonly id: string;
  readonly label: string;
  readonly detail?: string;
  /** Text inserted on accept. Defaults to `@<id>`. */
  readonly insert?: string;
}

export interface MentionGroup {
  readonly group: string;
  readonly items: readonly MentionCandidate[];
}

export type MentionQuery = (query: string) => Promise<readonly MentionGroup[]>;
