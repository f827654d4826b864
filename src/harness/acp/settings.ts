/** What an ACP target (and `harnesses.acp`, their shared base) accepts: the agent command and its starting mode. */
import type { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { argvSchema, type HarnessSettingsSchema } from "../settings.ts";

export const acpSettingsSchema = lazySchema((z) => z.strictObject({
  /** The agent's argv, e.g. ["claude-agent-acp"]; it speaks ACP on stdio. */
  command: argvSchema.optional(),
  /** The agent's session mode to apply before the first turn (its own id, e.g. `default`, `read-only`). */
  mode: z.string().min(1).optional(),
})) satisfies HarnessSettingsSchema;

export type AcpSettings = z.infer<typeof acpSettingsSchema>;

export function acpSettingsOf(settings: Readonly<Record<string, unknown>>): AcpSettings {
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(acpSettingsSchema.shape)) {
    const parsed = schema.safeParse(settings[key]);
    if (parsed.success && parsed.data !== undefined) out[key] = parsed.data;
  }
  return out as AcpSettings;
}
