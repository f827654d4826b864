/** What `harnesses.claude` (and a Claude Code target) accepts; the adapter reads its settings through the same schema. */
import type { SettingSource } from "@anthropic-ai/claude-agent-sdk";
import { lazySchema } from "../../shared/lazy-schema.ts";
import type { HarnessSettingsSchema } from "../settings.ts";

export const SETTING_SOURCES = ["user", "project", "local"] as const satisfies readonly SettingSource[];

export const MAX_CLAUDE_RETRIES = 20;

export const claudeSettingsSchema = lazySchema((z) => z.strictObject({
  executable: z.string().min(1).optional(),
  settingSources: z.array(z.enum(SETTING_SOURCES)).optional(),
  /** Retries of a failed API request (429, 529, 5xx) before the turn fails; Claude Code's own default is 10 (≈3 min). */
  maxRetries: z.number().int("a whole number").min(0, "0 or more").max(MAX_CLAUDE_RETRIES, `at most ${MAX_CLAUDE_RETRIES}`).optional(),
})) satisfies HarnessSettingsSchema;

/** The setting sources Claude Code loads: the configured list, or all of them. */
export function settingSourcesOf(settings: Readonly<Record<string, unknown>>): SettingSource[] {
  const parsed = claudeSettingsSchema.shape.settingSources.safeParse(settings["settingSources"]);
  return parsed.success && parsed.data !== undefined ? [...parsed.data] : [...SETTING_SOURCES];
}
