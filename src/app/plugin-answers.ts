/**
 * Plugin questions in `baton repl` (PIX-01): they are printed as `[question from <plugin>] …` lines when they
 * open (and listed at start, since they survive a restart), and answered with `/answer <choice>` — an option's
 * number, id or label, or free text where the question allows it. The oldest pending question is answered; the
 * answer is on disk before the plugin's next reconcile reads it. Questions of a turn are asked inline as before.
 */
import type { Controller } from "../controller/controller.ts";
import type { Question } from "../event/interaction-types.ts";
import type { InteractionItem } from "../projection/index.ts";
import { describeError } from "../shared/errors.ts";
import { terminalSafe } from "../shared/terminal-text.ts";
import { pluginQuestionLine } from "./stream-printer.ts";

function questionOf(item: InteractionItem): Question | undefined {
  return item.draft.type === "question" ? item.draft.questions[0] : undefined;
}

function fromOf(item: InteractionItem): string {
  const pluginId = (item.draft as { pluginContext?: { pluginId?: unknown } }).pluginContext?.pluginId;
  return typeof pluginId === "string" ? pluginId : item.requester.type === "plugin" ? item.requester.pluginInstanceId : "plugin";
}

/** The pending plugin questions, one line each with how to answer (empty when there is none). */
export function pluginQuestionListing(controller: Controller): string {
  const pending = controller.pluginQuestions.pending();
  if (pending.length === 0) return "";
  const lines = pending.map((item) => `${terminalSafe(pluginQuestionLine(fromOf(item), questionOf(item)))}\n`).join("");
  return `${lines}answer with /answer <number or text>${pending.length > 1 ? " (the oldest first)" : ""}\n`;
}

/** A repl line `/answer …`, handled here (true), or any other line (false). */
export async function answerCommand(controller: Controller, line: string, write: (text: string) => void): Promise<boolean> {
  if (line !== "/answer" && !line.startsWith("/answer ")) return false;
  const item = controller.pluginQuestions.pending()[0];
  if (item === undefined) {
    write("no plugin question is waiting for an answer\n");
    return true;
  }
  const question = questionOf(item);
  const choice = line.slice("/answer".length).trim();
  if (choice === "" || question === undefined) {
    write(pluginQuestionListing(controller));
    return true;
  }
  const options = question.options ?? [];
  const byNumber = /^\d+$/.test(choice) ? options[Number(choice) - 1] : undefined;
  const value = byNumber === undefined ? choice : (byNumber.optionId ?? byNumber.label);
  try {
    await controller.resolveInteraction(item.interactionId, { outcome: "answered", answers: { [question.questionId]: [value] } });
    write(`answered ${fromOf(item)}: ${byNumber?.label ?? value}\n`);
  } catch (error) {
    write(`not answered: ${describeError(error)}\n`);
  }
  return true;
}
