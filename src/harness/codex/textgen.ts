/**
 * One-shot structured generation (titles, summaries) through a separate, short-lived app-server:
 * an ephemeral thread (no rollout file, nothing to resume), read-only sandbox, no approvals,
 * `outputSchema` on the turn. The live session's process is never touched.
 */
import { BatonError, describeError } from "../../shared/errors.ts";
import type { TextGenRequest } from "../capabilities.ts";
import { APP_SERVER_STOP, initialize, startAppServer, type AppServerLaunch } from "./app-server.ts";
import type { ThreadStartResponse } from "./protocol/v2/ThreadStartResponse";
import type { TurnStartResponse } from "./protocol/v2/TurnStartResponse";
import type { JsonValue } from "./protocol/serde_json/JsonValue";
import { SETUP_TIMEOUT_MS } from "./wire.ts";

export const TEXTGEN_TIMEOUT_MS = 60_000;

export interface TextGenDeps extends Omit<AppServerLaunch, "cwd"> {
  readonly clientVersion: string;
}

export async function generateStructuredWithCodex(deps: TextGenDeps, request: TextGenRequest): Promise<unknown> {
  let threadId = "";
  let lastMessage: string | undefined;
  let finish: ((status: string, error?: string) => void) | undefined;
  const done = new Promise<{ status: string; error?: string }>((resolve) => {
    finish = (status, error) => resolve(error === undefined ? { status } : { status, error });
  });
  const child = startAppServer({ ...deps, cwd: request.cwd }, {
    name: "codex app-server (textgen)",
    onNotification: (method, params) => {
      const p = params as { threadId?: string; item?: { type?: string; text?: string }; turn?: { status?: string; error?: { message?: string } | null } };
      if (p.threadId !== threadId) return;
      if (method === "item/completed" && p.item?.type === "agentMessage" && typeof p.item.text === "string") lastMessage = p.item.text;
      if (method === "turn/completed") finish?.(p.turn?.status ?? "failed", p.turn?.error?.message);
    },
    onRequest: () => {
      throw new Error("textgen never grants approvals");
    },
    onClose: (reason) => finish?.("failed", `app-server closed (${reason})`),
  });
  const peer = child.peer;
  const timer = setTimeout(() => finish?.("failed", `no answer within ${TEXTGEN_TIMEOUT_MS} ms`), TEXTGEN_TIMEOUT_MS);
  const onAbort = () => finish?.("failed", "aborted");
  request.signal?.addEventListener("abort", onAbort);
  try {
    await initialize(peer, "Baton", deps.clientVersion);
    const started = (await peer.request(
      "thread/start",
      { cwd: request.cwd, ephemeral: true, sandbox: "read-only", approvalPolicy: "never", ...(request.model !== undefined ? { model: request.model } : {}) },
      { timeoutMs: SETUP_TIMEOUT_MS },
    )) as ThreadStartResponse;
    threadId = started.thread.id;
    (await peer.request(
      "turn/start",
      { threadId, input: [{ type: "text", text: request.prompt, text_elements: [] }], outputSchema: request.schema as JsonValue },
      { timeoutMs: SETUP_TIMEOUT_MS },
    )) as TurnStartResponse;
    const outcome = await done;
    if (outcome.status !== "completed") throw new BatonError("internal", `Codex text generation ${outcome.status}${outcome.error !== undefined ? `: ${outcome.error}` : ""}`);
    if (lastMessage === undefined) throw new BatonError("internal", "Codex text generation returned no message");
    try {
      return JSON.parse(lastMessage) as unknown;
    } catch (error) {
      throw new BatonError("internal", `Codex text generation did not return JSON: ${describeError(error)}`);
    }
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", onAbort);
    await child.close("textgen done", APP_SERVER_STOP);
  }
}
