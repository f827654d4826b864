/**
 * How the Plugin Manager reaches the rest of Baton (plugins.md §1): binding facts and consent through the
 * Controller, what a reconcile sees of the session (snapshot, plugin questions, Turn resources), and where its
 * outputs go. The app implements it; `src/plugin` never imports the Controller.
 */
import type { PluginBindingPayload } from "../event/kinds.ts";
import type { PluginBindingItem } from "../projection/state.ts";
import type { ConsentAsk } from "./catalog.ts";
import type { ReconcileOutput } from "./resources/outputs.ts";
import type { ResourceObject } from "./resources/schema.ts";

/** A reconcile output on its way to the ledger (a proposal or a plugin question). */
export interface PluginOutput {
  readonly pluginInstanceId: string;
  readonly pluginId: string;
  readonly packageVersion: string;
  readonly controllerId: string;
  readonly resource: ResourceObject;
  readonly output: ReconcileOutput;
}

export interface PluginHostPort {
  /** Append one binding fact to the session ledger. */
  record(update: PluginBindingPayload): void;
  /** The projected bindings of this session (what the ledger says now). */
  projected(): Readonly<Record<string, PluginBindingItem>>;
  /** A transient message from a plugin (`toast.show`). */
  toast(text: string, tone: "info" | "success" | "warning" | "error", pluginId: string): void;
  askConsent: ConsentAsk;
  /** The BatonSnapshot a reconcile receives (built from projection selectors). */
  snapshot?(): unknown;
  /** Where reconcile outputs go (proposals, questions); without it they are logged and dropped. */
  publish?(output: PluginOutput): void | Promise<void>;
  /** A plugin resource changed or went (`gone`): the proposals it outdates are withdrawn. */
  resourceChanged?(pluginInstanceId: string, object: ResourceObject, gone: boolean): void;
  /** The plugin questions about a resource and their outcomes (`pluginInteractions`, PIX-01). */
  interactions?(pluginInstanceId: string, resource: ResourceObject): unknown[];
  /** The session's Turn resources (RES-06), oldest first. */
  turns?(): readonly ResourceObject[];
  /** Called with each new Turn resource (a turn summary was appended). */
  onTurn?(listener: (turn: ResourceObject) => void): () => void;
  /** Called once a plugin question's answer is durable, with the resource it is about (re-enqueued, PIX-01). */
  onAnswer?(listener: (pluginInstanceId: string, resource: { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string }) => void): () => void;
}

