/**
 * `baton repl`: a line-oriented loop for pipes and debugging. `you> ` prompt, streamed text, tool lines,
 * approvals and questions answered inline by number, a plugin's questions with `/answer`, `/exit`, `/<target> [message]`
 * to switch.
 */
import type { DiffBlock } from "../../event/content.ts";
import type { AnyEvent } from "../../event/envelope.ts";
import type { InteractionDraft, InteractionResolution } from "../../event/interaction-types.ts";
import { describeError } from "../../shared/errors.ts";
import { createAppContext, openSessionIn } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { exitHints } from "../exit-hints.ts";
import type { OpenedSession } from "../open-session.ts";
import { startCliPlugins } from "../cli-plugins.ts";
import { startTarget } from "../start-target.ts";
import { StreamPrinter } from "../stream-printer.ts";
import { pausedCommand, pausedListing } from "../paused-inputs.ts";
import { answerCommand, pluginQuestionListing } from "../plugin-answers.ts";
import { EXIT, parse, reportError, sessionChoiceFrom } from "./shared.ts";

/** How long the loop waits for the plugins' reconciles after a turn (their suggestions are printed). */
const PLUGIN_SETTLE_MS = 10_000;

const OPTIONS = { agent: { type: "string", short: "a" }, cwd: { type: "string" }, session: { type: "string", short: "s" } } as const;

export async function runRepl(argv: readonly string[], io: CliIo): Promise<number> {
  let session: OpenedSession | undefined;
  // SIGTERM / SIGHUP / a closed output pipe: cancel the turn, leave the loop, close normally (main exits 128 + signal).
  let terminated = false;
  let onTerminated!: () => void;
  const termination = new Promise<undefined>((resolve) => (onTerminated = () => resolve(undefined)));
  const stopTerminate = io.onTerminate(() => {
    terminated = true;
    session?.controller.interrupt();
    onTerminated();
  });
  try {
    const { values } = parse(argv, OPTIONS);
    const ctx = createAppContext(io, values.cwd === undefined ? {} : { cwd: values.cwd });
    const choice = sessionChoiceFrom(values);
    const requested = values.agent === undefined ? undefined : ctx.registry.resolve(values.agent);
    const fallback = () => ctx.registry.resolve(ctx.loaded.config.defaultAgent);
    // A new session has no last target: a bad defaultAgent fails before a session is created.
    if (requested === undefined && choice.kind === "new") fallback();
    session = await openSessionIn(ctx, choice);
    const opened = session;
    const start = startTarget(ctx.registry, opened.controller.state, requested, fallback);
    let target = start.target;
    if (start.note !== undefined) io.stderr.write(`baton: ${start.note}\n`);
    if (opened.rewindRecovery.kind !== "none") io.stderr.write(`baton: ${opened.rewindRecovery.message}\n`);
    const controller = opened.controller;
    io.stdout.write(`baton repl — session ${opened.ref.batonSessionId}\nledger: ${opened.ref.paths.ledger}\ntarget: ${target.id}  (/<target> switches, /exit quits)\n`);
    io.stdout.write(pausedListing(controller));
    const printer = new StreamPrinter({ out: io.stdout, err: io.stderr, showThoughts: ctx.loaded.config.showThoughts });
    const plugins = await startCliPlugins(ctx, opened, io);
    io.stderr.write(pluginQuestionListing(controller));
    let cards = Promise.resolve();
    controller.subscribe((event) => {
      printer.handle(event);
      if (event.kind === "interaction.opened") {
        cards = cards.then(() => answerCard(io, opened, event, printer)).catch((error) => {
          io.stderr.write(`baton: ${describeError(error)}\n`);
        });
      }
    });
    const stopInterrupt = io.onInterrupt(() => {
      if (controller.interrupt()) io.stderr.write("\nbaton: interrupting the turn…\n");
    });
    try {
      while (!terminated) {
        io.stdout.write("you> ");
        const line = await Promise.race([io.stdin.next(), termination]);
        if (terminated || line === undefined || line.trim() === "/exit" || line.trim() === "/quit") break;
        const trimmed = line.trim();
        if (await answerCommand(controller, trimmed, (text) => io.stdout.write(text))) continue;
        if (await pausedCommand(controller, trimmed, (text) => io.stdout.write(text))) {
          io.stdout.write(pausedListing(controller));
          continue;
        }
        if (trimmed.length === 0) continue;
        let prompt = line;
        if (trimmed.startsWith("/")) {
          const [word = "", ...rest] = trimmed.slice(1).split(/\s+/);
          const match = ctx.registry.match(word);
          if (match.kind === "match") {
            target = ctx.registry.target(match.id);
            io.stdout.write(`switched to ${target.id}\n`);
            if (rest.length === 0) continue;
            prompt = rest.join(" ");
          } else if (match.kind === "ambiguous") {
            io.stdout.write(`'/${word}' matches ${match.matches.join(", ")}; nothing was sent\n`);
            continue;
          }
          // Anything else starting with / (a path, say) is an ordinary prompt.
        }
        // Lines from a pipe were not typed: @session references in them stay text.
        await runTurn(io, opened, target.id, prompt, printer, !io.stdinIsTTY);
        // A plugin's suggestion after this turn is printed before the next prompt.
        await Promise.race([plugins.settle(PLUGIN_SETTLE_MS), termination]);
        await Promise.race([cards, termination]);
      }
    } finally {
      stopInterrupt();
    }
    io.stdout.write(`\n${exitHints(opened.ref.batonSessionId)}`);
    return EXIT.ok;
  } catch (error) {
    return reportError(io, error);
  } finally {
    await session?.close();
    stopTerminate();
  }
}

async function runTurn(io: CliIo, session: OpenedSession, targetId: string, prompt: string, printer: StreamPrinter, piped: boolean): Promise<void> {
  let summary: { stopReason?: string; usage?: { inputTokens?: number; outputTokens?: number } } | undefined;
  let turnId: string | undefined;
  const unsubscribe = session.controller.subscribe((event) => {
    if (turnId === undefined && event.kind === "state_update" && event.source.type === "baton") turnId = event.turnId;
    if (event.kind === "_baton_turn_summary" && event.turnId === turnId) summary = event.payload as typeof summary;
  });
  try {
    await session.controller.submit(targetId, [{ type: "text", text: prompt }], { displayText: prompt, ...(piped ? { untyped: [prompt] } : {}) });
  } catch (error) {
    printer.endLine();
    io.stderr.write(`baton: ${describeError(error)}\n`);
  } finally {
    unsubscribe();
  }
  printer.endLine();
  const usage = summary?.usage ? `, in:${summary.usage.inputTokens ?? 0} out:${summary.usage.outputTokens ?? 0}` : "";
  io.stdout.write(`— turn done (${summary?.stopReason ?? "error"}${usage})\n`);
}

async function answerCard(io: CliIo, session: OpenedSession, event: AnyEvent, printer: StreamPrinter): Promise<void> {
  const { interactionId, draft } = event.payload as { interactionId: string; draft: InteractionDraft };
  if (!session.controller.pendingInteractions().some((p) => p.interactionId === interactionId)) return;
  printer.endLine();
  const resolution = await askFor(io, draft);
  try {
    await session.controller.resolveInteraction(interactionId, resolution);
  } catch (error) {
    io.stderr.write(`baton: ${describeError(error)}\n`);
  }
}

async function askFor(io: CliIo, draft: InteractionDraft): Promise<InteractionResolution> {
  if (draft.type === "permission") {
    io.stdout.write(`[approval] ${draft.title}\n${draft.description ? `  ${draft.description}\n` : ""}${diffText(draft.diffs ?? [])}`);
    draft.options.forEach((option, index) => io.stdout.write(`  ${index + 1}) ${option.name}\n`));
    io.stdout.write(`choose 1-${draft.options.length} (empty cancels)> `);
    const line = (await io.stdin.next())?.trim() ?? "";
    const byNumber = draft.options[Number(line) - 1];
    const byId = draft.options.find((o) => o.optionId === line);
    const chosen = byNumber ?? byId;
    return chosen ? { outcome: "selected", optionId: chosen.optionId } : { outcome: "cancelled", reason: "user" };
  }
  if (draft.type === "question") {
    const answers: Record<string, string[]> = {};
    for (const question of draft.questions) {
      io.stdout.write(`[question] ${question.header ? `${question.header}: ` : ""}${question.question}\n`);
      const options = question.options ?? [];
      options.forEach((option, index) => io.stdout.write(`  ${index + 1}) ${option.label}${option.description ? ` — ${option.description}` : ""}\n`));
      const how = options.length === 0 ? "type an answer" : question.multiSelect ? "numbers separated by commas" : "a number";
      io.stdout.write(`${how}${question.allowOther !== false && options.length > 0 ? " or your own text" : ""} (empty cancels)> `);
      const line = (await io.stdin.next())?.trim() ?? "";
      if (line.length === 0) return { outcome: "cancelled", reason: "user" };
      const picks = line.split(",").map((part) => part.trim());
      const labels = picks.map((pick) => options[Number(pick) - 1]?.label ?? pick);
      answers[question.questionId] = question.multiSelect ? labels : [labels.join(", ")];
    }
    return { outcome: "answered", answers };
  }
  if (draft.type !== "hook_trust") return { outcome: "cancelled", reason: "user" }; // proposals are not broker cards
  io.stdout.write(`[hook trust] ${draft.harnessName}: ${draft.hooks.map((h) => h.command).join("; ")}\ntrust these hooks? y/N> `);
  const line = (await io.stdin.next())?.trim().toLowerCase() ?? "";
  return line === "y" || line === "yes" ? { outcome: "trusted" } : { outcome: "skipped" };
}

const MAX_DIFF_LINES = 200;

/** The change an approval would make, as its unified diff (indented, capped), before the choice (#11.9). */
function diffText(diffs: readonly DiffBlock[]): string {
  const lines: string[] = [];
  for (const diff of diffs) {
    if (diff.patch !== undefined) lines.push(...diff.patch.replace(/\n$/, "").split("\n"));
    else lines.push(...diff.changes.map((change) => `${change.operation} ${change.path}`));
  }
  const shown = lines.length > MAX_DIFF_LINES ? [...lines.slice(0, MAX_DIFF_LINES), `… +${lines.length - MAX_DIFF_LINES} more lines`] : lines;
  return shown.map((line) => `    ${line}\n`).join("");
}
