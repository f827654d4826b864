/** TTL-01: the title a person sees for a session, and the targets it used. */
import type { SessionMeta } from "./meta.ts";

const LEGACY_AUTO_TITLE = /^\S+ @ .+?( \(fork\))?$/;

export function displayTitle(meta: SessionMeta): string {
  const explicit = meta.title && !LEGACY_AUTO_TITLE.test(meta.title) ? meta.title : undefined;
  if (explicit) return explicit;
  if (meta.forkedFrom) return meta.description ?? meta.preview ?? `fork: chat @ ${meta.cwd}`;
  return meta.preview ?? meta.description ?? `chat @ ${meta.cwd}`;
}

export function targetsOf(meta: SessionMeta): string[] {
  return Object.keys(meta.harnessSessions).sort();
}
