/** Typed construction of adapter drafts (the host stamps source/harness/target). */
import type { AdapterDraft } from "../../event/envelope.ts";
import type { EventKind, PayloadOf } from "../../event/kinds.ts";
import type { TurnId } from "../../shared/ids.ts";

export interface DraftExtra {
  readonly turnId?: TurnId | undefined;
  readonly raw?: unknown;
  readonly harnessSessionId?: string | undefined;
  readonly agentId?: string | undefined;
}

export function adapterDraft<K extends EventKind>(kind: K, payload: PayloadOf<K>, extra: DraftExtra = {}): AdapterDraft {
  const out: Record<string, unknown> = { kind, payload };
  if (extra.turnId !== undefined) out["turnId"] = extra.turnId;
  if (extra.raw !== undefined) out["raw"] = extra.raw;
  if (extra.harnessSessionId !== undefined) out["harnessSessionId"] = extra.harnessSessionId;
  if (extra.agentId !== undefined) out["agentId"] = extra.agentId;
  return out as AdapterDraft;
}
