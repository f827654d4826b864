/** Server → client requests (COD-09): approvals and questions become Interactions; anything else is a JSON-RPC error. */
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
import type { CodexSession } from "./session.ts";
import type { ServerRequestParams } from "./wire.ts";

async function answer<R>(session: CodexSession, prepared: PreparedInteraction<R>, turnId: string | null, itemId: string, id: RpcId, raw: unknown): Promise<R> {
  const resolution = await session.ask(prepared.draft, turnId, itemId, id, raw);
  return prepared.reply(resolution);
}

export function handleServerRequest(session: CodexSession, method: string, params: unknown, id: RpcId): Promise<unknown> {
  switch (method) {
    case "item/commandExecution/requestApproval": {
      const p = params as ServerRequestParams<"item/commandExecution/requestApproval">;
      return answer(session, commandApproval(p, (shape) => session.warnShape(shape)), p.turnId, p.itemId, id, p);
    }
    case "item/fileChange/requestApproval": {
      const p = params as ServerRequestParams<"item/fileChange/requestApproval">;
      return answer(session, fileChangeApproval(p, session.fileChanges.get(p.itemId) ?? []), p.turnId, p.itemId, id, p);
    }
    case "item/permissions/requestApproval": {
      const p = params as ServerRequestParams<"item/permissions/requestApproval">;
      return answer(session, permissionsApproval(p), p.turnId, p.itemId, id, p);
    }
    case "item/tool/requestUserInput": {
      const p = params as ServerRequestParams<"item/tool/requestUserInput">;
      return answer(session, userInputQuestion(p), p.turnId, p.itemId, id, p);
    }
    case "execCommandApproval": {
      const p = params as ServerRequestParams<"execCommandApproval">;
      return answer(session, legacyExecApproval(p), null, p.callId, id, p);
    }
    case "applyPatchApproval": {
      const p = params as ServerRequestParams<"applyPatchApproval">;
      return answer(session, legacyPatchApproval(p), null, p.callId, id, p);
    }
    default:
      return Promise.reject(new Error(`Baton does not handle the server request ${method}`));
  }
}
