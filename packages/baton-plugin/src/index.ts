/** The Baton plugin SDK (the `baton-plugin` package): the authoring types, `definePlugin` and `exec`. */
export { definePlugin } from "./define.ts";
export {
  configureExec,
  createExec,
  exec,
  ExecRefused,
  EXEC_DEFAULT_OUTPUT_BYTES,
  EXEC_DEFAULT_TIMEOUT_MS,
  EXEC_MAX_OUTPUT_BYTES,
  EXEC_MAX_TIMEOUT_MS,
  type GroupChild,
  type GroupSpawner,
} from "./exec.ts";
export type {
  BatonSnapshot,
  BoardPresentation,
  ControllerRegistration,
  PluginInteraction,
  ReconcileContext,
  ReconcileOutput,
  ReconcileResult,
  SourceContext,
  SourceRegistration,
  TurnSummary,
  WatchRegistration,
} from "./controllers.ts";
export {
  ResourceError,
  type NewResource,
  type OwnerRef,
  type Resource,
  type ResourceClient,
  type ResourceErrorCode,
  type ResourceMetadata,
  type ResourceRef,
  type ResourceType,
  type WriteOptions,
} from "./resources.ts";
export {
  SDK_VERSION,
  type ActivationContext,
  type CommandInput,
  type CommandRegistration,
  type CommandResult,
  type ExecFn,
  type ExecOptions,
  type ExecResult,
  type JsonValue,
  type LogAttributes,
  type PluginLogger,
  type PluginPackage,
} from "./types.ts";
