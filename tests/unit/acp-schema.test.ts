/**
 * Schema drift for the ACP SDK pin (style rule 1): the wire shapes the ACP adapter relies on, fingerprinted from the
 * pinned `@agentclientprotocol/sdk` (its unstable v1 JSON schema, descriptions left out) and checked in at
 * tests/fixtures/acp-schema.json, with the closed vocabularies written out so a change reads as a diff. When the
 * pin changes, this fails with what changed; review the adapter against it, then run with ACP_SCHEMA_UPDATE=1.
 * It also checks that Baton's closed vocabularies cover the SDK's enums and that the method table it uses exists.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { TOOL_KINDS, TOOL_STATUSES } from "../../src/event/kinds.ts";
import { STOP_REASONS } from "../../src/event/stop-reasons.ts";
import { OPTION_KINDS } from "../../src/harness/acp/permissions.ts";
import { PROTOCOL_VERSION } from "../../src/harness/acp/start.ts";

const require = createRequire(import.meta.url);
const SDK_DIR = path.dirname(require.resolve("@agentclientprotocol/sdk/package.json"));
const FIXTURE = path.resolve(import.meta.dir, "../fixtures/acp-schema.json");

/** The schema definitions the adapter reads or writes (their references come along by content). */
const USED = [
  "InitializeRequest",
  "InitializeResponse",
  "AgentCapabilities",
  "PromptCapabilities",
  "SessionCapabilities",
  "ClientCapabilities",
  "Implementation",
  "AuthMethod",
  "NewSessionRequest",
  "NewSessionResponse",
  "LoadSessionRequest",
  "LoadSessionResponse",
  "ResumeSessionRequest",
  "ResumeSessionResponse",
  "ListSessionsRequest",
  "ListSessionsResponse",
  "SessionInfo",
  "CloseSessionRequest",
  "SetSessionModeRequest",
  "SetSessionConfigOptionRequest",
  "SetSessionConfigOptionResponse",
  "SessionModeState",
  "SessionMode",
  "SessionConfigOption",
  "SessionConfigSelect",
  "SessionConfigSelectOption",
  "SessionConfigSelectGroup",
  "PromptRequest",
  "PromptResponse",
  "Usage",
  "StopReason",
  "CancelNotification",
  "SessionNotification",
  "SessionUpdate",
  "ContentChunk",
  "ContentBlock",
  "ToolCall",
  "ToolCallUpdate",
  "ToolCallContent",
  "ToolCallLocation",
  "ToolKind",
  "ToolCallStatus",
  "Diff",
  "Terminal",
  "Plan",
  "PlanEntry",
  "AvailableCommandsUpdate",
  "AvailableCommand",
  "CurrentModeUpdate",
  "ConfigOptionUpdate",
  "UsageUpdate",
  "Cost",
  "RequestPermissionRequest",
  "RequestPermissionResponse",
  "RequestPermissionOutcome",
  "PermissionOption",
  "PermissionOptionKind",
] as const;

/** The methods the adapter calls or answers: [the SDK's methods table path, the wire name]. */
const METHODS: readonly (readonly [string, string])[] = [
  ["agent.initialize", "initialize"],
  ["agent.session.new", "session/new"],
  ["agent.session.load", "session/load"],
  ["agent.session.resume", "session/resume"],
  ["agent.session.list", "session/list"],
  ["agent.session.close", "session/close"],
  ["agent.session.setMode", "session/set_mode"],
  ["agent.session.setConfigOption", "session/set_config_option"],
  ["agent.session.prompt", "session/prompt"],
  ["agent.session.cancel", "session/cancel"],
  ["client.session.update", "session/update"],
  ["client.session.requestPermission", "session/request_permission"],
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function withoutDocs(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutDocs);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value).sort()) if (key !== "description" && key !== "title") out[key] = withoutDocs(value[key] as Json);
  return out;
}

function constsOf(def: Json, property?: string): string[] {
  const variants = (def as { oneOf?: Json[]; anyOf?: Json[] }).oneOf ?? (def as { anyOf?: Json[] }).anyOf ?? [];
  return variants
    .map((variant) => {
      const v = variant as { const?: unknown; properties?: Record<string, { const?: unknown }> };
      return property === undefined ? v.const : v.properties?.[property]?.const;
    })
    .filter((c): c is string => typeof c === "string");
}

function current() {
  const schema = JSON.parse(fs.readFileSync(path.join(SDK_DIR, "schema/v1/schema.unstable.json"), "utf8")) as { $defs: Record<string, Json> };
  const defs = schema.$defs;
  const fingerprints: Record<string, string> = {};
  for (const name of USED) {
    const def = defs[name];
    fingerprints[name] = def === undefined ? "(missing)" : createHash("sha256").update(JSON.stringify(withoutDocs(def))).digest("hex").slice(0, 16);
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(SDK_DIR, "package.json"), "utf8")) as { version: string };
  return {
    sdk: pkg.version,
    vocabularies: {
      StopReason: constsOf(defs["StopReason"] as Json),
      ToolKind: constsOf(defs["ToolKind"] as Json),
      ToolCallStatus: constsOf(defs["ToolCallStatus"] as Json),
      PermissionOptionKind: constsOf(defs["PermissionOptionKind"] as Json),
      sessionUpdate: constsOf(defs["SessionUpdate"] as Json, "sessionUpdate"),
    },
    definitions: fingerprints,
  };
}

describe("ACP SDK schema drift", () => {
  test("the pinned SDK's shapes equal the checked-in fingerprints", () => {
    const now = current();
    if (process.env["ACP_SCHEMA_UPDATE"] === "1") fs.writeFileSync(FIXTURE, `${JSON.stringify(now, null, 2)}\n`);
    const expected = JSON.parse(fs.readFileSync(FIXTURE, "utf8")) as unknown;
    expect(now).toEqual(expected as typeof now);
  });

  test("Baton's closed vocabularies cover the SDK's enums", async () => {
    const { vocabularies } = current();
    for (const reason of vocabularies.StopReason) expect(STOP_REASONS as readonly string[]).toContain(reason);
    // switch_mode is shown as `other`; every other kind is Baton's own
    for (const kind of vocabularies.ToolKind.filter((k) => k !== "switch_mode")) expect(TOOL_KINDS as readonly string[]).toContain(kind);
    for (const status of vocabularies.ToolCallStatus) expect(TOOL_STATUSES as readonly string[]).toContain(status);
    expect(Object.keys(OPTION_KINDS).sort()).toEqual([...vocabularies.PermissionOptionKind].sort());
    const sdk = await import("@agentclientprotocol/sdk/unstable");
    expect(PROTOCOL_VERSION).toBe(sdk.PROTOCOL_VERSION);
  });

  test("the methods the adapter uses are in the SDK's method table", async () => {
    const { methods } = await import("@agentclientprotocol/sdk/unstable");
    for (const [where, wire] of METHODS) {
      const found = where.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], methods);
      expect({ where, wire: found }).toEqual({ where, wire });
    }
  });
});
