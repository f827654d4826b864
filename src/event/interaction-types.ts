/**
 * Interaction drafts and resolutions (inventory §3.4): the payload vocabulary of `interaction.opened` and
 * `interaction.resolved`, so it lives with the event registry that every floor may read (adapters draft it,
 * the projection folds it).
 *
 * Why here and not in `src/interaction/` (#13 decided): the registry validates every payload on append, and a
 * kind's attributes are defined once, in the registry (style.md rule 3). style.md's table lets `event` import
 * only `shared`, and `interaction` imports `event`; moving these schemas there would make the cycle the table
 * forbids. So the payload schemas stay here, and `src/interaction/` holds everything interaction-shaped that
 * is not a payload schema: the broker and its one-resolution state machine, the approval rules and the card
 * they offer, the non-interactive policy, a question's answer normalisation.
 */
import type { z } from "zod";
import { lazySchema } from "../shared/lazy-schema.ts";
import { diffBlockSchema } from "./content.ts";

export const permissionOptionSchema = lazySchema((z) => z.looseObject({
  optionId: z.string(),
  name: z.string(),
  polarity: z.enum(["allow", "reject"]),
  lifetime: z.enum(["once", "session", "persistent"]),
}));
export type PermissionOption = z.infer<typeof permissionOptionSchema>;

/**
 * What a permission would let the agent do, read by its adapter from the harness's request, so Baton's approval
 * rules can judge it (#20.4): a shell command line as the harness would run it, or the paths an edit touches
 * (absolute, or relative to the session's directory). Absent: the request cannot be judged (it always asks).
 */
export const permissionSubjectSchema = lazySchema((z) => z.discriminatedUnion("kind", [
  z.looseObject({ kind: z.literal("command"), command: z.string() }),
  z.looseObject({ kind: z.literal("edit"), paths: z.array(z.string()) }),
]));
export type PermissionSubject = z.infer<typeof permissionSubjectSchema>;

export const permissionDraftSchema = lazySchema((z) => z.looseObject({
  type: z.literal("permission"),
  title: z.string(),
  description: z.string().optional(),
  toolCallId: z.string().optional(),
  /** The file changes the request would make, shown on the card before the decision. */
  diffs: z.array(diffBlockSchema).optional(),
  options: z.array(permissionOptionSchema),
  subject: permissionSubjectSchema.optional(),
}));

export const questionOptionSchema = lazySchema((z) => z.looseObject({
  optionId: z.string().optional(),
  label: z.string(),
  description: z.string().optional(),
  preview: z.string().optional(),
  role: z.string().optional(),
}));

export const questionSchema = lazySchema((z) => z.looseObject({
  questionId: z.string(),
  header: z.string(),
  question: z.string(),
  options: z.array(questionOptionSchema).optional(),
  multiSelect: z.boolean().optional(),
  allowOther: z.boolean().optional(),
  secret: z.boolean().optional(),
}));
export type Question = z.infer<typeof questionSchema>;

export const questionDraftSchema = lazySchema((z) => z.looseObject({
  type: z.literal("question"),
  toolCallId: z.string().optional(),
  questions: z.array(questionSchema),
}));

export const hookSchema = lazySchema((z) => z.looseObject({
  key: z.string(),
  source: z.string(),
  sourcePath: z.string(),
  trustStatus: z.enum(["untrusted", "modified"]),
  command: z.string(),
  matcher: z.string().optional(),
  currentHash: z.string().optional(),
}));

export const hookTrustDraftSchema = lazySchema((z) => z.looseObject({
  type: z.literal("hook_trust"),
  harnessName: z.string(),
  hooks: z.array(hookSchema),
}));

/** The longest text a proposal may carry (plugins.md §4). */
export const PROPOSAL_TEXT_MAX = 32 * 1024;

/**
 * A suggested next input (plugins.md §4): non-blocking, carries no turn. It becomes an ordinary prompt only
 * when the user submits it (possibly edited, possibly to another target). `dedupeKey` is the proposal's
 * identity: a key the projection already holds, pending or resolved, is never proposed again.
 * `pluginContext` is the requesting plugin's own provenance (resource ref, generations), kept as given.
 */
export const proposedInputDraftSchema = lazySchema((z) => z.looseObject({
  type: z.literal("proposed_input"),
  text: z.string().min(1).max(PROPOSAL_TEXT_MAX),
  dedupeKey: z.string().min(1),
  title: z.string().optional(),
  /** The target the requester suggests; the user may pick another. */
  targetId: z.string().optional(),
  contextRefs: z.array(z.looseObject({ name: z.string() })).optional(),
  pluginContext: z.looseObject({}).optional(),
}));

export const interactionDraftSchema = lazySchema((z) => z.discriminatedUnion("type", [
  permissionDraftSchema,
  questionDraftSchema,
  hookTrustDraftSchema,
  proposedInputDraftSchema,
]));
export type InteractionDraft = z.infer<typeof interactionDraftSchema>;
export type PermissionDraft = z.infer<typeof permissionDraftSchema>;
export type QuestionDraft = z.infer<typeof questionDraftSchema>;
export type ProposedInputDraft = z.infer<typeof proposedInputDraftSchema>;

export const requesterSchema = lazySchema((z) => z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("harness"), harnessTargetId: z.string() }),
  z.looseObject({ type: z.literal("plugin"), pluginInstanceId: z.string() }),
  z.looseObject({ type: z.literal("baton") }),
]));
export type Requester = z.infer<typeof requesterSchema>;

/** Why a card was cancelled; `shutdown`: Baton closed the session while it waited (the inbox lists it, #20.2). */
export const CANCEL_REASONS = ["user", "requester", "turn", "timeout", "recovery", "non-interactive", "shutdown"] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

export const resolutionSchema = lazySchema((z) => z.discriminatedUnion("outcome", [
  z.looseObject({ outcome: z.literal("selected"), optionId: z.string(), answeredBy: z.string().optional() }),
  z.looseObject({
    outcome: z.literal("answered"),
    answers: z.record(z.string(), z.array(z.string())),
    answeredBy: z.string().optional(),
  }),
  z.looseObject({ outcome: z.literal("trusted") }),
  z.looseObject({ outcome: z.literal("skipped") }),
  z.looseObject({ outcome: z.literal("cancelled"), reason: z.enum(CANCEL_REASONS) }),
  /** A proposal was sent: `messageId` is the prompt it became (its user_message links back by parentEventId). */
  z.looseObject({ outcome: z.literal("submitted"), messageId: z.string().min(1), targetId: z.string().optional(), edited: z.boolean().optional() }),
  /** A proposal was dismissed by the user; it never returns. */
  z.looseObject({ outcome: z.literal("dismissed") }),
]));
/** `answeredBy` says who answered when it was not a person at the keyboard (e.g. `cli-policy:allow`). */
export type InteractionResolution = z.infer<typeof resolutionSchema>;
