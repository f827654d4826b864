/**
 * Session titles (TTL-02): after the first completed driven turn, a short title is generated with the
 * `textgen` capability — the preferred target, then the one that ran the turn, then the others — without
 * creating or touching a native session. Failure keeps the preview; it never blocks or fails a turn.
 */
import { outcomeOfStopReason } from "../event/stop-reasons.ts";
import { canGenerateText } from "../harness/capabilities.ts";
import type { HarnessRegistry } from "../harness/registry.ts";
import { summaryOf, summaryTexts, type ProjectionState } from "../projection/index.ts";
import { describeError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import type { HarnessBinding } from "./binding.ts";
import type { MetaPort } from "./ports.ts";
import { previewOf } from "./preview.ts";
import type { TargetId } from "../shared/ids.ts";

export const TITLE_MAX_CHARS = 50;
const INPUT_CAP = 8000;
const TIMEOUT_MS = 60_000;

export interface TitleDeps {
  readonly registry: HarnessRegistry;
  readonly meta: MetaPort;
  readonly cwd: string;
  readonly log: Logger;
  readonly binding: (targetId: TargetId) => HarnessBinding;
  readonly prefer?: string | undefined;
  /** harness id → model for title generation. */
  readonly models?: Readonly<Record<string, string>> | undefined;
  /** Aborted when the session closes: no generation outlives its session. */
  readonly signal?: AbortSignal;
}

export function sanitizeTitle(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  const line = raw.split("\n").map((l) => l.trim()).find((l) => l.length > 0) ?? "";
  const cleaned = line.replace(/^["'`“”‘’]+|["'`“”‘’.]+$/g, "").replace(/\s+/g, " ").trim();
  if (cleaned.length === 0) return undefined;
  return cleaned.length > TITLE_MAX_CHARS ? `${cleaned.slice(0, TITLE_MAX_CHARS - 1).trimEnd()}…` : cleaned;
}

export function titlePrompt(userText: string): string {
  return [
    "Write a title for a coding session that starts with the request below.",
    "3 to 8 words, under 40 characters, naming the subject and the intended outcome, in the same language as the request.",
    "Do not copy the request verbatim and do not name the project or repository. Answer with JSON {\"title\": \"...\"}.",
    "",
    "Request:",
    userText.slice(0, INPUT_CAP),
  ].join("\n");
}

/** Generate and store a title unless one exists that differs from the preview. Resolves the title or undefined. */
export async function generateTitle(deps: TitleDeps, userText: string, ranOn: string): Promise<string | undefined> {
  if (!needsTitle(deps.meta)) return undefined;
  const order = [deps.prefer, ranOn, ...deps.registry.listTargets().map((t) => t.id)].filter((id): id is TargetId => id !== undefined && deps.registry.hasTarget(id));
  const tried = new Set<string>();
  for (const targetId of order) {
    if (deps.signal?.aborted) return undefined;
    if (tried.has(targetId)) continue;
    tried.add(targetId);
    const adapter = deps.binding(targetId).adapter;
    if (!canGenerateText(adapter)) continue;
    const harness = deps.registry.target(targetId).harness;
    const model = deps.models?.[harness] ?? deps.models?.[targetId];
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
    const onClose = (): void => controller.abort();
    deps.signal?.addEventListener("abort", onClose, { once: true });
    try {
      const result = await adapter.generateStructured({
        prompt: titlePrompt(userText),
        schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"], additionalProperties: false },
        cwd: deps.cwd,
        ...(model ? { model } : {}),
        signal: controller.signal,
      });
      const title = sanitizeTitle(typeof result === "object" && result !== null ? (result as { title?: unknown }).title : result);
      if (!title) throw new Error("the answer had no usable title");
      if (!needsTitle(deps.meta)) return undefined; // the user named it meanwhile
      deps.meta.update((meta) => ({ ...meta, title }));
      deps.log.log("info", `session titled by ${targetId}`, { attributes: { title } });
      return title;
    } catch (error) {
      deps.log.log("warn", `title generation with ${targetId} failed: ${describeError(error)}`, { harnessTargetId: targetId });
    } finally {
      clearTimeout(timer);
      deps.signal?.removeEventListener("abort", onClose);
    }
  }
  return undefined;
}

function needsTitle(meta: MetaPort): boolean {
  const current = meta.read();
  if (current.forkedFrom) return false;
  return current.title === undefined || current.title === current.preview || current.title === previewOf(current.preview ?? "");
}

/** Start generation when the turn completed with something the user typed; undefined when not applicable. */
export function startTitleGeneration(state: ProjectionState, turnId: string, ranOn: string, deps: TitleDeps): Promise<string | undefined> | undefined {
  const summary = summaryOf(state, turnId);
  const userText = summary === undefined ? "" : summaryTexts(state, summary).userText;
  if (summary === undefined || userText === "" || outcomeOfStopReason(summary.stopReason) !== "completed") return undefined;
  return generateTitle(deps, userText, ranOn).catch(() => undefined);
}
