/**
 * One-shot structured generation (titles, summaries) through a separate, short-lived app-server:
 * an ephemeral thread (no rollout file, nothing to resume), read-only sandbox, no approvals,
 * `outputSchema` on the turn. The live session's process is never touched.
 */
import { BatonError, describeError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import type { TextGenRequest } from "../capabilities.ts";
import { JsonRpcPeer } from "../../rpc/jsonrpc.ts";
import type { CodexProcess, spawnAppServer } from "./process.ts";
import type { ThreadStartResponse } from "./protocol/v2/ThreadStartResponse";
import type { TurnStartResponse } from "./protocol/v2/TurnStartResponse";
import type { JsonValue } from "./protocol/serde_json/JsonValue";
import { SETUP_TIMEOUT_MS } from "./wire.ts";

export const TEXTGEN_TIMEOUT_MS = 60_000;

export interface TextGenDeps {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly log: Logger;
  readonly spawn: typeof spawnAppServer;
  readonly clientVersion: string;
}

export async function generateStructuredWithCodex(deps: TextGenDeps, request: TextGenRequest): Promise<unknown> {
  const child: CodexProcess = deps.spawn(deps.argv, { cwd: request.cwd, env: deps.env, log: deps.log });
  let threadId = "";
  let lastMessage: string | undefined;
  let finish: ((status: string, error?: string) => void) | undefined;
  const done = new Promise<{ status: string; error?: string }>((resolve) => {
    finish = (status, error) => resolve(error === undefined ? { status } : { status, error });
  });
  const peer = new JsonRpcPeer({
    transport: child.transport,
    name: "codex app-server (textgen)",
    log: deps.log,
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
  void peer.start();
  const timer = setTimeout(() => finish?.("failed", `no answer within ${TEXTGEN_TIMEOUT_MS} ms`), TEXTGEN_TIMEOUT_MS);
  const onAbort = () => finish?.("failed", "aborted");
  request.signal?.addEventListener("abort", onAbort);
  try {
    await peer.request("initialize", { clientInfo: { name: "baton", title: "Baton", version: deps.clientVersion }, capabilities: { experimentalApi: true, requestAttestation: false } }, { timeoutMs: SETUP_TIMEOUT_MS });
    peer.notify("initialized");
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
    peer.close("textgen done");
    await child.stop({ eofGraceMs: 2_000, termGraceMs: 1_000 });
  }
}
