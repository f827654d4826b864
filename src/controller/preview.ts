/** IN-09 / TTL-01: the session preview is the first non-empty line the user typed, set once. */
import type { MetaPort } from "./ports.ts";

export const PREVIEW_MAX_CHARS = 100;

export function previewOf(text: string): string | undefined {
  const stripped = text.replace(/<baton-(context|sync)>[\s\S]*?<\/baton-\1>/g, "");
  for (const raw of stripped.split("\n")) {
    const line = raw.replace(/^\S+\.(png|jpe?g|gif|webp)\s+/i, "").trim();
    if (line.length === 0) continue;
    return line.length > PREVIEW_MAX_CHARS ? `${line.slice(0, PREVIEW_MAX_CHARS - 1)}…` : line;
  }
  return undefined;
}

export function capturePreview(meta: MetaPort, typed: string): void {
  const current = meta.read();
  if (current.preview !== undefined || current.forkedFrom !== undefined) return;
  const preview = previewOf(typed);
  if (preview !== undefined) meta.update((m) => ({ ...m, preview }));
}
