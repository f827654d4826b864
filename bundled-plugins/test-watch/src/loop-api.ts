/**
 * The parts of the SDK's controller API (#16, `baton-plugin` controllers) this plugin uses, declared here
 * so the package also loads on a Baton whose SDK has no controllers yet: there `registerController` is
 * absent and the plugin offers its command only. Shapes as in packages/baton-plugin/src/controllers.ts.
 */
import type { ActivationContext, JsonValue, Resource, ResourceType } from "baton-plugin";

export interface TurnSummary {
  readonly turnId: string;
  readonly harnessTargetId: string | null;
  readonly stopReason?: string;
  readonly userText?: string;
  readonly agentText?: string;
  readonly toolCalls: readonly { readonly toolCallId: string; readonly title: string; readonly kind: string; readonly status: string }[];
  readonly endedAt?: string;
  /** The ledger revision of the turn's summary. */
  readonly revision: number;
}

export interface BatonSnapshot {
  readonly session: { readonly batonSessionId: string; readonly cwd: string; readonly runState: string; readonly revision: number };
  readonly harnessTargets: readonly { readonly harnessTargetId: string; readonly harness: string | null }[];
  readonly activeTurns?: readonly { readonly turnId: string; readonly harnessTargetId: string | null; readonly state: string }[];
  readonly latestTurn?: TurnSummary;
  readonly turns: readonly TurnSummary[];
}

export interface PluginInteraction {
  readonly interactionId: string;
  readonly decisionKey: string;
  readonly outcome?: { readonly type: "answered"; readonly values: readonly string[] } | { readonly type: "cancelled"; readonly reason: string };
}

export interface ReconcileContext {
  readonly snapshot: BatonSnapshot;
  readonly pluginInteractions: readonly PluginInteraction[];
  readonly signal: AbortSignal;
}

export type ReconcileOutput =
  | { readonly kind: "proposed-input"; readonly text: string; readonly title?: string; readonly targetId?: string; readonly contextRefs?: readonly { readonly name: string }[] }
  | {
      readonly kind: "interaction";
      readonly decisionKey: string;
      readonly title: string;
      readonly prompt: string;
      readonly options?: readonly { readonly optionId: string; readonly label: string; readonly description?: string; readonly role?: string }[];
      readonly allowOther?: boolean;
    };

export interface ReconcileResult {
  readonly output?: ReconcileOutput;
  readonly requeueAfterMs?: number;
}

export interface BoardPresentation {
  readonly title: string;
  readonly status?: string;
  readonly detail?: string;
  readonly tone?: "default" | "muted" | "success" | "warning" | "error";
  readonly priority?: number;
}

export interface ControllerSpec {
  readonly resourceType: ResourceType;
  readonly watches?: readonly { readonly resourceType: ResourceType; create?(object: Resource): readonly { readonly name: string }[] }[];
  reconcile(baton: ReconcileContext, resource: Resource): Promise<ReconcileResult | undefined> | ReconcileResult | undefined;
  present?(resource: Resource): BoardPresentation | undefined;
}

/** Registers the controller when this Baton's SDK has controllers; false when it has none. */
export function registerController(ctx: ActivationContext, spec: ControllerSpec): boolean {
  const register = (ctx as unknown as { registerController?: (spec: ControllerSpec) => void }).registerController;
  if (typeof register !== "function") return false;
  register.call(ctx, spec);
  return true;
}

export const TURN_TYPE: ResourceType = { apiVersion: "baton.dev/v1alpha1", kind: "Turn" };

export type Json = JsonValue;
