/**
 * What the TUI needs from an open session and from the project's session list. The app implements these
 * over the store (the TUI never imports it); tests implement them over a test home.
 */
import type { Controller } from "../controller/controller.ts";
import type { MentionGroup } from "chat-tui";

export interface TuiSession {
  readonly sessionId: string;
  readonly cwd: string;
  readonly controller: Controller;
  /** True when opening it closed a turn a dead process left open. */
  readonly recovered: boolean;
  /** The display title (TTL-01), read from the session's meta. */
  title(): string;
  /** `@` completion (TUI-14): candidates grouped by reference kind, inserted as `@<kind>:<id>`. */
  mentions?(query: string): Promise<readonly MentionGroup[]>;
  /** This session's plugins (absent where plugins do not run). */
  readonly plugins?: TuiPlugins;
  /** `/rewind`: file checkpoints of this session (absent: not available). */
  readonly rewind?: TuiRewind;
  /** What opening found of an interrupted rewind, to tell the user. */
  readonly rewindRecovery?: string;
}

/** One installed plugin as `/plugins` lists it; binding states come from the projection. */
export interface PluginListing {
  readonly pluginId: string;
  readonly marketplace: string;
  readonly version: string;
  readonly enabled: boolean;
  readonly pluginInstanceId: string | undefined;
  /** Why it cannot be used (a damaged install or plugin.yaml), if anything. */
  readonly problem: string | undefined;
}

export type PluginTone = "info" | "success" | "warning" | "error";

/** The plugin Board as last published (BRD-01): sections per (plugin instance, resource type). */
export interface BoardView {
  readonly sections: readonly {
    readonly id: string;
    readonly title: string;
    readonly items: readonly {
      readonly id: string;
      readonly title: string;
      readonly url?: string | undefined;
      readonly status?: string | undefined;
      readonly detail?: string | undefined;
      readonly tone: "default" | "muted" | "success" | "warning" | "error";
    }[];
    /** Items left out by the per-section limit. */
    readonly more: number;
  }[];
  readonly items: number;
}

/** A plugin command's answer (CMD-01). */
export type PluginCommandResult =
  | { readonly kind: "message"; readonly text: string }
  | {
      readonly kind: "picker";
      readonly title: string;
      readonly options: readonly { readonly name: string; readonly description?: string | undefined; readonly value: string }[];
      readonly search?: { readonly mode: "local" | "remote"; readonly query?: string | undefined; readonly placeholder?: string | undefined } | undefined;
    }
  | { readonly kind: "none" };

/** What the TUI may do with plugins: the app implements it over the session's Plugin Manager. */
export interface TuiPlugins {
  list(): Promise<readonly PluginListing[]>;
  /** Enable (the consent card appears in the dock when consent is needed) and activate. */
  enable(pluginId: string): Promise<void>;
  disable(pluginId: string): Promise<void>;
  restart(pluginId: string): Promise<void>;
  /** Run a command of an active binding (again with the picker's choice or a remote search query). */
  execute(pluginInstanceId: string, commandId: string, argument: string, call?: { readonly selectedValue?: string; readonly searchQuery?: string }): Promise<PluginCommandResult>;
  /** A record in the session log (warn): what went wrong with a plugin call, with its attributes. */
  log(message: string, attributes: Readonly<Record<string, string>>): void;
  /** The Board as last published: a value, no I/O (the host reads it while composing the view). */
  board(): BoardView;
  /** Called after the Board changed. Returns the unsubscribe function. */
  onBoard(listener: () => void): () => void;
  /**
   * Toasts about plugins: their own `toast.show` ("<id>: <text>") and "Plugin <id> stopped: <reason>" when a
   * binding fails (a view of the ledger fact). Returns the unsubscribe function.
   */
  onToast(listener: (text: string, tone: PluginTone, ms?: number) => void): () => void;
}

export interface RewindPointView {
  readonly id: string;
  readonly label: string;
  readonly detail: string;
}

export interface RewindPreviewView {
  readonly pointId: string;
  readonly label: string;
  readonly files: readonly { readonly path: string; readonly op: "add" | "modify" | "delete"; readonly patch: string }[];
  /** Why this rewind is refused (it would overwrite changes made outside any agent turn). */
  readonly refused?: string;
}

/** The app's rewind over the open session (git work runs in child processes; nothing here blocks a frame). */
export interface TuiRewind {
  points(): readonly RewindPointView[];
  preview(pointId: string): Promise<RewindPreviewView>;
  /** Restores the files and forks; resolves to the new session's id (not yet open). */
  perform(preview: RewindPreviewView): Promise<{ readonly newSessionId: string; readonly summary: string }>;
}

/** One row of a session picker (TREE-02), in lineage order (TREE-01). */
export interface SessionListing {
  readonly id: string;
  readonly title: string;
  readonly description?: string;
  readonly cwd: string;
  readonly createdAt: string;
  /** updatedAt, else createdAt. */
  readonly updatedAt: string;
  readonly targets: readonly string[];
  /** Fork depth: 0 for a root, n for the n-th generation fork. */
  readonly depth: number;
}

/** One row of `/inbox` (#20.2): a session of any project that waits for the user. */
export interface InboxListing {
  readonly id: string;
  /** The session's directory; it opens there. */
  readonly cwd: string;
  readonly title: string;
  readonly agent: string | null;
  /** What it waits for, for a person. */
  readonly summary: string;
  /** The same in a few words (a picker row is narrow). */
  readonly brief: string;
  /** When it started waiting (ISO). */
  readonly since: string;
}

/** `cwd`: open the session in its own directory (an inbox row of another project); later `/sessions` and `/new` use it. */
export type SessionOpenChoice = { readonly kind: "new" } | { readonly kind: "id"; readonly id: string; readonly cwd?: string };

export interface SessionSwitcher {
  /** Sessions of the current project in lineage order (newest tree first); reads the disk asynchronously. */
  list(): Promise<readonly SessionListing[]>;
  /** Sessions of every project that wait for the user, newest first; built from the disk, the open session from memory. */
  inbox?(): Promise<readonly InboxListing[]>;
  /** Open another session (lock + recovery). Throws when it is locked or missing. */
  open(choice: SessionOpenChoice): Promise<TuiSession>;
  /** Close a session in the shutdown order (harnesses, checkpoint, log, lock). */
  close(session: TuiSession): Promise<void>;
}
