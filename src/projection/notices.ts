/**
 * Errors and notices: appended, one timeline item each, keyed by the event's seq (`err_<seq>`, `n_<seq>`),
 * so re-reducing the same event is inert. A stall notice is a warning notice carrying its stall facts.
 */
import type { AnyEvent, EventOf } from "../event/envelope.ts";
import type { ReconcileState } from "../event/kinds.ts";
import { assertNever } from "../shared/assert.ts";
import type { ErrorItem, NoticeItem, ProjectionState, StallInfo } from "./state.ts";
import { tableGet, tableHas, tableSet } from "./table.ts";
import { pushTimeline } from "./timeline.ts";
import { clearRetrying, markRetrying } from "./turns.ts";

export function errorIdOf(seq: number): string {
  return `err_${seq}`;
}

export function noticeIdOf(seq: number): string {
  return `n_${seq}`;
}

export function reduceError(state: ProjectionState, event: EventOf<"_baton_error_update">): ProjectionState {
  const id = errorIdOf(event.seq);
  if (tableHas(state.errors, id)) return state;
  const p = event.payload;
  const item: ErrorItem = {
    id,
    message: p.message,
    code: p.code ?? null,
    retryable: p.retryable ?? null,
    willRetry: p.willRetry ?? null,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    seq: event.seq,
    ts: event.ts,
  };
  const next = pushTimeline({ ...state, errors: tableSet(state.errors, id, item), lastError: item }, "error", id);
  const turnId = event.turnId ?? null;
  return p.willRetry === true ? markRetrying(next, turnId) : clearRetrying(next, turnId);
}

function addNotice(
  state: ProjectionState,
  event: AnyEvent,
  fields: Pick<NoticeItem, "level" | "title" | "detail" | "stall">,
): ProjectionState {
  const id = noticeIdOf(event.seq);
  if (tableHas(state.notices, id)) return state;
  const item: NoticeItem = {
    id,
    ...fields,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    seq: event.seq,
    ts: event.ts,
  };
  return pushTimeline({ ...state, notices: tableSet(state.notices, id, item) }, "notice", id);
}

export function reduceNotice(state: ProjectionState, event: EventOf<"_baton_notice">): ProjectionState {
  const p = event.payload;
  return addNotice(state, event, { level: p.level, title: p.title, detail: p.detail ?? null, stall: null });
}

/** What a stall notice says, from its facts: the silence, and (L2) what the harness answered when asked. */
function stallTitle(seconds: number, verdict: ReconcileState | undefined): { level: NoticeItem["level"]; title: string } {
  const silence = `No output for ${seconds}s`;
  switch (verdict) {
    case undefined:
      return { level: "warning", title: silence };
    case "active":
      return { level: "info", title: `${silence}, but the agent reports it is still working` };
    case "waiting_approval":
      return { level: "info", title: `${silence}; the agent is waiting for an approval` };
    case "waiting_input":
      return { level: "info", title: `${silence}; the agent is waiting for input` };
    case "idle":
      return { level: "warning", title: `${silence}; the agent reports the turn is over, so Baton closed it` };
    case "unknown":
      return { level: "warning", title: `${silence}; the agent could not say whether it is still working` };
    default:
      return assertNever(verdict, "reconcile verdict");
  }
}

/**
 * Stall notices (TURN-08): one timeline item each, but only a turn's latest one is `open` — a later notice
 * (e.g. L2 refining L1) supersedes it and `_baton_stall_cleared` withdraws it when output resumes.
 */
export function reduceStallNotice(state: ProjectionState, event: EventOf<"_baton_stall_notice">): ProjectionState {
  const p = event.payload;
  const id = noticeIdOf(event.seq);
  if (tableHas(state.notices, id)) return state;
  const stall: StallInfo = { silentMs: p.silentMs, level: p.level, verdict: p.verdict ?? null, state: "open" };
  const { level, title } = stallTitle(Math.max(0, Math.round(p.silentMs / 1000)), p.verdict);
  const next = addNotice(withStallState(state, event.turnId, "superseded"), event, { level, title, detail: p.detail ?? null, stall });
  return event.turnId === undefined ? next : { ...next, stallNotices: tableSet(next.stallNotices, event.turnId, id) };
}

export function reduceStallCleared(state: ProjectionState, event: EventOf<"_baton_stall_cleared">): ProjectionState {
  return withStallState(state, event.turnId, "cleared");
}

/** Moves the turn's open stall notice to `to`; anything else is left as it is. */
function withStallState(state: ProjectionState, turnId: string | undefined, to: StallInfo["state"]): ProjectionState {
  const id = turnId === undefined ? undefined : tableGet(state.stallNotices, turnId);
  const item = id === undefined ? undefined : tableGet(state.notices, id);
  if (item?.stall === null || item?.stall === undefined || item.stall.state !== "open") return state;
  return { ...state, notices: tableSet(state.notices, item.id, { ...item, stall: { ...item.stall, state: to } }) };
}
