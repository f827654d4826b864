/** Content blocks: what users send (PromptBlock) and what agents produce (ContentBlock, open). */
import type { z } from "zod";
import { lazySchema } from "../shared/lazy-schema.ts";

export const textBlockSchema = lazySchema((z) => z.looseObject({ type: z.literal("text"), text: z.string() }));
export const imageBlockSchema = lazySchema((z) => z.looseObject({
  type: z.literal("image"),
  mimeType: z.string(),
  data: z.string().optional(),
  path: z.string().optional(),
  uri: z.string().optional(),
}));
export const audioBlockSchema = lazySchema((z) => z.looseObject({ type: z.literal("audio"), mimeType: z.string(), data: z.string() }));
export const resourceBlockSchema = lazySchema((z) => z.looseObject({
  type: z.literal("resource"),
  resource: z.looseObject({
    uri: z.string(),
    mimeType: z.string().optional(),
    text: z.string().optional(),
    blob: z.string().optional(),
  }),
}));
export const resourceLinkBlockSchema = lazySchema((z) => z.looseObject({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.string(),
  mimeType: z.string().optional(),
  description: z.string().optional(),
}));

export const promptBlockSchema = lazySchema((z) => z.discriminatedUnion("type", [
  textBlockSchema,
  imageBlockSchema,
  audioBlockSchema,
  resourceBlockSchema,
  resourceLinkBlockSchema,
]));
export type PromptBlock = z.infer<typeof promptBlockSchema>;

/**
 * Context a reference named that travels as a snapshot of its own (CTX-03) rather than inside the prompt:
 * a plugin Resource. Recorded as `_baton_context_snapshot` when its turn is dispatched, receipted once the
 * adapter accepted it.
 */
export interface ContextAttachment {
  /** The reference as typed (`@board.card:a`), shown before the text. */
  readonly token: string;
  readonly source: { readonly kind: "plugin_resource"; readonly owner: string; readonly key: string };
  readonly text: string;
}
export const contextAttachmentSchema = lazySchema((z) => z.looseObject({
  token: z.string(),
  source: z.looseObject({ kind: z.literal("plugin_resource"), owner: z.string().min(1), key: z.string().min(1) }),
  text: z.string(),
}));
export type PromptBlockType = PromptBlock["type"];
export type TextBlock = z.infer<typeof textBlockSchema>;

export const diffChangeSchema = lazySchema((z) => z.looseObject({
  operation: z.string(),
  path: z.string(),
  oldPath: z.string().optional(),
}));
export const diffBlockSchema = lazySchema((z) => z.looseObject({
  type: z.literal("diff"),
  changes: z.array(diffChangeSchema),
  patch: z.string().optional(),
}));
export type DiffBlock = z.infer<typeof diffBlockSchema>;

/** Output content is open: known shapes are text, image, diff; anything else is kept and shown generically. */
export const contentBlockSchema = lazySchema((z) => z.looseObject({ type: z.string() }));
export type ContentBlock = { readonly type: string; readonly [key: string]: unknown };

export function textOf(blocks: readonly ContentBlock[] | undefined): string {
  if (!blocks) return "";
  let out = "";
  for (const block of blocks) {
    if (block.type === "text" && typeof block["text"] === "string") out += block["text"];
  }
  return out;
}

export function text(value: string): TextBlock {
  return { type: "text", text: value };
}
