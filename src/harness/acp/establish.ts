/**
 * Which native session a new connection continues (the fallback chain). Capability flags sometimes lie (qwen-code
 * 0.15 advertises resume and answers -32601; gemini-cli's load fails), so every step that fails falls through:
 * `session/resume` (when advertised) → `session/load` (when advertised; its replayed history is counted, not
 * appended: it is already in the ledger) → `markFresh` and `session/new`, so the host delivers the history.
 * A resume can also succeed for a session the agent no longer has (codex-acp 2.6 answers it, and only the first
 * prompt fails with "thread not found"), so where the agent lists sessions, a resumed one must be listed.
 */
import type { LoadSessionResponse, NewSessionResponse, ResumeSessionResponse } from "@agentclientprotocol/sdk/unstable";
import { BatonError, describeError } from "../../shared/errors.ts";
import type { BindingSink, ResumeState } from "../contract.ts";
import type { AcpSession } from "./session.ts";
import { rpcErrorOf } from "./session.ts";
import { withTimeout } from "./timeout.ts";

export type Via = "resume" | "load" | "new";

export const RESUME_STATE_VERSION = 1;
/** session/new, load and resume start agent work (Claude Code, codex app-server): generous, but bounded. */
export const SESSION_SETUP_MS = 60_000;
/** ACP's "authentication required". */
const AUTH_REQUIRED = -32000;

export function resumeSessionId(state: ResumeState | undefined): string | undefined {
  if (state === undefined || state.version !== RESUME_STATE_VERSION) return undefined;
  const id = state.data["sessionId"];
  return typeof id === "string" && id !== "" ? id : undefined;
}

export interface Abilities {
  readonly resume: boolean;
  readonly load: boolean;
  readonly list: boolean;
}

const LIST_PAGES = 20;

/** True/false when `session/list` can tell whether the agent has the session in `cwd`; undefined when it cannot. */
async function isListed(session: AcpSession, sessionId: string, cwd: string): Promise<boolean | undefined> {
  let cursor: string | undefined;
  try {
    for (let page = 0; page < LIST_PAGES; page++) {
      const listed = await withTimeout(session.wire.request("session/list", { cwd, ...(cursor !== undefined ? { cursor } : {}) }), SESSION_SETUP_MS, "session/list");
      if (listed.sessions.some((info) => info.sessionId === sessionId)) return true;
      if (typeof listed.nextCursor !== "string" || listed.nextCursor === "") return false;
      cursor = listed.nextCursor;
    }
  } catch (error) {
    if (session.dead || rpcErrorOf(error) === undefined) throw error;
    session.deps.log.log("info", `${session.deps.label}: session/list failed; trusting the resume`, { error });
  }
  return undefined;
}

export interface Established {
  readonly via: Via;
  readonly sessionId: string;
  /** How many replayed updates `session/load` sent (not appended). */
  readonly replayed?: number;
}

/** Authentication is the user's business with the agent: Baton never sends `authenticate`. */
export function authError(error: unknown, label: string, authMethods: readonly { id: string; name?: string }[]): BatonError | undefined {
  const rpc = rpcErrorOf(error);
  if (rpc?.code !== AUTH_REQUIRED) return undefined;
  const methods = authMethods.map((m) => m.name ?? m.id).join(", ");
  return new BatonError("harness_start_failed", `${label} needs you to log in first (${rpc.message}${methods !== "" ? `; it offers: ${methods}` : ""})`, {
    hint: "Log in with the agent's own command (Baton never authenticates for an agent), then try again.",
  });
}

export async function establishSession(
  session: AcpSession,
  input: { readonly cwd: string; readonly resumeState?: ResumeState | undefined; readonly abilities: Abilities; readonly binding: BindingSink; readonly authMethods: readonly { id: string; name?: string }[] },
): Promise<Established> {
  const { cwd, abilities } = input;
  const label = session.deps.label;
  const stored = resumeSessionId(input.resumeState);
  const failures: string[] = [];
  const attempt = async <T,>(method: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await withTimeout(run(), SESSION_SETUP_MS, `${label} ${method}`);
    } catch (error) {
      const auth = authError(error, label, input.authMethods);
      if (auth !== undefined) throw auth;
      if (session.dead || rpcErrorOf(error) === undefined) throw error;
      failures.push(`${method}: ${describeError(error)}`);
      session.deps.log.log("info", `${label}: ${method} of ${stored ?? "?"} failed; trying the next way`, { error });
      return undefined;
    }
  };
  if (stored !== undefined) {
    let unlisted = false;
    if (abilities.resume) {
      const resumed = await attempt<ResumeSessionResponse>("session/resume", () => session.wire.request("session/resume", { sessionId: stored, cwd, mcpServers: [] }));
      const listed = resumed === undefined || !abilities.list ? undefined : await isListed(session, stored, cwd);
      if (listed === false) {
        unlisted = true;
        failures.push(`session/resume answered, but session/list does not have ${stored}`);
      }
      if (resumed !== undefined && listed !== false) {
        session.sessionId = stored;
        session.config.reset(resumed.modes, resumed.configOptions);
        return { via: "resume", sessionId: stored };
      }
    }
    // An agent that lists its sessions and does not list this one does not have it: loading it cannot work either.
    if (abilities.load && !unlisted) {
      session.sessionId = stored;
      const window = { count: 0 };
      session.replaying = window;
      let loaded: LoadSessionResponse | undefined;
      try {
        loaded = await attempt<LoadSessionResponse>("session/load", () => session.wire.request("session/load", { sessionId: stored, cwd, mcpServers: [] }));
      } finally {
        session.replaying = undefined;
      }
      if (loaded !== undefined) {
        session.config.reset(loaded.modes, loaded.configOptions);
        session.deps.log.log("info", `${label}: loaded session ${stored}; ${window.count} replayed updates kept out of the ledger (already in it)`);
        return { via: "load", sessionId: stored, replayed: window.count };
      }
      session.sessionId = "";
    }
    const reason = failures.length > 0 ? failures.join("; ") : "the agent can neither resume nor load sessions";
    input.binding.markFresh?.(`${label} cannot continue session ${stored} (${reason})`);
  }
  const created = await attempt<NewSessionResponse>("session/new", () => session.wire.request("session/new", { cwd, mcpServers: [] }));
  if (created === undefined) throw new BatonError("harness_start_failed", `${label} could not start a session: ${failures.at(-1) ?? "no answer"}`);
  session.sessionId = created.sessionId;
  session.config.reset(created.modes, created.configOptions);
  return { via: "new", sessionId: created.sessionId };
}
