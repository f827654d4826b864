/**
 * The Codex native-session inspector (NAT-03): a temporary `codex app-server` answers `thread/read`
 * (identity, cwd, title) and `thread/turns/list {itemsView:"full", limit:50, cursor}` page by page; it is
 * killed afterwards. Nothing is started, resumed or written: a thread Codex has not loaded stays
 * `notLoaded`. Items map through the live adapter's item mapping (COD-08), so imported turns reduce
 * like live ones. An in-progress turn (also one still running in another Codex process: its stored
 * form has no completion time), a non-full view or a repeated cursor fail closed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PromptBlock } from "../../event/content.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import { historyBoundary } from "../history-boundary.ts";
import type { HarnessSessionInspector, InspectContext, NativeEvent, NativeHistory, NativeSessionInfo, NativeTurn, ProbeResult } from "../inspector.ts";
import { normalizeStopReason } from "../normalize.ts";
import { resolveCodexCommand } from "./executable.ts";
import type { InspectorMethods, ThreadTurnsListParams } from "./inspector-wire.ts";
import { itemCompletedParts } from "./items.ts";
import { JsonRpcError } from "../../rpc/jsonrpc.ts";
import { initialize, startAppServer } from "./app-server.ts";
import type { Thread } from "./protocol/v2/Thread";
import type { Turn } from "./protocol/v2/Turn";
import type { UserInput } from "./protocol/v2/UserInput";

const PAGE_SIZE = 50;
/** A runaway pager (a server that never ends the list) stops here: 50 × 2000 turns. */
const MAX_PAGES = 2_000;
const CALL_TIMEOUT_MS = 30_000;
const EXIT_GRACE_MS = 2_000;
const THREAD_ID = /^(urn:uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MISSING = /thread not loaded|thread not found|no rollout found|not found for thread|unknown thread|invalid thread id/i;

type Call = <M extends keyof InspectorMethods>(method: M, params: InspectorMethods[M]["params"]) => Promise<InspectorMethods[M]["result"]>;

class Unavailable extends Error {}

/** Run `body` against a fresh app-server and always kill it afterwards. */
async function withAppServer<T>(context: InspectContext, body: (call: Call) => Promise<T>): Promise<T> {
  const report = resolveCodexCommand(context.settings, context.env);
  if (!report.ok) throw new Unavailable(`Codex is not installed (searched: ${report.searched.join("; ")})`);
  const child = startAppServer(
    { argv: report.argv, cwd: context.cwd, env: context.env, log: context.log },
    {
      name: "codex app-server (inspector)",
      onRequest: (method) => {
        throw new Error(`the inspector does not answer ${method}`);
      },
    },
  );
  const peer = child.peer;
  const call: Call = (method, params) => peer.request(method, params, { timeoutMs: CALL_TIMEOUT_MS }) as never;
  try {
    await initialize(peer, "Baton (inspector)");
    return await body(call);
  } catch (error) {
    if (error instanceof BatonError && error.code === "harness_dead") {
      throw new BatonError("native_unreadable", `codex app-server stopped while Baton was reading (${child.process.stderrTail().trim().split("\n").at(-1) ?? "no output"})`, { cause: error });
    }
    throw error;
  } finally {
    await child.close("inspection finished", { termGraceMs: EXIT_GRACE_MS });
  }
}

/** Without a CODEX_HOME there are no threads: say so without starting Codex (which would create one). */
function hasCodexHome(env: Readonly<Record<string, string>>): boolean {
  const configured = env["CODEX_HOME"];
  const dir = configured !== undefined && configured.trim() !== "" ? configured : path.join(env["HOME"] ?? os.homedir(), ".codex");
  return fs.existsSync(dir);
}

function isMissing(error: unknown): boolean {
  return error instanceof JsonRpcError && MISSING.test(error.message);
}

function infoOf(thread: Thread): NativeSessionInfo {
  return {
    id: thread.id,
    cwd: thread.cwd,
    ...(thread.name === null || thread.name === "" ? {} : { title: thread.name }),
    ...(thread.preview === "" ? {} : { preview: thread.preview }),
    ...(thread.path === null ? {} : { location: thread.path }),
  };
}

function promptBlock(input: UserInput): PromptBlock | undefined {
  switch (input.type) {
    case "text":
      return { type: "text", text: input.text };
    case "image":
      return "url" in input ? { type: "image", mimeType: "image/*", uri: input.url } : undefined;
    case "localImage":
      return { type: "image", mimeType: "image/*", path: input.path };
    case "skill":
    case "mention":
      return { type: "resource_link", uri: input.path, name: input.name };
    case "audio":
    case "localAudio":
      return undefined;
    default:
      return undefined;
  }
}

function prompt(content: readonly UserInput[]): PromptBlock[] {
  return content.map(promptBlock).filter((block): block is PromptBlock => block !== undefined);
}

function iso(seconds: number | null): string | undefined {
  return seconds === null ? undefined : new Date(seconds * 1000).toISOString();
}

/** One stored Codex turn → a native turn (the first user message is its prompt; later ones are steers). */
export function codexTurn(turn: Turn): NativeTurn {
  let first: PromptBlock[] | undefined;
  const events: NativeEvent[] = [];
  for (const item of turn.items) {
    if (item.type === "userMessage") {
      if (first === undefined) first = prompt(item.content);
      else events.push({ source: "user", kind: "user_message", payload: { messageId: item.id, content: prompt(item.content), delivery: "steer" } });
      continue;
    }
    for (const part of itemCompletedParts(item)) events.push(part as NativeEvent);
  }
  const stopReason = normalizeStopReason(turn.status, { completed: "end_turn", interrupted: "cancelled" });
  if (stopReason === "failed") events.push({ kind: "_baton_error_update", payload: { message: turn.error?.message ?? `Codex turn ended with status ${turn.status}` } });
  const startedAt = iso(turn.startedAt);
  const endedAt = iso(turn.completedAt);
  return {
    nativeTurnId: turn.id,
    prompt: first ?? [],
    events,
    stopReason,
    ...(startedAt === undefined ? {} : { startedAt }),
    ...(endedAt === undefined ? {} : { endedAt }),
  };
}

async function listTurns(call: Call, threadId: string): Promise<Turn[]> {
  const turns: Turn[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params: ThreadTurnsListParams = { threadId, limit: PAGE_SIZE, sortDirection: "asc", itemsView: "full", ...(cursor === null ? {} : { cursor }) };
    const result = await call("thread/turns/list", params);
    for (const turn of result.data) {
      if (turn.itemsView !== "full") throw new BatonError("native_unreadable", `codex returned turn ${turn.id} of thread ${threadId} without its full items (${turn.itemsView})`);
      turns.push(turn);
    }
    if (result.nextCursor === null) return turns;
    if (seen.has(result.nextCursor)) throw new BatonError("native_unreadable", `codex repeated a page cursor while listing the turns of thread ${threadId}`);
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
  throw new BatonError("native_unreadable", `thread ${threadId} has more than ${PAGE_SIZE * MAX_PAGES} turns`);
}

export const codexInspector: HarnessSessionInspector = {
  async probe(nativeId: string, context: InspectContext): Promise<ProbeResult> {
    const id = nativeId.trim();
    if (!THREAD_ID.test(id) || !hasCodexHome(context.env)) return { kind: "not_found" };
    try {
      return await withAppServer(context, async (call) => ({ kind: "found", session: infoOf((await call("thread/read", { threadId: id, includeTurns: false })).thread) }));
    } catch (error) {
      if (error instanceof Unavailable) return { kind: "unavailable", reason: error.message };
      if (isMissing(error)) return { kind: "not_found" };
      return { kind: "error", message: describeError(error) };
    }
  },

  async read(nativeId: string, context: InspectContext): Promise<NativeHistory> {
    const id = nativeId.trim();
    if (!THREAD_ID.test(id) || !hasCodexHome(context.env)) throw new BatonError("session_not_found", `no Codex thread ${nativeId}`);
    try {
      return await withAppServer(context, async (call) => {
        const thread = (await call("thread/read", { threadId: id, includeTurns: false })).thread;
        const stored = await listTurns(call, thread.id);
        // A turn another process is still running (or died in) is stored without `completedAt` and read back as
        // "interrupted"; a real interrupt has its completion time. Only the last turn can still be running.
        const last = stored.at(-1);
        const running = stored.find((turn) => turn.status === "inProgress") ?? (last !== undefined && last.completedAt === null ? last : undefined);
        if (running !== undefined || thread.status.type === "active") {
          throw new BatonError("native_incomplete", `Codex thread ${thread.id} has a turn in progress${running ? ` (${running.id})` : ""}`, {
            hint: "let the turn finish in Codex (or interrupt it there), then try again",
          });
        }
        const turns = stored.map(codexTurn);
        return {
          session: infoOf(thread),
          harnessSessionId: thread.id,
          resumeState: { version: 1, data: { threadId: thread.id } },
          turns,
          boundary: historyBoundary(turns),
        };
      });
    } catch (error) {
      if (error instanceof Unavailable) throw new BatonError("harness_missing", error.message);
      if (isMissing(error)) throw new BatonError("session_not_found", `no Codex thread ${id}`);
      if (error instanceof BatonError) throw error;
      throw new BatonError("native_unreadable", `could not read Codex thread ${id}: ${describeError(error)}`, { cause: error });
    }
  },
};
