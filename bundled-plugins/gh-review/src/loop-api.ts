/** The SDK's loop types this plugin uses, and Baton's read-only Turn type (watched: one per finished turn). */
import type { ResourceType } from "baton-plugin";

export type { BatonSnapshot, BoardPresentation, ReconcileContext, ReconcileResult, TurnSummary } from "baton-plugin";

export const TURN_TYPE: ResourceType = { apiVersion: "baton.dev/v1alpha1", kind: "Turn" };
