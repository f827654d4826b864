/**
 * A question's answer as its asker reads it (PIX-01): each question gets exactly one non-empty value, an option's
 * label becomes its `optionId`, free text only where the question allows it. Pure: the plugin-question desk
 * (`controller/plugin-questions.ts`) checks an answer with it before anything is appended.
 */
import type { InteractionResolution, QuestionDraft } from "../event/interaction-types.ts";
import { BatonError } from "../shared/errors.ts";

/** The answer as the plugin will read it: one value per question, option labels as their ids. Throws `usage`. */
export function normaliseAnswer(draft: QuestionDraft, resolution: InteractionResolution): InteractionResolution {
  if (resolution.outcome === "cancelled") return { outcome: "cancelled", reason: resolution.reason };
  if (resolution.outcome !== "answered") throw new BatonError("usage", `a plugin question is answered or cancelled, not ${resolution.outcome}`);
  const answers: Record<string, string[]> = {};
  for (const question of draft.questions) {
    const values = (resolution.answers[question.questionId] ?? []).map((v) => v.trim()).filter((v) => v !== "");
    if (values.length !== 1) throw new BatonError("usage", `"${question.header || question.question}" takes exactly one answer`);
    const value = values[0] as string;
    const options = question.options ?? [];
    const option = options.find((o) => o.optionId === value) ?? options.find((o) => o.label === value);
    if (option !== undefined) answers[question.questionId] = [option.optionId ?? option.label];
    else if (options.length === 0 || question.allowOther === true) answers[question.questionId] = [value];
    else throw new BatonError("usage", `"${value}" is not one of ${options.map((o) => o.label).join(", ")}`);
  }
  return { outcome: "answered", answers };
}
