/** Baton's side of the chat view: projection → the five view states (throttled, TUI-12), intents → the Controller.
 * It holds no promises the view waits on; everything the user sees is published to the store. */
import type { Controller, SubmitOptions } from "../controller/controller.ts";
import { isKind, isProposal, tableGet, type AnyEvent } from "../projection/index.ts";
import type { Clock } from "../shared/clock.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import {
  createChatStore,
  type ChatCommand,
  type ChatIntent,
  type ChatStore,
  type MentionGroup,
  type PickerItem,
  type TimelineItem,
  type Tone,
} from "chat-tui";
import type { BoardMode } from "./board-view.ts";
import { allCommands } from "./commands.ts";
import { ConfigControl } from "./config-control.ts";
import { resolutionFor } from "./map-cards.ts";
import type { LocalDraft } from "./local-draft.ts";
import type { LocalItem } from "./map-transcript.ts";
import type { InboxListing, SessionOpenChoice, SessionSwitcher, TuiSession } from "./session-port.ts";
import { runCommand } from "./slash-commands.ts";
import { PickerSlot, type PickerFill, type RemoteSearch } from "./picker-slot.ts";
import { PublishThrottle, STREAM_KINDS } from "./stream-throttle.ts";
import { dirtyRefOf, type DirtyRef } from "./timeline-mapper.ts";
import { nativeCommands, routeSlash } from "./slash-route.ts";
import { continuedTarget, createTargetLooks, type TargetLook } from "./targets.ts";
import { sanitizeTitle } from "./terminal-title.ts";
import { Toasts } from "./toasts.ts";
import { ViewComposer } from "./view-composer.ts";
import { queueIntent, refusalText } from "./queue-intents.ts";
import { ProposalEditor } from "./proposal-intents.ts";
import type { AttentionNotifier } from "./attention.ts";
import type { TargetId } from "../shared/ids.ts";

export interface TuiHostOptions {
  readonly session: TuiSession;
  readonly sessions: SessionSwitcher;
  /** Resolved target id the composer starts on. */
  readonly initialTarget: TargetId;
  readonly showThoughts: boolean;
  readonly clock: Clock;
  /** Shortens the cwd in the footer. */
  readonly home?: string;
  /** Terminal notifications when an agent waits (given only on a real terminal). */
  readonly attention?: AttentionNotifier;
  /** Sets the terminal title (given only on a real terminal). */
  readonly setTitle?: (title: string) => void;
  /** Timeline items shown and mapped at first (older history is read when the view asks); default 100. */
  readonly timelineWindow?: number;
}

export type { LocalDraft } from "./local-draft.ts";

const BUSY_MESSAGE = "Wait for the current turn to finish (Esc interrupts it) and for the queue to empty";

export class TuiHost {
  readonly store: ChatStore;
  readonly commands: readonly ChatCommand[];
  readonly lookOf: (targetId: string | null) => TargetLook;
  readonly config: ConfigControl;
  /** Resolves when the user asked to exit (the app then closes the session and the renderer). */
  readonly exitRequested: Promise<void>;
  private current: TuiSession;
  private targetId: TargetId;
  private readonly view: ViewComposer;
  private local: LocalItem[] = [];
  private draft: { id: string; text: string; mode?: "ifEmpty" } | undefined;
  private readonly proposalEdits = new ProposalEditor(this);
  private readonly picker = new PickerSlot(() => this.publish());
  private readonly toasts: Toasts;
  private throttle: PublishThrottle;
  private detachFns: (() => void)[] = [];
  private counter = 0;
  private exiting = false;
  private switching = false;
  private titleShown: string | undefined;
  private resolveExit: () => void = () => undefined;
  private columns = 120;
  private boardMode: BoardMode = "auto";
  /** Items changed by stream chunks since the last publication; undefined once anything else happened. */
  private dirty: DirtyRef[] | undefined = [];

  constructor(private readonly options: TuiHostOptions) {
    this.current = options.session;
    this.targetId = options.initialTarget;
    this.lookOf = createTargetLooks(this.controller.targets());
    this.commands = allCommands(this.controller.targets());
    this.store = createChatStore({ timeline: { items: [], showThoughts: options.showThoughts } });
    this.throttle = new PublishThrottle(() => this.publish(), options.clock);
    this.toasts = new Toasts(options.clock, () => this.publish());
    this.exitRequested = new Promise((resolve) => (this.resolveExit = resolve));
    this.config = new ConfigControl({
      controller: () => this.controller,
      lookOf: this.lookOf,
      toast: (text, tone) => this.toast(text, tone),
      openPicker: (title, select) => this.openPicker(title, select),
      changed: () => this.publish(),
    });
    this.view = new ViewComposer({
      lookOf: this.lookOf,
      config: this.config,
      targetIds: this.controller.targets().list().map((t) => t.id),
      showThoughts: options.showThoughts,
      ...(options.timelineWindow === undefined ? {} : { timelineWindow: options.timelineWindow }),
      ...(options.home === undefined ? {} : { home: options.home }),
    });
    this.attach(options.session);
  }

  get session(): TuiSession { return this.current; }
  get controller(): Controller { return this.current.controller; }
  get target(): TargetId { return this.targetId; }
  get timelineWindow(): number { return this.view.timelineWindow; } // shown at first; PageUp at the top shows as many more

  /** The user's home directory, if known (cwds are shown relative to it). */
  get home(): string | undefined { return this.options.home; }

  /** The terminal width changed (the footer is fitted to it). */
  resize(columns: number): void {
    if (columns === this.columns) return;
    this.columns = columns;
    this.publish();
  }

  get isExiting(): boolean { return this.exiting; }

  /** A driven or observed turn runs, or inputs wait. */
  readonly isBusy = (): boolean => this.controller.busy || Object.keys(this.controller.state.activeTurns).length > 0;

  /** Key intents. PROC-01: no I/O in a key handler, and the Controller writes the ledger synchronously, so
   *  whatever reaches the Controller or the session runs `later` (next task, in order); view changes in place. */
  readonly handle = (intent: ChatIntent): void => {
    if (this.exiting) return;
    switch (intent.type) {
      case "submit":
        return this.later(() => this.submitText(intent.text, intent.pasted ?? []));
      case "command":
        return this.later(() => void runCommand(this, intent.name, intent.args).catch((error: unknown) => this.toast(describeError(error), "error")));
      case "cancel":
      case "recall":
      case "resumeQueue":
        return this.later(() => queueIntent(this, intent.type));
      case "cycleMode":
        return this.later(() => void this.config.toggleMode(this.controller.state, this.targetId));
      case "exit":
        return this.exit();
      case "clearDraft":
        if (intent.cleared) this.proposalEdits.cancelEdit();
        return this.toast("Press Ctrl+C again to exit", "info", 1500);
      case "resolveInteraction":
        return this.later(() => void this.resolve(intent.id, intent.response));
      case "pickerSelect": {
        const select = this.picker.take(intent.id);
        return select === undefined ? undefined : this.later(() => select(intent.itemId));
      }
      case "pickerCancel":
        return this.picker.cancel(intent.id);
      case "pickerQuery":
        return this.picker.query(intent.id, intent.query);
      case "dismissSidecar":
        this.boardMode = "hidden";
        return this.publish();
      case "draftRejected":
        return this.proposalEdits.rejected(intent.id) ? this.publish() : this.toast("Clear the composer first", "warning");
      case "loadEarlier": // old turns may be on disk (lazy checkpoint nodes): read after the key, not in it
        return this.later(() => void (this.view.loadEarlier(intent.items) && this.publish()));
    }
  };

  private later(run: () => void): void { setImmediate(() => void (this.exiting || run())); }

  /** `@` completion for the current session (the view drops stale answers itself). */
  readonly mentionQuery = (query: string): Promise<readonly MentionGroup[]> => this.current.mentions?.(query) ?? Promise.resolve([]);

  /** Switch the input target (`/<target>`), optionally sending a message to it. */
  switchTarget(targetId: TargetId, message = "", untyped: readonly string[] = []): void {
    if (targetId !== this.targetId) {
      this.targetId = targetId;
      this.toast(`Talking to ${this.lookOf(targetId).label}`, "info");
    }
    // While a suggestion is being edited, the message sent is that suggestion (to the target picked here).
    if (message !== "") return void (this.proposalEdits.takeSubmit(targetId, message) || this.send(targetId, message, { untyped }));
    this.publish();
  }

  /** Submit a prompt: steered into the running turn when the harness accepts, else queued (IN-05). */
  send(targetId: TargetId, text: string, options: SubmitOptions = {}): void {
    const submitted = this.controller.submit(targetId, [{ type: "text", text }], { displayText: text, ...options });
    this.publish();
    submitted
      .catch((error: unknown) => this.toast(refusalText(this.controller, error), "error"))
      .finally(() => {
        this.refreshTitle();
        this.publish();
      });
  }

  /** A transient timeline item at the current end of the transcript (never written to the ledger). */
  addLocal(item: LocalDraft): void {
    const entries = this.view.entries;
    this.local = [...this.local, { after: entries, item: { ...item, id: `local-${++this.counter}` } as TimelineItem }];
    this.publish();
  }

  toast(text: string, tone: Tone = "info", ms?: number): void {
    this.toasts.show(text, tone, ms);
  }

  /** Open a picker (loading until filled; `fill(null)` closes it); with `remote`, queries go to its search. */
  openPicker(title: string, select: (itemId: string) => void, items?: readonly PickerItem[], remote?: RemoteSearch): PickerFill {
    return this.picker.show(title, select, items, remote);
  }

  get clock(): Clock { return this.options.clock; }

  /** How the Board shows (TUI-11); `/board` changes it. */
  get board(): { readonly mode: BoardMode; readonly columns: number } {
    return { mode: this.boardMode, columns: this.columns };
  }

  setBoardMode(mode: BoardMode): void {
    this.boardMode = mode;
    this.publish();
  }

  /** `/sessions` and `/new` (PROC-03): refused while busy; open the new one, then close the old one. */
  async switchSession(choice: SessionOpenChoice): Promise<void> {
    if (this.switching) return;
    if (this.isBusy()) {
      this.toast(BUSY_MESSAGE, "warning");
      return;
    }
    if (choice.kind === "id" && choice.id === this.current.sessionId) return;
    this.switching = true;
    try {
      // Opening reads the other session's ledger: show that it is happening, and open after this frame.
      this.toast(choice.kind === "new" ? "Opening a new session…" : `Opening session ${choice.id}…`, "info");
      await new Promise((resolve) => setTimeout(resolve, 0));
      const next = await this.options.sessions.open(choice);
      const old = this.current;
      this.detach();
      await this.options.sessions.close(old).catch((error: unknown) => this.toast(`Closing ${old.sessionId}: ${describeError(error)}`, "warning"));
      this.attach(next);
      const target = continuedTarget(this.controller.targets(), next.controller.state, this.targetId);
      const on = target === this.targetId ? "" : ` · talking to ${this.lookOf(target).label}`;
      this.targetId = target;
      this.toast(choice.kind === "new" ? `New session ${next.sessionId}` : `Switched to session ${next.sessionId}${on}`, "success");
    } catch (error) {
      this.toast(describeError(error), "error");
    } finally {
      this.switching = false;
    }
  }

  sessionsList(): ReturnType<SessionSwitcher["list"]> { return this.options.sessions.list(); }

  /** `/inbox` rows; none where the app lists no inbox. */
  inboxList(): Promise<readonly InboxListing[]> { return this.options.sessions.inbox?.() ?? Promise.resolve([]); }

  exit(): void {
    if (this.exiting) return;
    this.exiting = true;
    this.picker.close();
    this.toast("Exiting…", "info", 60_000);
    this.resolveExit();
  }

  /** Stop listening (the app closes the session itself). */
  dispose(): void {
    this.detach();
    this.toasts.dispose();
  }

  /** Compute the five view states from the projection and local state, and commit them. */
  publish(): void {
    this.throttle.published();
    this.store.commit(
      this.view.compose({
        controller: this.controller,
        sessionId: this.current.sessionId,
        cwd: this.current.cwd,
        target: this.targetId,
        busy: this.isBusy(),
        local: this.local,
        picker: this.picker.state,
        draft: this.draft,
        hiddenCard: this.proposalEdits.hidden,
        cardTargets: this.proposalEdits.targets,
        toast: this.toasts.current,
        columns: this.columns,
        board: this.current.plugins?.board(),
        boardMode: this.boardMode,
        dirty: this.dirty,
      }),
    );
    this.dirty = [];
  }

  private submitText(text: string, pasted: readonly string[]): void {
    const route = routeSlash(this.controller.targets(), this.commands, nativeCommands(this.controller.state, this.targetId), text);
    if (route.kind === "target") this.switchTarget(route.targetId, route.message, pasted);
    else if (route.kind === "prompt") void (this.proposalEdits.takeSubmit(this.targetId, text) || this.send(this.targetId, text, { untyped: pasted }));
    else {
      // Nothing is sent; a mistyped command comes back to the composer to be fixed.
      if (route.retype) this.draft = { id: `retype-${++this.counter}`, text };
      this.addLocal({ kind: "error", message: route.message });
    }
  }

  editDraft(text: string, targetId: TargetId, mode?: "ifEmpty"): string {
    this.targetId = targetId;
    this.draft = { id: `recall-${++this.counter}`, text, ...(mode === undefined ? {} : { mode }) };
    return this.draft.id;
  }

  private async resolve(id: string, response: Parameters<typeof resolutionFor>[1]): Promise<void> {
    const item = tableGet(this.controller.state.interactions, id);
    if (item === undefined || item.status !== "pending") {
      this.toast("interaction request is no longer pending", "warning");
      return;
    }
    if (isProposal(item)) return this.proposalEdits.respond(item, response);
    try {
      await this.controller.resolveInteraction(id, resolutionFor(item.draft, response));
    } catch (error) {
      const stale = error instanceof BatonError && error.code === "not_pending";
      this.toast(stale ? "interaction request is no longer pending" : describeError(error), stale ? "warning" : "error");
    }
    this.publish();
  }

  private attach(session: TuiSession): void {
    this.current = session;
    this.config.reset();
    this.view.reset();
    this.dirty = undefined;
    this.local = [];
    this.draft = undefined;
    this.proposalEdits.reset();
    const controller = session.controller;
    this.detachFns.push(
      controller.subscribe((event) => this.onEvent(event)),
      controller.onNotice((notice) => {
        if (notice.level === "error") this.addLocal({ kind: "error", message: notice.text }); // stays on the timeline
        this.toasts.show(notice.text, notice.level, undefined, notice.turnId);
      }),
      session.plugins?.onToast((text, tone, ms) => this.toast(text, tone, ms)) ?? (() => undefined),
      session.plugins?.onBoard(() => this.publish()) ?? (() => undefined),
    );
    if (session.recovered) this.toast("Recovered an interrupted turn from a previous baton run", "warning");
    if (session.rewindRecovery !== undefined) this.toast(session.rewindRecovery, "warning", 15_000);
    this.refreshTitle();
    this.publish();
  }

  private detach(): void {
    for (const fn of this.detachFns.splice(0)) fn();
    this.throttle.dispose();
    this.throttle = new PublishThrottle(() => this.publish(), this.options.clock);
  }

  private onEvent(event: AnyEvent): void {
    if (STREAM_KINDS.has(event.kind)) {
      const ref = dirtyRefOf(event.kind, event.payload);
      if (ref !== undefined) this.dirty?.push(ref);
    } else {
      this.dirty = undefined;
    }
    if (event.kind === "config_option_update" && event.harnessTargetId !== undefined) this.config.onSnapshot(event.harnessTargetId);
    if (event.kind === "_baton_turn_summary") {
      this.refreshTitle();
      // A generated title (TTL-02) lands in meta after this turn's summary: show it then, not a turn later.
      this.later(() => void this.controller.titleGeneration?.then(() => this.later(() => (this.refreshTitle(), this.publish()))));
    }
    // A turn's end (its idle, or its summary) takes any toast about it along (#11.15).
    const ended = event.kind === "_baton_turn_summary" || (isKind(event, "state_update") && event.payload.state === "idle");
    if (ended && event.turnId !== undefined) this.toasts.turnEnded(event.turnId);
    this.options.attention?.onEvent(event, this.controller.state);
    this.throttle.onEvent(event.kind);
  }

  private refreshTitle(): void {
    const setTitle = this.options.setTitle;
    if (setTitle === undefined) return;
    let title: string;
    try {
      title = sanitizeTitle(this.current.title());
    } catch {
      return;
    }
    if (title === this.titleShown) return;
    this.titleShown = title;
    setTitle(title);
  }
}
