/**
 * The closed host ⇄ runner method table (plugins.md §2): one row a method, with zod schemas for params and
 * result and the deadline of each call. Both sides validate what they receive; an unknown method or
 * invalid params from the runner is a protocol violation and fails the binding closed. Adding a method is
 * one row. A known method that a side does not serve gets an error answer, never a violation.
 */
import { z } from "zod";

export const PROTOCOL_VERSION = 1;
/** LSP-style cancellation notification, both directions. */
export const CANCEL_METHOD = "$/cancelRequest";
/** JSON lines on fd 3/4 are capped at 4 MiB. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

const json = z.unknown();
const record = z.record(z.string(), z.unknown());

export const commandRegistration = z.strictObject({
  type: z.literal("command"),
  commandId: z.string().min(1),
  name: z.string().min(1),
  description: z.string(),
});
const typeWire = z.strictObject({ apiVersion: z.string(), kind: z.string() });
export const WATCH_EVENTS = ["create", "update", "delete"] as const;

/** A Source of a controller (REC-06): a resource Source runs in the runner; a cron Source is Baton's timer. */
export const sourceRegistration = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("resource"), sourceId: z.string().min(1).max(100) }),
  z.strictObject({ type: z.literal("cron"), sourceId: z.string().min(1).max(100), cron: z.string().min(1).max(200), timeZone: z.string().min(1).max(100) }),
]);
export type SourceRegistrationWire = z.infer<typeof sourceRegistration>;

export const controllerRegistration = z.strictObject({
  type: z.literal("controller"),
  /** `<apiVersion>/<Kind>` of its resource type (one controller per type and instance). */
  controllerId: z.string().min(1),
  resourceType: typeWire,
  maxConcurrency: z.number().int().min(1).max(16).optional(),
  present: z.boolean(),
  watches: z.array(z.strictObject({ resourceType: typeWire, events: z.array(z.enum(WATCH_EVENTS)) })),
  /** Absent from runners that predate Sources: none. */
  sources: z.array(sourceRegistration).max(20).optional(),
});
export type ControllerRegistrationWire = z.infer<typeof controllerRegistration>;
/** A ContextProvider (CTX-06): `kind` is the plugin's own; Baton qualifies it as `<pluginName>@<kind>`. */
export const contextProviderRegistration = z.strictObject({
  type: z.literal("contextProvider"),
  kind: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/),
  description: z.string().max(200),
});
export type ContextProviderRegistrationWire = z.infer<typeof contextProviderRegistration>;
export const registrationSchema = z.discriminatedUnion("type", [commandRegistration, controllerRegistration, contextProviderRegistration]);
export type Registration = z.infer<typeof registrationSchema>;

export const permissionsWire = z.looseObject({
  exec: z.array(z.string()),
  env: z.array(z.string()),
  network: z.boolean(),
  fs: z.looseObject({ write: z.boolean() }),
  resourceTypes: z.array(z.string()),
});

export const initializeParams = z.strictObject({
  protocolVersion: z.literal(PROTOCOL_VERSION),
  entry: z.strictObject({ pluginId: z.string(), version: z.string(), path: z.string(), packageRoot: z.string() }),
  instance: z.strictObject({ pluginInstanceId: z.string(), key: z.string() }),
  session: z.strictObject({ batonSessionId: z.string(), cwd: z.string() }),
  dataDirs: z.strictObject({ global: z.string(), project: z.string(), session: z.string(), instance: z.string() }),
  config: json,
  permissions: permissionsWire,
});
export type InitializeParams = z.infer<typeof initializeParams>;

const pickerOption = z.strictObject({ name: z.string().min(1).max(500), description: z.string().max(2_000).optional(), value: z.string().min(1).max(4_096) });

/** What a command shows (CMD-01): a message, a picker (select → called again with `selectedValue`), or nothing. */
export const commandResultSchema = z.union([
  z.strictObject({ kind: z.literal("message"), text: z.string().max(64 * 1024) }),
  z.strictObject({
    kind: z.literal("picker"),
    title: z.string().min(1).max(200),
    // A remote search may answer with an empty page; a first picker needs something to pick.
    options: z
      .array(pickerOption)
      .max(500)
      .refine((o) => new Set(o.map((x) => x.value)).size === o.length, "option values must be unique"),
    search: z.strictObject({ mode: z.enum(["local", "remote"]), query: z.string().max(500).optional(), placeholder: z.string().max(200).optional() }).optional(),
  }),
  z.strictObject({ kind: z.literal("none") }),
]);
export type CommandResultWire = z.infer<typeof commandResultSchema>;

export const BOARD_TONES = ["default", "muted", "success", "warning", "error"] as const;

/** What `present(resource)` returns for the Board (BRD-01); null hides the resource. */
export const presentationSchema = z.strictObject({
  title: z.string().min(1).max(200),
  url: z.url({ protocol: /^https?$/ }).max(2_000).optional(),
  status: z.string().max(200).optional(),
  detail: z.string().max(1_000).optional(),
  tone: z.enum(BOARD_TONES).optional(),
  priority: z.number().finite().optional(),
});
export type Presentation = z.infer<typeof presentationSchema>;

/** A candidate of a plugin ContextProvider's `search` (CTXP-01); ids are what `@<prefix>:<id>` names. */
export const contextCandidateSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "ids are letters, digits, '.', '_' and '-'").max(200),
  label: z.string().min(1).max(200),
  detail: z.string().max(500).optional(),
});

interface Row<P extends z.ZodType, R extends z.ZodType> {
  readonly params: P;
  readonly result: R;
  /** How long the caller waits before cancelling the call (the runner lives on). */
  readonly deadlineMs: number;
}

function row<P extends z.ZodType, R extends z.ZodType>(params: P, result: R, deadlineMs: number): Row<P, R> {
  return { params, result, deadlineMs };
}

/** Requests the host sends; the runner answers. */
export const HOST_REQUESTS = {
  "runner/initialize": row(initializeParams, z.strictObject({ sdk: z.number().int(), registrations: z.array(registrationSchema) }), 15_000),
  "runner/ping": row(z.strictObject({}), z.strictObject({ rssBytes: z.number().nonnegative(), pendingCalls: z.number().int().nonnegative() }), 2_000),
  "runner/shutdown": row(z.strictObject({}), z.strictObject({}), 2_000),
  "command/execute": row(
    z.strictObject({ commandId: z.string(), argument: z.string(), selectedValue: z.string().optional(), searchQuery: z.string().optional() }),
    commandResultSchema,
    30_000,
  ),
  // resources (next issue): controllers, Board, watches, context providers, sources
  // The deadline is the manifest's limits.reconcileTimeoutMs; the output is checked by the host (outputs.ts).
  "controller/reconcile": row(
    z.strictObject({ controllerId: z.string(), resource: record, snapshot: record, pluginInteractions: z.array(record) }),
    z.strictObject({ output: json.optional(), requeueAfterMs: z.number().nonnegative().optional() }),
    30_000,
  ),
  "controller/present": row(z.strictObject({ controllerId: z.string(), resource: record }), presentationSchema.nullable(), 2_000),
  "watch/map": row(
    z.strictObject({ controllerId: z.string(), watchIndex: z.number().int().nonnegative(), event: z.enum(WATCH_EVENTS), object: record, old: record.optional() }),
    z.strictObject({ requests: z.array(z.strictObject({ name: z.string() })).max(10_000) }),
    5_000,
  ),
  "context/search": row(z.strictObject({ providerKind: z.string(), query: z.string(), limit: z.number().int().min(1).max(50) }), z.array(contextCandidateSchema).max(50), 2_000),
  // `resource`: the Resource the provided text is about (its ContextSource key), when there is one.
  "context/provide": row(
    z.strictObject({ providerKind: z.string(), id: z.string(), maxChars: z.number().int().min(1) }),
    z.strictObject({ text: z.string(), resource: z.strictObject({ apiVersion: z.string(), kind: z.string(), name: z.string(), uid: z.string() }).optional() }).nullable(),
    5_000,
  ),
  // Resolves once the Source's initial scan and subscriptions are in place (REC-06).
  "source/start": row(z.strictObject({ sourceRunId: z.string(), controllerId: z.string(), sourceId: z.string() }), z.strictObject({}), 30_000),
  "source/stop": row(z.looseObject({ sourceRunId: z.string() }), z.strictObject({}), 2_000),
} as const;

const resourceRef = { apiVersion: z.string(), kind: z.string(), name: z.string() };
const expectedVersion = { expectedResourceVersion: z.string().optional() };
const stringsOrNull = z.record(z.string(), z.string().nullable());

/**
 * Requests the runner sends; the host answers within 5 s. What a resource call means (names, ownership,
 * versions) is checked by the store: a refusal is an error answer with `data.code`, not a violation.
 */
export const RUNNER_REQUESTS = {
  "resource/get": row(z.strictObject(resourceRef), record.nullable(), 5_000),
  "resource/list": row(z.strictObject({ apiVersion: z.string(), kind: z.string(), matchLabels: z.record(z.string(), z.string()).optional() }), z.array(record), 5_000),
  "resource/create": row(z.strictObject({ resource: record }), record, 5_000),
  "resource/replaceSpec": row(z.strictObject({ ...resourceRef, spec: json, ...expectedVersion }), record, 5_000),
  "resource/patchStatus": row(z.strictObject({ ...resourceRef, patch: record, ...expectedVersion }), record, 5_000),
  "resource/patchMetadata": row(z.strictObject({ ...resourceRef, labels: stringsOrNull.optional(), annotations: stringsOrNull.optional(), ...expectedVersion }), record, 5_000),
  "resource/delete": row(z.strictObject(resourceRef), record.nullable(), 5_000),
  "source/emit": row(z.looseObject({ sourceRunId: z.string(), resource: record }), json, 5_000),
} as const;

export const LOG_LEVELS_WIRE = ["debug", "info", "warn", "error"] as const;

/** Notifications the runner sends. */
export const RUNNER_NOTIFICATIONS = {
  "log/write": z.strictObject({
    level: z.enum(LOG_LEVELS_WIRE),
    message: z.string(),
    component: z.string().optional(),
    error: z.looseObject({ name: z.string().optional(), message: z.string(), stack: z.string().optional() }).optional(),
    attributes: record.optional(),
  }),
  "toast/show": z.strictObject({ text: z.string().min(1).max(500), tone: z.enum(["info", "success", "warning", "error"]).optional() }),
  "source/error": z.looseObject({ sourceRunId: z.string(), error: z.looseObject({ message: z.string() }) }),
} as const;

export const cancelParams = z.strictObject({ id: z.union([z.number(), z.string()]) });

export type HostMethod = keyof typeof HOST_REQUESTS;
export type RunnerMethod = keyof typeof RUNNER_REQUESTS;
export type RunnerNotification = keyof typeof RUNNER_NOTIFICATIONS;
export type ParamsOf<M extends HostMethod> = z.input<(typeof HOST_REQUESTS)[M]["params"]>;
export type ParamsOfRunner<M extends RunnerMethod> = z.infer<(typeof RUNNER_REQUESTS)[M]["params"]>;
export type ResultOf<M extends HostMethod> = z.infer<(typeof HOST_REQUESTS)[M]["result"]>;
export type NotificationOf<N extends RunnerNotification> = z.infer<(typeof RUNNER_NOTIFICATIONS)[N]>;

export function isHostMethod(method: string): method is HostMethod {
  return Object.hasOwn(HOST_REQUESTS, method);
}

export function isRunnerMethod(method: string): method is RunnerMethod {
  return Object.hasOwn(RUNNER_REQUESTS, method);
}

export function isRunnerNotification(method: string): method is RunnerNotification {
  return Object.hasOwn(RUNNER_NOTIFICATIONS, method);
}

/** `params.entry.path: expected string` — the first problem, as one line. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid";
  return `${issue.path.length === 0 ? "" : `${issue.path.join(".")}: `}${issue.message}`;
}
