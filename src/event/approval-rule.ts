/**
 * Approval memory owned by Baton (#20.4): the shape of one rule and of `$BATON_HOME/state/approvals.json`. The
 * store reads and writes the file, the matcher (`src/interaction/approval-rules.ts`) judges requests by it, the
 * Controller answers with it; all three read this one definition.
 */
import type { z } from "zod";
import { lazySchema } from "../shared/lazy-schema.ts";

export const RULE_TOOL_KINDS = ["command", "edit"] as const;
export type RuleToolKind = (typeof RULE_TOOL_KINDS)[number];
export type RuleDecision = "allow" | "deny";

export const approvalRuleSchema = lazySchema((z) => z
  .strictObject({
    id: z.string().regex(/^apr_[0-9A-Za-z]+$/, "an id like apr_01J…"),
    /** The project directory (a session's cwd) the rule applies to, absolute. */
    project: z.string().startsWith("/", "an absolute directory"),
    toolKind: z.enum(RULE_TOOL_KINDS),
    /** `command`: the words a shell segment starts with (`["npm", "test"]`). */
    commandPrefix: z.array(z.string().min(1)).min(1).optional(),
    /** `edit`: a glob over the project-relative path (`src/**`, `*.md`). */
    pathGlob: z.string().min(1).optional(),
    decision: z.enum(["allow", "deny"]),
    createdAt: z.string(),
    /** Where the choice was made (for `/approvals`): the session and the agent that asked. */
    createdIn: z.strictObject({ sessionId: z.string(), targetId: z.string() }).optional(),
  })
  .refine((rule) => (rule.toolKind === "command" ? rule.commandPrefix !== undefined && rule.pathGlob === undefined : rule.pathGlob !== undefined && rule.commandPrefix === undefined), {
    message: "a command rule has commandPrefix (and no pathGlob); an edit rule has pathGlob (and no commandPrefix)",
  }));
export type ApprovalRule = z.infer<typeof approvalRuleSchema>;

export const APPROVALS_FILE_VERSION = 1;

export const approvalsFileSchema = lazySchema((z) => z.strictObject({
  version: z.literal(APPROVALS_FILE_VERSION),
  rules: z.array(approvalRuleSchema),
}));
export type ApprovalsFile = z.infer<typeof approvalsFileSchema>;

/** What the rule covers, for a person: `npm test`, `edits to src/**`. */
export function describeRule(rule: { readonly toolKind: RuleToolKind; readonly commandPrefix?: readonly string[] | undefined; readonly pathGlob?: string | undefined }): string {
  return rule.toolKind === "command" ? (rule.commandPrefix ?? []).join(" ") : `edits to ${rule.pathGlob ?? ""}`;
}
