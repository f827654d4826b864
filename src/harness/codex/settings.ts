/**
 * What `harnesses.codex` (and a Codex target) accepts: one list per key, shared by the config schema and the
 * adapter, and checked against the generated app-server protocol so the two cannot disagree again.
 */
import type { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { argvSchema, type HarnessSettingsSchema } from "../settings.ts";
import type { ApprovalsReviewer } from "./protocol/v2/ApprovalsReviewer";
import type { AskForApproval } from "./protocol/v2/AskForApproval";
import type { SandboxMode } from "./protocol/v2/SandboxMode";

/** The string policies of `AskForApproval` (the granular object form is not offered in config). */
export const APPROVAL_POLICIES = ["untrusted", "on-request", "never"] as const satisfies readonly Extract<AskForApproval, string>[];
export const SANDBOX_MODES = ["read-only", "workspace-write", "danger-full-access"] as const satisfies readonly SandboxMode[];
export const APPROVALS_REVIEWERS = ["user", "auto_review", "guardian_subagent"] as const satisfies readonly ApprovalsReviewer[];

export const codexSettingsSchema = lazySchema((z) => z.strictObject({
  command: argvSchema.optional(),
  approvalPolicy: z.enum(APPROVAL_POLICIES).optional(),
  sandbox: z.enum(SANDBOX_MODES).optional(),
  approvalsReviewer: z.enum(APPROVALS_REVIEWERS).optional(),
})) satisfies HarnessSettingsSchema;

export type CodexSettings = z.infer<typeof codexSettingsSchema>;

/**
 * The adapter's view of its settings (config has validated them); a key whose value does not parse is left out.
 * Checked by hand, as `codexSettingsSchema` would parse each key: every thread/start asks, and the schema would
 * load zod on the way to a one-turn `baton exec`'s turn (#18).
 */
export function codexSettingsOf(settings: Readonly<Record<string, unknown>>): CodexSettings {
  const out: { -readonly [K in keyof CodexSettings]: CodexSettings[K] } = {};
  const command = settings["command"];
  if (Array.isArray(command) && command.length > 0 && command.every((arg) => typeof arg === "string" && arg.length > 0)) out.command = [...(command as string[])];
  const { approvalPolicy, sandbox, approvalsReviewer } = settings;
  if (oneOf(APPROVAL_POLICIES, approvalPolicy)) out.approvalPolicy = approvalPolicy;
  if (oneOf(SANDBOX_MODES, sandbox)) out.sandbox = sandbox;
  if (oneOf(APPROVALS_REVIEWERS, approvalsReviewer)) out.approvalsReviewer = approvalsReviewer;
  return out;
}

function oneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return (values as readonly unknown[]).includes(value);
}
