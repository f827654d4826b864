/**
 * Hook trust preflight (COD-05, IX-11). Codex 0.171.0 lists configured hooks with `hooks/list`
 * (`trustStatus` managed|trusted|untrusted|modified, `currentHash`) and runs an untrusted hook only when
 * trust is bypassed. Baton keeps its own per-target fingerprints (hook-trust-store.ts): hooks the user
 * trusted through Baton, with the same definition, are enabled again without asking; anything new or
 * changed raises one `hook_trust` interaction. Trusting relaunches the app-server with
 * `--dangerously-bypass-hook-trust` before `app-server` (the spec's launch form) and starts the thread
 * with the `bypass_hook_trust` config override — on 0.171.0 the flag alone does not reach app-server
 * threads, the override does (measured: a trusted hook writes its marker only with the override).
 */
import { sha256Hex } from "../../shared/digest.ts";
import type { InteractionDraft } from "../../event/interaction-types.ts";
import type { InteractionHandler } from "../contract.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import type { TurnId } from "../../shared/ids.ts";
import type { Logger } from "../../shared/log.ts";
import type { HookFingerprints, HookTrustStore } from "./hook-trust-store.ts";
import type { HookMetadata } from "./protocol/v2/HookMetadata";
import type { HooksListResponse } from "./protocol/v2/HooksListResponse";

export const HOOK_BYPASS_FLAG = "--dangerously-bypass-hook-trust";
/** The thread config override that makes app-server threads run enabled hooks without Codex-side trust. */
export const HOOK_BYPASS_CONFIG = Object.freeze({ bypass_hook_trust: true });
export const HOOK_HARNESS_NAME = "Codex";

type HookTrustDraft = Extract<InteractionDraft, { type: "hook_trust" }>;
export type HookTrustEntry = HookTrustDraft["hooks"][number];
type NeedsTrust = HookMetadata & { readonly trustStatus: "untrusted" | "modified" };

/** The preflight runs only for an app-server launch that does not already bypass hook trust. */
export function needsHookPreflight(argv: readonly string[]): boolean {
  return argv.includes("app-server") && !argv.includes(HOOK_BYPASS_FLAG);
}

/** The same launch with the bypass flag inserted right before `app-server` (a global Codex flag). */
export function withHookBypass(argv: readonly string[]): string[] {
  const at = argv.indexOf("app-server");
  if (at === -1 || argv.includes(HOOK_BYPASS_FLAG)) return [...argv];
  return [...argv.slice(0, at), HOOK_BYPASS_FLAG, ...argv.slice(at)];
}

/** Enabled hooks Codex will not run without trust (`untrusted`/`modified`), deduplicated by key. */
export function hookCandidates(response: HooksListResponse): NeedsTrust[] {
  const byKey = new Map<string, NeedsTrust>();
  for (const entry of response.data) {
    for (const hook of entry.hooks) {
      if (!hook.enabled || (hook.trustStatus !== "untrusted" && hook.trustStatus !== "modified")) continue;
      if (!byKey.has(hook.key)) byKey.set(hook.key, hook as NeedsTrust);
    }
  }
  return [...byKey.values()];
}

/** What the hook runs, in one line (command hooks: the command itself). */
export function hookCommand(hook: HookMetadata): string {
  switch (hook.handlerType) {
    case "command":
      return hook.command;
    case "mcpTool":
      return `mcp tool ${hook.server}/${hook.tool}`;
    case "prompt":
      return "prompt hook";
    case "agent":
      return "agent hook";
    default:
      return `${String((hook as { handlerType?: unknown }).handlerType)} hook`;
  }
}

/** Codex's own `currentHash`; else a digest of the definition's stable fields. */
export function hookFingerprint(hook: HookMetadata): string {
  if (typeof hook.currentHash === "string" && hook.currentHash !== "") return hook.currentHash;
  const stable = [
    hook.key,
    hook.eventName,
    hook.handlerType,
    hook.matcher ?? null,
    hookCommand(hook),
    hook.handlerType === "command" ? hook.async : null,
    String(hook.timeoutSec),
    hook.statusMessage ?? null,
    hook.sourcePath,
    hook.source,
    hook.pluginId ?? null,
  ];
  return `baton-sha256:${sha256Hex(JSON.stringify(stable))}`;
}

export function hookTrustEntry(hook: NeedsTrust): HookTrustEntry {
  return {
    key: hook.key,
    source: hook.source,
    sourcePath: hook.sourcePath,
    trustStatus: hook.trustStatus,
    command: hookCommand(hook),
    eventName: hook.eventName,
    handlerType: hook.handlerType,
    timeoutSec: Number(hook.timeoutSec),
    ...(hook.matcher !== null && hook.matcher !== "" ? { matcher: hook.matcher } : {}),
    ...(typeof hook.currentHash === "string" && hook.currentHash !== "" ? { currentHash: hook.currentHash } : {}),
    ...(hook.pluginId !== null ? { pluginId: hook.pluginId } : {}),
    ...(hook.statusMessage !== null ? { statusMessage: hook.statusMessage } : {}),
  };
}

/** "user ×2, plugin acme" — who owns the hooks, for notices. */
export function summariseOwners(hooks: readonly HookMetadata[]): string {
  const counts = new Map<string, number>();
  for (const hook of hooks) {
    const owner = hook.pluginId !== null ? `plugin ${hook.pluginId}` : hook.source;
    counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  return [...counts].map(([owner, n]) => (n === 1 ? owner : `${owner} ×${n}`)).join(", ");
}

export type HookPreflightOutcome =
  /** Nothing needs trust: launch as is. */
  | { readonly kind: "none" }
  /** The user chose to go on without them: they stay untrusted and Codex does not run them. */
  | { readonly kind: "skipped" }
  /** Every candidate is trusted (now or before): relaunch bypassing trust; `fingerprints` are all of them. */
  | { readonly kind: "trusted"; readonly fingerprints: HookFingerprints };

export interface HookPreflightDeps {
  readonly targetId: string;
  /** The turn whose cold start this is (IX-02); without one no card can be raised and hooks stay off. */
  readonly turnId: TurnId | undefined;
  /** Saved fingerprints; absent when the host gave no state directory (trust then lasts one launch). */
  readonly store: HookTrustStore | undefined;
  readonly interactions: InteractionHandler;
  readonly listHooks: () => Promise<HooksListResponse>;
  readonly notice: (level: "info" | "warning", title: string, detail?: string) => void;
  readonly log: Logger;
}

function plural(n: number): string {
  return `${n} Codex hook${n === 1 ? "" : "s"}`;
}

/** The saved fingerprints of the target; a store that cannot be read fails closed, visibly. */
function savedFingerprints(deps: HookPreflightDeps): HookFingerprints {
  if (deps.store === undefined) return {};
  const loaded = deps.store.load();
  if (loaded.ok) return loaded.targets[deps.targetId] ?? {};
  deps.notice("warning", "Could not load saved hook trust", `${deps.store.file}: ${loaded.error}. Every Codex hook is treated as untrusted.`);
  return {};
}

export async function preflightHookTrust(deps: HookPreflightDeps): Promise<HookPreflightOutcome> {
  let listed: HooksListResponse;
  try {
    listed = await deps.listHooks();
  } catch (error) {
    // Without the list nothing is bypassed: Codex keeps refusing untrusted hooks on its own.
    deps.log.log("warn", `codex hooks/list failed; hooks stay as Codex trusts them: ${describeError(error)}`, { error });
    return { kind: "none" };
  }
  const candidates = hookCandidates(listed);
  if (candidates.length === 0) return { kind: "none" };
  const saved = savedFingerprints(deps);
  const all: Record<string, string> = {};
  for (const hook of candidates) all[hook.key] = hookFingerprint(hook);
  const asking = candidates.filter((hook) => saved[hook.key] !== all[hook.key]);
  if (asking.length === 0) {
    const n = candidates.length;
    deps.notice("info", `Enabled ${n} previously trusted Codex hook(s)`, summariseOwners(candidates));
    return { kind: "trusted", fingerprints: all };
  }
  if (deps.turnId === undefined) {
    const n = asking.length;
    deps.notice("warning", `${plural(n)} not trusted; continuing without ${n === 1 ? "it" : "them"}`, asking.map(hookCommand).join("\n"));
    return { kind: "skipped" };
  }
  const draft: HookTrustDraft = { type: "hook_trust", harnessName: HOOK_HARNESS_NAME, hooks: asking.map(hookTrustEntry) };
  const resolution = await deps.interactions.request(draft, { turnId: deps.turnId });
  switch (resolution.outcome) {
    case "trusted": {
      const fresh: Record<string, string> = {};
      for (const hook of asking) fresh[hook.key] = all[hook.key] as string;
      if (deps.store !== undefined) {
        try {
          await deps.store.trust(deps.targetId, fresh);
        } catch (error) {
          throw new BatonError("harness_start_failed", `Could not save hook trust: ${describeError(error)}`, {
            cause: error,
            hint: `Check that ${deps.store.file} is writable; Codex was not started with the hooks.`,
          });
        }
      }
      return { kind: "trusted", fingerprints: all };
    }
    case "skipped":
      return { kind: "skipped" };
    case "cancelled":
      throw new BatonError("harness_start_failed", `Codex was not started: the hook trust question was cancelled (${resolution.reason})`);
    default:
      deps.log.log("warn", `unexpected hook trust answer '${resolution.outcome}'; continuing without Codex hooks`);
      return { kind: "skipped" };
  }
}

/** After the relaunch: every hook that needs trust must still be one of the trusted definitions. */
export async function verifyHookTrust(listHooks: () => Promise<HooksListResponse>, trusted: HookFingerprints): Promise<{ ok: true } | { ok: false; reason: string }> {
  let listed: HooksListResponse;
  try {
    listed = await listHooks();
  } catch (error) {
    return { ok: false, reason: `hooks/list failed: ${describeError(error)}` };
  }
  const changed = hookCandidates(listed).filter((hook) => trusted[hook.key] !== hookFingerprint(hook));
  return changed.length === 0 ? { ok: true } : { ok: false, reason: changed.map(hookCommand).join("\n") };
}
