/**
 * What a Baton plugin author writes against (SDK 1). A plugin is a package whose entry default-exports a
 * `PluginPackage`; Baton runs it in a runner process of its own and calls `activate` once per session.
 * Nothing here can reach a harness, the session ledger or the UI: a plugin registers commands, keeps
 * Resources, logs, shows toasts and runs the programs its manifest declares.
 */
import type { ControllerRegistration } from "./controllers.ts";
import type { JsonValue } from "./json.ts";
import type { ResourceClient } from "./resources.ts";

export type { JsonValue } from "./json.ts";

/** The SDK version this package implements; the manifest's `sdk` must equal it. */
export const SDK_VERSION = 1;

export interface PluginPackage {
  /** `owner/name`, equal to the manifest's `pluginId`. */
  readonly pluginId: string;
  /** Equal to the manifest's `version`. */
  readonly version: string;
  /** Register everything here; registration is sealed once this resolves. */
  activate(ctx: ActivationContext): void | Promise<void>;
}

export interface ActivationContext {
  readonly instance: { readonly pluginInstanceId: string; readonly key: string; readonly config: JsonValue };
  readonly session: { readonly batonSessionId: string; readonly cwd: string };
  /** Private directories (mode 0700), created before `activate` runs. */
  readonly dataDirs: { readonly global: string; readonly project: string; readonly session: string; readonly instance: string };
  readonly logger: PluginLogger;
  readonly toast: { show(toast: { readonly text: string; readonly tone?: "info" | "success" | "warning" | "error" }): void };
  /** Runs a program the manifest declares under `permissions.exec`, always with a timeout and an output cap. */
  readonly exec: ExecFn;
  /** This instance's Resources in this session (only the types under `permissions.resourceTypes` are writable). */
  readonly resources: ResourceClient;
  /** Aborted when the binding closes. */
  readonly signal: AbortSignal;
  registerCommand(command: CommandRegistration): void;
  /** One controller per resource type; its type is listed under `contributes.controllers` in the manifest. */
  registerController(controller: ControllerRegistration): void;
  /**
   * A source the user can reference with `@<pluginName>.<kind>:<id>` (listed under
   * `contributes.contextProviders`). `search` runs while the user types and must have no side effect;
   * `provide` runs only once a prompt that references it is submitted.
   */
  registerContextProvider(provider: ContextProviderRegistration): void;
  /** Runs when the binding closes, in reverse order of registration. */
  onClose(cleanup: () => void | Promise<void>): void;
}

export interface LogAttributes {
  readonly component?: string;
  readonly error?: unknown;
  readonly attributes?: Readonly<Record<string, JsonValue>>;
}

export interface PluginLogger {
  debug(message: string, fields?: LogAttributes): void;
  info(message: string, fields?: LogAttributes): void;
  warn(message: string, fields?: LogAttributes): void;
  error(message: string, fields?: LogAttributes): void;
}

export interface CommandInput {
  /** What the user typed after `/<name> `. */
  readonly argument: string;
  /** The `value` of the option the user chose in a picker this command returned. */
  readonly selectedValue?: string;
  /** What the user typed into a remote-search picker this command returned (answer with the next page). */
  readonly searchQuery?: string;
  /** Aborted when Baton gives up on the call (deadline) or the binding closes. */
  readonly signal: AbortSignal;
}

export interface PickerOption {
  readonly name: string;
  readonly description?: string;
  /** Unique within the picker; what `selectedValue` carries back. */
  readonly value: string;
}

/**
 * What a command shows: a message in the transcript (authored by the plugin), a picker, or nothing.
 * Choosing an option calls `execute` again with `selectedValue`; with `search.mode: "remote"` every
 * change of the query (debounced) calls it with `searchQuery` and the picker shows the options returned.
 */
export type CommandResult =
  | { readonly kind: "message"; readonly text: string }
  | {
      readonly kind: "picker";
      readonly title: string;
      readonly options: readonly PickerOption[];
      readonly search?: { readonly mode: "local" | "remote"; readonly query?: string; readonly placeholder?: string };
    }
  | undefined
  | void;

export interface ContextCandidate {
  /** Letters, digits, '.', '_' and '-': what the reference token names. */
  readonly id: string;
  readonly label: string;
  readonly detail?: string;
}

export interface ContextProviderRegistration {
  /** Letters, digits, '_' and '-'; the reference prefix is `<pluginName>.<kind>`. */
  readonly kind: string;
  readonly description?: string;
  /** Candidates for `@` completion (at most `limit`); no side effects. */
  search(query: string, options: { readonly limit: number; readonly signal: AbortSignal }): readonly ContextCandidate[] | Promise<readonly ContextCandidate[]>;
  /**
   * The referenced content, at most `maxChars` characters (longer text is cut), or undefined when the id
   * names nothing. Name the Resource it is about to have it recorded as the context's source.
   */
  provide(
    id: string,
    options: { readonly maxChars: number; readonly signal: AbortSignal },
  ): ProvidedContext | string | undefined | Promise<ProvidedContext | string | undefined>;
}

export interface ProvidedContext {
  readonly text: string;
  readonly resource?: { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string };
}

export interface CommandRegistration {
  /** Lowercase letters, digits and hyphens; may not shadow a Baton command. Listed in the manifest too. */
  readonly name: string;
  readonly description: string;
  execute(input: CommandInput): CommandResult | Promise<CommandResult>;
}

export interface ExecOptions {
  readonly cwd?: string;
  /** Default 60 s, at most 10 min. */
  readonly timeoutMs?: number;
  /** Bytes kept of stdout and of stderr each; default 1 MiB, at most 16 MiB. */
  readonly maxOutputBytes?: number;
  /** Added to the runner's (already scrubbed) environment. */
  readonly env?: Readonly<Record<string, string>>;
  readonly input?: string;
  readonly signal?: AbortSignal;
  /**
   * Run it as the leader of a process group of its own: a timeout, an abort or its own exit stops the whole
   * group (what a test command started dies with it), and Baton stops the group if the runner dies.
   */
  readonly processGroup?: boolean;
}

export interface ExecResult {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** True when output beyond `maxOutputBytes` was dropped. */
  readonly truncated: boolean;
}

export type ExecFn = (program: string, args: readonly string[], options?: ExecOptions) => Promise<ExecResult>;
