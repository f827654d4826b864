/**
 * What a reconcile may return as its output (plugins.md §4, REC-08), a closed union checked host-side:
 * `proposed-input` (non-empty text ≤ 32 KiB) or `interaction` (a question with a decisionKey; options,
 * when given, non-empty with unique ids and labels). Anything else is a reconcile error.
 */
import { z } from "zod";

export const MAX_PROPOSAL_BYTES = 32 * 1024;

const proposedInput = z.strictObject({
  kind: z.literal("proposed-input"),
  text: z
    .string()
    .refine((t) => t.trim().length > 0, "text must not be empty")
    .refine((t) => Buffer.byteLength(t) <= MAX_PROPOSAL_BYTES, "text must be at most 32 KiB"),
  title: z.string().min(1).max(200).optional(),
  targetId: z.string().min(1).optional(),
  contextRefs: z.array(z.strictObject({ name: z.string().min(1) })).max(20).optional(),
});

const option = z.strictObject({
  optionId: z.string().min(1),
  label: z.string().min(1),
  description: z.string().optional(),
  role: z.string().optional(),
});

const interaction = z.strictObject({
  kind: z.literal("interaction"),
  decisionKey: z.string().min(1).max(200),
  title: z.string().min(1).max(200),
  prompt: z.string().min(1).max(MAX_PROPOSAL_BYTES),
  options: z
    .array(option)
    .min(1, "options, when given, must not be empty")
    .refine((o) => new Set(o.map((x) => x.optionId)).size === o.length, "option ids must be unique")
    .refine((o) => new Set(o.map((x) => x.label)).size === o.length, "option labels must be unique")
    .optional(),
  allowOther: z.boolean().optional(),
});

export const reconcileOutputSchema = z.discriminatedUnion("kind", [proposedInput, interaction]);
export type ReconcileOutput = z.infer<typeof reconcileOutputSchema>;
