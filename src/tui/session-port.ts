/**
 * What the TUI needs from an open session and from the project's session list. The app implements these
 * over the store (the TUI never imports it); tests implement them over a test home.
 */
import type { Controller } from "../controller/controller.ts";
import type { MentionGroup } from "../../packages/chat-tui/src/index.ts";

export type ConfigId = "model" | "effort" | "mode";

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
}

export interface SessionListing {
  readonly id: string;
  readonly title: string;
  readonly createdAt: string;
  readonly targets: readonly string[];
}

export type SessionOpenChoice = { readonly kind: "new" } | { readonly kind: "id"; readonly id: string };

export interface SessionSwitcher {
  /** Sessions of the current project, newest first. */
  list(): readonly SessionListing[];
  /** Open another session (lock + recovery). Throws when it is locked or missing. */
  open(choice: SessionOpenChoice): Promise<TuiSession>;
  /** Close a session in the shutdown order (harnesses, checkpoint, log, lock). */
  close(session: TuiSession): Promise<void>;
}
