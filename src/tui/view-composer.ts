/**
 * Composes the five chat-tui states from the projection and the host's local state. It remembers what it
 * produced last so unchanged arrays (cards, queue, activity rows) keep their identity and only changed
 * surfaces re-render (VIEW-01).
 */
import type { Controller } from "../controller/controller.ts";
import { selectActivity, selectApprovalRoute, selectFooter, selectPendingInteractions, selectPendingProposals, selectTargetPlan, type InteractionItem, type ProjectionState } from "../projection/index.ts";
import { DEFAULT_TIMELINE_WINDOW, type ActivityItem, type ChatCommand, type ChatStatePatch, type DraftInjection, type InteractionCard, type PickerState, type QueuedInput, type SidecarState, type Toast } from "chat-tui";
import { boardSidecar, mainColumns, type BoardMode } from "./board-view.ts";
import type { BoardView } from "./session-port.ts";
import { terminalSafeDeep } from "../shared/terminal-text.ts";
import type { ConfigControl } from "./config-control.ts";
import { mapActivity } from "./map-activity.ts";
import { mapCards } from "./map-cards.ts";
import { pluginCompletions } from "./plugins-view.ts";
import type { LocalItem, LookFn, TimelineOutput } from "./map-transcript.ts";
import { createTimelineMapper, type DirtyRef, type TimelineMapper } from "./timeline-mapper.ts";
import { footerTexts, headerFor, historyOf, keepArray, mapQueued, placeholderFor, shallowSame } from "./view-states.ts";
import type { TargetId } from "../shared/ids.ts";

/** What the host knows that the projection does not. */
export interface HostView {
  readonly controller: Controller;
  readonly sessionId: string;
  readonly cwd: string;
  readonly target: TargetId;
  readonly busy: boolean;
  readonly local: readonly LocalItem[];
  readonly picker: PickerState | undefined;
  readonly draft: DraftInjection | undefined;
  /** A card not shown (a suggestion whose text is being edited in the composer). */
  readonly hiddenCard?: string | undefined;
  /** Targets the user picked for suggestions (`t`), by interaction id; a new map whenever one changes. */
  readonly cardTargets?: ReadonlyMap<string, TargetId>;
  readonly toast: Toast | undefined;
  readonly columns: number;
  /** The plugins' Board as last published (undefined where plugins do not run), and how it is shown. */
  readonly board: BoardView | undefined;
  readonly boardMode: BoardMode;
  /** Items named by the stream chunks since the last composition, when nothing else happened since. */
  readonly dirty: readonly DirtyRef[] | undefined;
}

export interface ComposerDeps {
  readonly lookOf: LookFn;
  readonly config: ConfigControl;
  readonly targetIds: readonly TargetId[];
  readonly showThoughts: boolean;
  /** Timeline items shown at first (default 100): the window mapped until the view asks for older history. */
  readonly timelineWindow?: number;
  readonly home?: string;
}

/**
 * Shown timeline items mapped for the first frame (#18): a screenful of even one-row items; the view asks for
 * the rest of its window (`loadEarlier`) once that frame is out.
 */
export const FIRST_MAPPED_ITEMS = 30;

export class ViewComposer {
  private mapTimeline: TimelineMapper;
  private timelineOut: TimelineOutput | undefined;
  /** Shown timeline items mapped at least: the view's window, grown when it asks for older history. */
  private want: number;
  /** ↑/↓ history: the prompts of the mapped window, recomputed when the window starts earlier. */
  private history: { from: number; value: readonly string[] } | undefined;
  private cards: readonly InteractionCard[] = [];
  private cardsFrom: readonly InteractionItem[] | undefined;
  private cardTargets: ReadonlyMap<string, TargetId> | undefined;
  private queued: readonly QueuedInput[] = [];
  private activity: readonly ActivityItem[] = [];
  private pluginCommands: readonly ChatCommand[] = [];
  private pluginsFrom: ProjectionState["plugins"] | undefined;
  private header: { id: string; value: ReturnType<typeof headerFor> } | undefined;
  private sidecar: { board: BoardView | undefined; mode: BoardMode; value: SidecarState | undefined } | undefined;

  constructor(private readonly deps: ComposerDeps) {
    this.mapTimeline = createTimelineMapper(deps.lookOf, { hideThoughts: !deps.showThoughts });
    this.want = this.firstWant;
  }

  private get firstWant(): number {
    return Math.min(this.timelineWindow, FIRST_MAPPED_ITEMS);
  }

  get timelineWindow(): number {
    return this.deps.timelineWindow ?? DEFAULT_TIMELINE_WINDOW;
  }

  /** The view needs older history: map at least `items` shown items, or one window more. False when nothing changes. */
  loadEarlier(items: number | undefined): boolean {
    if (this.older === 0) return false;
    const next = items === undefined ? this.want + this.timelineWindow : Math.max(this.want, items);
    if (next === this.want) return false;
    this.want = next;
    return true;
  }

  /** Number of projected timeline entries at the last composition (where a new local item goes). */
  get entries(): number {
    return this.timelineOut?.entries ?? 0;
  }

  /** Timeline entries before the mapped window (not read yet). */
  get older(): number {
    return this.timelineOut?.start ?? 0;
  }

  /** A new session: forget per-item caches. */
  reset(): void {
    this.mapTimeline = createTimelineMapper(this.deps.lookOf, { hideThoughts: !this.deps.showThoughts });
    this.timelineOut = undefined;
    this.cardsFrom = undefined;
    this.history = undefined;
    this.want = this.firstWant;
  }

  compose(view: HostView): ChatStatePatch {
    const { lookOf, config } = this.deps;
    const state = view.controller.state;
    const look = lookOf(view.target);
    const timeline = this.mapTimeline(state, view.target, view.local, view.dirty, this.want);
    this.timelineOut = timeline;
    // Seeded at open from the window's prompts; the composer adds what is submitted, until older ones load.
    if (this.history === undefined || this.history.from > timeline.start) this.history = { from: timeline.start, value: historyOf(state, timeline.start) };
    const pending = selectPendingInteractions(state);
    if (pending !== this.cardsFrom || view.cardTargets !== this.cardTargets) {
      this.cardsFrom = pending;
      this.cardTargets = view.cardTargets;
      this.cards = mapCards(state, pending, lookOf, view.cardTargets);
    }
    const queued = view.controller.queued();
    this.queued = keepArray(this.queued, mapQueued(queued, lookOf), shallowSame);
    const settings = config.settingsOf(state, view.target);
    this.activity = keepArray(
      this.activity,
      mapActivity(selectActivity(state), {
        target: view.target,
        lookOf,
        settingsOf: (id) => config.settingsOf(state, id),
        contextUsageOf: (id) => (Object.hasOwn(state.perTarget, id) ? (state.perTarget[id]?.contextUsage ?? undefined) : undefined),
        delegated: delegated(view.controller, state, view.target),
      }),
      shallowSame,
    );
    if (this.header?.id !== view.sessionId) this.header = { id: view.sessionId, value: headerFor(view.sessionId, this.deps.targetIds) };
    const plan = selectTargetPlan(state, view.target);
    // The same Board in the same mode keeps its sidecar state (the composer is never rebuilt by it).
    if (this.sidecar === undefined || this.sidecar.board !== view.board || this.sidecar.mode !== view.boardMode) {
      this.sidecar = { board: view.board, mode: view.boardMode, value: terminalSafeDeep(boardSidecar(view.board, view.boardMode)) };
    }
    if (state.plugins !== this.pluginsFrom) {
      this.pluginsFrom = state.plugins;
      this.pluginCommands = keepArray(this.pluginCommands, pluginCompletions(state), shallowSame);
    }
    // Terminal-safe text only (#11.11): timeline items are made safe as they are mapped (one walk per changed
    // item), the rest here; unchanged parts keep their identity.
    return {
      timeline: {
        items: timeline.items,
        ...(timeline.start === 0 ? {} : { older: timeline.start }),
        ...(timeline.plan === undefined ? {} : { plan: terminalSafeDeep(timeline.plan) }),
        header: this.header.value,
        showThoughts: this.deps.showThoughts,
      },
      composer: terminalSafeDeep({
        busy: view.busy,
        queued: this.queued,
        interactions: view.hiddenCard === undefined ? this.cards : this.cards.filter((card) => card.id !== view.hiddenCard),
        placeholder: placeholderFor(look.label, view.busy, queued.length),
        history: this.history.value,
        ...(this.pluginCommands.length === 0 ? {} : { commands: this.pluginCommands }),
        ...(view.picker === undefined ? {} : { picker: view.picker }),
        ...(settings.mode === "plan" ? { mode: "plan mode" } : {}),
        ...(view.draft === undefined ? {} : { draft: view.draft }),
      }),
      activity: terminalSafeDeep({ items: this.activity }),
      footer: terminalSafeDeep({
        ...footerTexts({
          sessionId: view.sessionId,
          footer: selectFooter(state),
          queue: queued.length,
          suggestions: selectPendingProposals(state).length,
          ...(plan !== null && plan.pinned ? { plan: { done: plan.done, total: plan.total } } : {}),
          ...(view.board === undefined || view.board.items === 0 ? {} : { board: view.board.items }),
          author: look.author,
          cwd: view.cwd,
          ...(this.deps.home === undefined ? {} : { home: this.deps.home }),
          // The footer is as wide as the column it sits in (the Board inline takes its share).
          width: mainColumns(this.sidecar.value, view.columns),
        }),
        ...(view.toast === undefined ? {} : { toast: view.toast }),
      }),
      sidecar: this.sidecar.value,
    };
  }
}

/**
 * IX-08 / TUI-05: approvals routed to a reviewer, as the target's harness reported it (a projected fact), while
 * its harness runs in this session (a route reported by an earlier run may no longer hold).
 */
function delegated(controller: Controller, state: ProjectionState, targetId: TargetId): boolean {
  return selectApprovalRoute(state, targetId) === "delegated" && controller.targets().get(targetId)?.running === true;
}
