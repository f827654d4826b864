/**
 * What each registered slash command does (inventory 2.3). Commands that change the session (`/sessions`,
 * `/new`, `/compact`) refuse while a turn runs or inputs wait; `/model`, `/effort`, `/plan` apply next turn.
 */
import { selectFooter, tableValues, type ProjectionState, type ProposedPlanItem } from "../projection/index.ts";
import { describeError } from "../shared/errors.ts";
import { runApprovalsCommand } from "./approvals-view.ts";
import { runBoardCommand } from "./board-view.ts";
import { helpLines } from "./help.ts";
import { modelLabel } from "./map-activity.ts";
import { runPluginCommand } from "./plugin-commands.ts";
import { findPluginCommand, runPluginsCommand } from "./plugins-view.ts";
import { inboxPickerItem, sessionPickerItem } from "./session-rows.ts";
import { startRewind } from "./rewind-flow.ts";
import type { TuiHost } from "./tui-host.ts";
import type { TargetId } from "../shared/ids.ts";

export const IMPLEMENT_PLAN_TEXT = "Implement the plan.";
const IMPLEMENT_PREFIX = "Implement the following proposed plan:\n\n";

/** The latest proposed plan that no turn has started implementing (the current target's first). */
export function latestOpenPlan(state: ProjectionState, targetId: TargetId): ProposedPlanItem | undefined {
  let best: ProposedPlanItem | undefined;
  let bestOwn: ProposedPlanItem | undefined;
  for (const plan of tableValues(state.proposedPlans)) {
    if (plan.implementationTurnId !== null) continue;
    if (best === undefined || plan.firstSeq > best.firstSeq) best = plan;
    if (plan.harnessTargetId === targetId && (bestOwn === undefined || plan.firstSeq > bestOwn.firstSeq)) bestOwn = plan;
  }
  return bestOwn ?? best;
}

export async function runCommand(host: TuiHost, name: string, args: string): Promise<void> {
  const target = host.target;
  const look = host.lookOf(target);
  if (host.controller.targets().has(name)) {
    host.switchTarget(name, args);
    return;
  }
  switch (name) {
    case "model":
    case "effort":
      await host.config.pick(target, name, args);
      return;
    case "plan":
      await host.config.toggleMode(host.controller.state, target);
      return;
    case "implement-plan":
      await implementPlan(host, target);
      return;
    case "compact":
      compact(host, target, look.label);
      return;
    case "sessions":
      openSessionsPicker(host);
      return;
    case "rewind":
      startRewind(host);
      return;
    case "inbox":
      openInbox(host);
      return;
    case "approvals":
      runApprovalsCommand(host, args);
      return;
    case "new":
      await host.switchSession({ kind: "new" });
      return;
    case "status":
      showStatus(host);
      return;
    case "help":
      host.addLocal({
        kind: "tool",
        title: "Help",
        status: "completed",
        content: [{ type: "lines", lines: helpLines(host.commands, host.controller.targets().list().map((t) => t.id), target), clip: false }],
      });
      return;
    case "exit":
      host.exit();
      return;
    case "plugins":
      await runPluginsCommand(host, args);
      return;
    case "board":
      runBoardCommand(host, args);
      return;
    default: {
      const plugin = findPluginCommand(host.controller.state, name);
      if (plugin !== undefined) {
        await runPluginCommand(host, plugin, args);
        return;
      }
      // A command registered for completion but unknown here: send it as typed.
      host.send(target, args === "" ? `/${name}` : `/${name} ${args}`);
    }
  }
}

async function implementPlan(host: TuiHost, target: TargetId): Promise<void> {
  const state = host.controller.state;
  if (host.config.settingsOf(state, target).mode === "plan") {
    const left = await host.config.setMode(target, "default");
    if (!left) return;
  }
  const plan = latestOpenPlan(state, target);
  if (plan === undefined) host.send(target, IMPLEMENT_PLAN_TEXT);
  // The plan is the agent's text, not the user's: references in it are not expanded.
  else host.send(target, `${IMPLEMENT_PREFIX}${plan.content}`, { displayText: IMPLEMENT_PLAN_TEXT, implementsPlan: plan.planId, untyped: [plan.content] });
}

function compact(host: TuiHost, target: TargetId, label: string): void {
  if (host.isBusy()) {
    host.toast("Wait for the current turn to finish before compacting", "warning");
    return;
  }
  if (host.controller.targets().get(target)?.canCompact !== true) {
    host.toast(`${label} cannot compact its context`, "warning");
    return;
  }
  // The outcome is recorded in the transcript ("Context compacted (N → M tokens)" or why not); only a
  // compaction that could not start at all is reported here.
  host.controller.compact(target).catch((error: unknown) => host.toast(describeError(error), "error"));
  host.publish();
}

/** `/sessions`: the picker opens at once (loading) and fills when the asynchronous listing arrives (PROC-01). */
function openSessionsPicker(host: TuiHost): void {
  if (host.isBusy()) {
    host.toast("Wait for the current turn to finish (Esc interrupts it) and for the queue to empty", "warning");
    return;
  }
  const current = host.session.sessionId;
  const fill = host.openPicker("Sessions of this project", (id) => void host.switchSession({ kind: "id", id }));
  host.sessionsList().then(
    (listing) => fill(listing.map((row) => sessionPickerItem(row, { currentId: current, ...(host.home === undefined ? {} : { home: host.home }) }))),
    (error: unknown) => {
      fill(null);
      host.toast(describeError(error), "error");
    },
  );
}

/** `/inbox` (#20.2): every project's waiting sessions; Enter opens one in its own directory. */
function openInbox(host: TuiHost): void {
  if (host.isBusy()) {
    host.toast("Wait for the current turn to finish (Esc interrupts it) and for the queue to empty", "warning");
    return;
  }
  const current = host.session.sessionId;
  const rows = new Map<string, string>();
  const fill = host.openPicker("Waiting for you", (id) => void host.switchSession({ kind: "id", id, ...(rows.has(id) ? { cwd: rows.get(id)! } : {}) }));
  host.inboxList().then(
    (listing) => {
      if (listing.length === 0) {
        fill(null);
        host.toast("Nothing waits for you", "info");
        return;
      }
      for (const row of listing) rows.set(row.id, row.cwd);
      fill(listing.map((row) => inboxPickerItem(row, { currentId: current, ...(host.home === undefined ? {} : { home: host.home }) })));
    },
    (error: unknown) => {
      fill(null);
      host.toast(describeError(error), "error");
    },
  );
}

function showStatus(host: TuiHost): void {
  const state = host.controller.state;
  const target = host.target;
  const look = host.lookOf(target);
  const settings = host.config.settingsOf(state, target);
  const model = modelLabel(
    {
      target,
      lookOf: host.lookOf,
      settingsOf: (id) => host.config.settingsOf(state, id),
      contextUsageOf: (id) => (Object.hasOwn(state.perTarget, id) ? (state.perTarget[id]?.contextUsage ?? undefined) : undefined),
    },
    target,
  );
  const footer = selectFooter(state);
  host.addLocal({
    kind: "tool",
    title: "Status",
    status: "completed",
    content: [
      {
        type: "lines",
        lines: [
          `session  ${host.session.sessionId}`,
          `agent    ${look.label} (${target})${model === "" ? "" : ` · ${model}`}${settings.mode === "plan" ? " · plan mode" : ""}`,
          `cwd      ${host.session.cwd}`,
          `tokens   in:${footer.tokens.input} out:${footer.tokens.output} · turns:${footer.turns} · queue:${host.controller.queued().length}`,
        ],
      },
    ],
  });
}
