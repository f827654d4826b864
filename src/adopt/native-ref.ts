/**
 * Native session references (NAT-01): `cx:<id>` / `cc:<id>` (any target id, alias or unique prefix) pin a
 * target; a bare id is probed by every target whose harness has an inspector, in parallel. Exactly one hit
 * is used; several are an ambiguity error naming the pinned forms; any lookup failure fails closed (it is
 * never reported as "not found").
 */
import type { HarnessDefinition, HarnessTarget } from "../harness/definition.ts";
import type { HarnessSessionInspector, InspectContext, NativeSessionInfo } from "../harness/inspector.ts";
import { BatonError } from "../shared/errors.ts";
import { silentLogger } from "../shared/log.ts";
import type { AdoptContext } from "./context.ts";

export interface NativeCandidate {
  readonly target: HarnessTarget;
  readonly definition: HarnessDefinition;
  readonly inspector: HarnessSessionInspector;
  readonly context: InspectContext;
  readonly session: NativeSessionInfo;
}

export interface NativeRef {
  /** What came before the colon, when the reference pinned a target. */
  readonly prefix?: string;
  readonly id: string;
}

const PINNED = /^([A-Za-z][\w-]*):(.+)$/;

export function parseNativeRef(text: string): NativeRef {
  const trimmed = text.trim();
  const match = PINNED.exec(trimmed);
  if (match) return { prefix: match[1] as string, id: (match[2] as string).trim() };
  return { id: trimmed };
}

/** True when the text pins a harness target (`cx:…`), so it cannot be a Baton session id. */
export function isPinnedNativeRef(text: string): boolean {
  return parseNativeRef(text).prefix !== undefined;
}

function inspectContext(ctx: AdoptContext, target: HarnessTarget): InspectContext {
  return { env: { ...ctx.childEnv, ...target.env }, cwd: ctx.cwd, settings: target.settings, log: silentLogger };
}

/** Short reference a person can type to pick this candidate (`cc:<id>` when the target has an alias). */
export function pinnedForm(candidate: Pick<NativeCandidate, "definition" | "target">, id: string): string {
  const alias = candidate.target.id === candidate.definition.id ? candidate.definition.aliases[0] : undefined;
  return `${alias ?? candidate.target.id}:${id}`;
}

export async function resolveNativeSession(ctx: AdoptContext, text: string): Promise<NativeCandidate> {
  const ref = parseNativeRef(text);
  if (ref.id === "") throw new BatonError("usage", `'${text}' names no session id`);
  let targets: HarnessTarget[];
  if (ref.prefix !== undefined) {
    const match = ctx.registry.match(ref.prefix);
    if (match.kind !== "match") throw ctx.registry.refError(ref.prefix, match);
    targets = [ctx.registry.target(match.id)];
    if (ctx.registry.definitionOf(targets[0] as HarnessTarget).inspector === undefined) {
      throw new BatonError("usage", `${ref.prefix}: ${ctx.registry.definitionOf(targets[0] as HarnessTarget).label} sessions cannot be imported`);
    }
  } else {
    targets = ctx.registry.listTargets().filter((target) => ctx.registry.definitionOf(target).inspector !== undefined);
  }
  const probes = await Promise.all(
    targets.map(async (target) => {
      const definition = ctx.registry.definitionOf(target);
      const inspector = definition.inspector as HarnessSessionInspector;
      const context = inspectContext(ctx, target);
      try {
        return { target, definition, inspector, context, result: await inspector.probe(ref.id, context) };
      } catch (error) {
        return { target, definition, inspector, context, result: { kind: "error" as const, message: error instanceof Error ? error.message : String(error) } };
      }
    }),
  );
  const failed = probes.filter((probe) => probe.result.kind === "error");
  if (failed.length > 0) {
    const detail = failed.map((probe) => `${probe.target.id}: ${(probe.result as { message: string }).message}`).join("; ");
    throw new BatonError("native_unreadable", `could not look up ${ref.id} (${detail})`, {
      hint: "fix the problem above, or pin the harness (e.g. cc:<id> or cx:<id>) to look only there",
    });
  }
  const found: NativeCandidate[] = [];
  const seen = new Set<string>();
  for (const probe of probes) {
    if (probe.result.kind !== "found") continue;
    const key = `${probe.definition.id}\0${probe.result.session.location ?? probe.result.session.id}`;
    if (seen.has(key)) continue; // two targets of one harness reading the same storage: one session
    seen.add(key);
    found.push({ target: probe.target, definition: probe.definition, inspector: probe.inspector, context: probe.context, session: probe.result.session });
  }
  const [only, ...others] = found;
  if (only !== undefined && others.length === 0) return only;
  if (only !== undefined) {
    const listed = found.map((candidate) => `${pinnedForm(candidate, ref.id)} (${candidate.definition.label}${candidate.session.preview ? `: ${candidate.session.preview}` : ""})`);
    throw new BatonError("session_ambiguous", `${ref.id} is a session of more than one harness: ${listed.join(", ")}`, {
      hint: "say which one with its prefix, e.g. baton resume " + pinnedForm(only, ref.id),
    });
  }
  const unavailable = probes.filter((probe) => probe.result.kind === "unavailable");
  const where = targets.length === 0 ? "no harness that can import sessions is configured" : `looked in ${targets.map((t) => t.id).join(", ")}`;
  const missing = unavailable.length > 0 ? `; could not look in ${unavailable.map((p) => `${p.target.id} (${(p.result as { reason: string }).reason})`).join(", ")}` : "";
  throw new BatonError("session_not_found", `no Baton session or native session matches ${ref.id} (${where}${missing})`, {
    hint: "list Baton sessions with 'baton sessions --all'; native ids are Codex thread ids or Claude Code session ids",
  });
}
