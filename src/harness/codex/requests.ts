/**
 * Server → client requests (COD-09). One table: wire method → handler, typed by the generated protocol
 * like the notifications. Approvals and questions become Interactions; a method not in the table is a
 * JSON-RPC error.
 */
import {
  commandApproval,
  fileChangeApproval,
  legacyExecApproval,
  legacyPatchApproval,
  permissionsApproval,
  userInputQuestion,
  type PreparedInteraction,
} from "./approvals.ts";
import type { RpcId } from "../../rpc/jsonrpc.ts";
import type { CodexSessionPort } from "./session-port.ts";
import type { ServerRequestMethod, ServerRequestParams } from "./wire.ts";

type RequestPort = Pick<CodexSessionPort, "ask" | "warnShape" | "fileChanges">;
type Handlers = { readonly [M in ServerRequestMethod]?: (params: ServerRequestParams<M>, id: RpcId) => Promise<unknown> };

export interface RequestTable {
  dispatch(method: string, params: unknown, id: RpcId): Promise<unknown>;
}

export function createRequestTable(session: RequestPort): RequestTable {
  async function answer<R>(prepared: PreparedInteraction<R>, turnId: string | null, itemId: string, id: RpcId, raw: unknown): Promise<R> {
    const resolution = await session.ask(prepared.draft, turnId, itemId, id, raw);
    return prepared.reply(resolution);
  }

  const handlers: Handlers = {
    "item/commandExecution/requestApproval": (p, id) => answer(commandApproval(p, (shape) => session.warnShape(shape)), p.turnId, p.itemId, id, p),
    "item/fileChange/requestApproval": (p, id) => answer(fileChangeApproval(p, session.fileChanges(p.itemId)), p.turnId, p.itemId, id, p),
    "item/permissions/requestApproval": (p, id) => answer(permissionsApproval(p), p.turnId, p.itemId, id, p),
    "item/tool/requestUserInput": (p, id) => answer(userInputQuestion(p), p.turnId, p.itemId, id, p),
    execCommandApproval: (p, id) => answer(legacyExecApproval(p), null, p.callId, id, p),
    applyPatchApproval: (p, id) => answer(legacyPatchApproval(p), null, p.callId, id, p),
  };

  return {
    dispatch(method, params, id) {
      const handler = Object.hasOwn(handlers, method) ? (handlers as Record<string, (p: unknown, id: RpcId) => Promise<unknown>>)[method] : undefined;
      if (handler === undefined) return Promise.reject(new Error(`Baton does not handle the server request ${method}`));
      return handler(params, id);
    },
  };
}
