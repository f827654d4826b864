/**
 * Controllers (SDK 1): a plugin's reconcile loop over one resource type. Baton calls `reconcile` whenever
 * something relevant changed — the resource itself, a watched resource, a Source, a cron tick, a requeue
 * or an error backoff — one call per resource at a time, never two at once for the same resource. What
 * `reconcile` returns may suggest the next input or ask the user; it never drives an agent.
 */
import type { Resource, ResourceRef, ResourceType, OwnerRef } from "./resources.ts";
import type { JsonValue } from "./json.ts";

/** What Baton knows about the session when a reconcile starts (deep-frozen). */
export interface BatonSnapshot {
  readonly session: { readonly batonSessionId: string; readonly cwd: string; readonly runState: string; readonly revision: number };
  readonly activeTurns: readonly { readonly turnId: string; readonly harnessTargetId: string | null; readonly state: string }[];
  /** Every configured target, whether the session has used it yet or not. */
  readonly harnessTargets: readonly { readonly harnessTargetId: string; readonly harness: string | null }[];
  readonly pendingInteractions: readonly { readonly interactionId: string; readonly kind: string; readonly turnId: string | null }[];
  readonly latestTurn?: TurnSummary;
  readonly turns: readonly TurnSummary[];
  /**
   * Baton's clock when this reconcile started (ms since the epoch): the clock cron Sources tick on. Decide
   * whether something is due with it rather than `Date.now()`, so a tick and the decision agree.
   */
  readonly now: number;
}

export interface TurnSummary {
  readonly turnId: string;
  readonly harnessTargetId: string | null;
  readonly stopReason?: string;
  readonly userText?: string;
  readonly agentText?: string;
  readonly toolCalls: readonly { readonly toolCallId: string; readonly title: string; readonly kind: string; readonly status: string }[];
  readonly startedAt?: string;
  readonly endedAt?: string;
  /** The ledger revision (seq) of the summary. */
  readonly revision: number;
}

/** An earlier `interaction` output about this resource, and what became of it. */
export interface PluginInteraction {
  readonly interactionId: string;
  readonly decisionKey: string;
  readonly resource: OwnerRef;
  readonly outcome?: { readonly type: "answered"; readonly values: readonly string[] } | { readonly type: "cancelled"; readonly reason: string };
}

export interface ReconcileContext {
  readonly snapshot: BatonSnapshot;
  readonly pluginInteractions: readonly PluginInteraction[];
  /** Aborted when Baton gives up on this reconcile (its deadline) or the binding closes. */
  readonly signal: AbortSignal;
}

export type ReconcileOutput =
  | {
      readonly kind: "proposed-input";
      /** Non-empty, at most 32 KiB: what the user will be offered to send. */
      readonly text: string;
      readonly title?: string;
      readonly targetId?: string;
      readonly contextRefs?: readonly { readonly name: string }[];
    }
  | {
      readonly kind: "interaction";
      /** One question per (resource, decisionKey); asking again while it is open returns the same one. */
      readonly decisionKey: string;
      readonly title: string;
      readonly prompt: string;
      readonly options?: readonly { readonly optionId: string; readonly label: string; readonly description?: string; readonly role?: string }[];
      readonly allowOther?: boolean;
    };

export interface ReconcileResult {
  readonly output?: ReconcileOutput;
  /** Reconcile this resource again after this many ms (persisted: a restart keeps it). */
  readonly requeueAfterMs?: number;
}

/** What the Board shows for a resource (BRD-01); undefined hides it. */
export interface BoardPresentation {
  readonly title: string;
  readonly url?: string;
  readonly status?: string;
  readonly detail?: string;
  readonly tone?: "default" | "muted" | "success" | "warning" | "error";
  readonly priority?: number;
}

export interface SourceContext {
  /**
   * Create the resource if it is missing (a new uid), or wake it when it is identical; a different spec
   * or owner, or a different value of a supplied label/annotation, is rejected.
   */
  emit(resource: {
    readonly name: string;
    readonly spec: JsonValue;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly owner?: OwnerRef;
  }): Promise<void>;
  /** A failure after `start` resolved (logged and shown). */
  reportError(error: unknown): void;
  /** Aborted when the binding closes. */
  readonly signal: AbortSignal;
}

export type SourceRegistration =
  | {
      readonly type: "resource";
      readonly sourceId: string;
      /** Resolve once the initial scan and subscriptions are in place. */
      start(ctx: SourceContext): void | Promise<void>;
    }
  | {
      readonly type: "cron";
      readonly sourceId: string;
      /** 5 or 6 fields (with seconds first). */
      readonly cron: string;
      /** IANA time zone, e.g. `Europe/Berlin`. */
      readonly timeZone: string;
    };

export interface WatchRegistration {
  readonly resourceType: ResourceType;
  /** Each returns the names of the controller's own resources to wake. */
  create?(object: Resource): readonly { readonly name: string }[] | Promise<readonly { readonly name: string }[]>;
  update?(old: Resource, object: Resource): readonly { readonly name: string }[] | Promise<readonly { readonly name: string }[]>;
  delete?(object: Resource): readonly { readonly name: string }[] | Promise<readonly { readonly name: string }[]>;
}

export interface ControllerRegistration {
  /** Listed in the manifest under `contributes.controllers` (as `<apiVersion>/<Kind>`). */
  readonly resourceType: ResourceType;
  readonly sources?: readonly SourceRegistration[];
  readonly watches?: readonly WatchRegistration[];
  /** How many resources of this type may reconcile at once (default 1, at most 16). */
  readonly maxConcurrency?: number;
  reconcile(baton: ReconcileContext, resource: Resource): ReconcileResult | undefined | void | Promise<ReconcileResult | undefined | void>;
  present?(resource: Resource): BoardPresentation | undefined | Promise<BoardPresentation | undefined>;
}

export type { ResourceRef };
