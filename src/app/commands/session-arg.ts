/**
 * The session argument of `baton resume` / `baton fork`: a Baton session id (or unique prefix), or a native
 * session id — a Codex thread or a Claude Code session, bare or pinned as `cx:<id>` / `cc:<id>` — which is
 * adopted first (NAT-06/07) so the caller continues with its owning Baton session.
 */
import { assertNever } from "../../shared/assert.ts";
import { isBatonError } from "../../shared/errors.ts";
import type { SessionRef, SessionStore } from "../../store/index.ts";
import { adoptNativeSession, type AdoptionResult } from "../../adopt/adopt.ts";
import { createAppContext } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { isPinnedNativeRef, resolveNativeSession } from "../../adopt/native-ref.ts";

export type SessionArg =
  | { readonly kind: "baton"; readonly ref: SessionRef }
  | { readonly kind: "native"; readonly adoption: AdoptionResult };

export async function resolveSessionArg(io: CliIo, store: SessionStore, arg: string, cwd: string | undefined): Promise<SessionArg> {
  if (!isPinnedNativeRef(arg)) {
    try {
      return { kind: "baton", ref: store.findSession(arg) };
    } catch (error) {
      const notOurs = isBatonError(error, "session_not_found") || isBatonError(error, "session_id_invalid");
      if (!notOurs || arg.trim().startsWith("bs_")) throw error;
    }
  }
  const ctx = createAppContext(io, cwd === undefined ? {} : { cwd });
  const candidate = await resolveNativeSession(ctx, arg);
  return { kind: "native", adoption: await adoptNativeSession(ctx, candidate) };
}

export function describeAdoption(result: AdoptionResult): string {
  const id = result.ref.batonSessionId;
  const turns = (n: number): string => `${n} turn${n === 1 ? "" : "s"}`;
  switch (result.outcome) {
    case "created":
      return `adopted ${result.nativeRef} → ${id} (${turns(result.appended)} imported)\n`;
    case "updated":
      return `adopted ${result.nativeRef} → ${id} (${turns(result.appended)} new)\n`;
    case "unchanged":
      return `adopted ${result.nativeRef} → ${id} (already up to date)\n`;
    default:
      return assertNever(result.outcome);
  }
}
