/**
 * Capabilities (HAR-06/07) are marker objects `{supported:true}` on `adapter.capabilities`,
 * discovered by type guards. Declared ⇒ implemented (pinned by the contract suite).
 */
import type { PayloadOf, ReconcileState } from "../event/kinds.ts";
import type { PromptBlock } from "../event/content.ts";
import type { HarnessAdapter, HarnessHandle, SendTurnResult } from "./contract.ts";
import type { TurnId } from "../shared/ids.ts";
import type { ConfigId } from "../shared/config-ids.ts";

export interface Marker {
  readonly supported: true;
}
export const SUPPORTED: Marker = Object.freeze({ supported: true });

export interface Capabilities {
  readonly prompt?: {
    readonly image?: Marker;
    readonly audio?: Marker;
    readonly embeddedResource?: Marker;
    readonly resourceLink?: Marker;
  };
  readonly compact?: Marker;
  /** Takes catch-up history without a turn (CTX-03 `sync_context`); otherwise it is prepended to the prompt. */
  readonly syncContext?: Marker;
  readonly commands?: Marker;
  readonly config?: Marker;
  readonly reconcile?: Marker;
  readonly approvalRouting?: Marker;
  readonly textgen?: Marker;
  readonly interactions?: {
    readonly permission?: Marker;
    readonly question?: Marker;
    readonly elicitation?: Marker;
  };
}

/** Top-level capability names and the methods each one requires. */
export const CAPABILITY_METHODS = {
  compact: ["compactContext"],
  syncContext: ["syncContext"],
  commands: [],
  config: ["getConfig", "setConfig"],
  reconcile: ["reconcile"],
  approvalRouting: ["approvalRoute"],
  textgen: ["generateStructured"],
} as const satisfies Record<Exclude<keyof Capabilities, "prompt" | "interactions">, readonly string[]>;

export type SessionConfigOption = PayloadOf<"config_option_update">["options"][number];

export interface Compactable {
  /** Run native compaction as a control turn bound to `turnId`; terminal as for any turn. */
  compactContext(handle: HarnessHandle, turnId: TurnId): Promise<SendTurnResult>;
}

export interface Configurable {
  /** Full snapshot of model/effort/mode options; works before a native session exists when possible. */
  getConfig(handle: HarnessHandle | undefined): Promise<readonly SessionConfigOption[]>;
  /** Applies from the next turn on; `value: "default"` clears the override. */
  setConfig(handle: HarnessHandle | undefined, id: ConfigId, value: string): Promise<void>;
}

export interface ReconcileResult {
  readonly state: ReconcileState;
  readonly detail?: string;
}

export interface Reconcilable {
  reconcile(handle: HarnessHandle, turnId: TurnId): Promise<ReconcileResult>;
}

export interface ApprovalRouting {
  /** The effective route as the harness reported it; never inferred from Baton config. */
  approvalRoute(handle: HarnessHandle): "user" | "delegated" | null;
}

export interface TextGenRequest {
  readonly prompt: string;
  readonly schema: Readonly<Record<string, unknown>>;
  readonly cwd: string;
  readonly model?: string;
  readonly signal?: AbortSignal;
}

export interface TextGenerating {
  /** One-shot structured generation that creates or touches no persistent native session. */
  generateStructured(request: TextGenRequest): Promise<unknown>;
}

export interface ContextSynchronizable {
  /** Resolves once the native session holds the blocks as history (the receipt follows at once); throws if not. */
  syncContext(handle: HarnessHandle, blocks: readonly PromptBlock[]): Promise<void>;
}

const declared = (marker: Marker | undefined): boolean => marker?.supported === true;

/** True when `capabilities` declares the top-level capability `name` (no adapter needed: definitions declare them too). */
export function declares(capabilities: Capabilities, name: keyof typeof CAPABILITY_METHODS): boolean {
  return declared(capabilities[name]);
}

export function canCompact(adapter: HarnessAdapter): adapter is HarnessAdapter & Compactable {
  return declared(adapter.capabilities.compact);
}
export function canConfigure(adapter: HarnessAdapter): adapter is HarnessAdapter & Configurable {
  return declared(adapter.capabilities.config);
}
export function canReconcile(adapter: HarnessAdapter): adapter is HarnessAdapter & Reconcilable {
  return declared(adapter.capabilities.reconcile);
}
export function reportsApprovalRoute(adapter: HarnessAdapter): adapter is HarnessAdapter & ApprovalRouting {
  return declared(adapter.capabilities.approvalRouting);
}
export function canGenerateText(adapter: HarnessAdapter): adapter is HarnessAdapter & TextGenerating {
  return declared(adapter.capabilities.textgen);
}
export function canSyncContext(adapter: HarnessAdapter): adapter is HarnessAdapter & ContextSynchronizable {
  return declared(adapter.capabilities.syncContext);
}

/** The prompt block types an adapter accepts: text always, others by marker. */
export function supportedPromptBlocks(capabilities: Capabilities): Set<PromptBlock["type"]> {
  const set = new Set<PromptBlock["type"]>(["text"]);
  if (declared(capabilities.prompt?.image)) set.add("image");
  if (declared(capabilities.prompt?.audio)) set.add("audio");
  if (declared(capabilities.prompt?.embeddedResource)) set.add("resource");
  if (declared(capabilities.prompt?.resourceLink)) set.add("resource_link");
  return set;
}

/** Contract check: every declared top-level capability has its methods. Returns the problems. */
export function checkCapabilityMethods(adapter: HarnessAdapter): string[] {
  const problems: string[] = [];
  const caps = adapter.capabilities as Record<string, unknown>;
  for (const key of Object.keys(caps)) {
    if (key === "prompt" || key === "interactions") continue;
    if (!Object.hasOwn(CAPABILITY_METHODS, key)) {
      problems.push(`unregistered capability marker '${key}'`);
      continue;
    }
    if (!declared(caps[key] as Marker | undefined)) continue;
    for (const method of CAPABILITY_METHODS[key as keyof typeof CAPABILITY_METHODS]) {
      if (typeof (adapter as unknown as Record<string, unknown>)[method] !== "function") {
        problems.push(`declares '${key}' but has no ${method}()`);
      }
    }
  }
  return problems;
}
