/**
 * Answers without a person (`baton exec --approve deny|allow`): a permission takes the once option of the wanted
 * polarity (else any of it), attributed `cli-policy:<mode>`; a hook-trust card is skipped; anything else, and a
 * permission with no such option, is cancelled `non-interactive` — never a made-up answer. The broker applies it.
 */
import type { InteractionResolution } from "../event/interaction-types.ts";
import type { InteractionPolicy } from "./broker.ts";
import { onceOption } from "./permission-options.ts";

/** The non-interactive answer policy (`--approve deny|allow`). */
export function approvalPolicy(mode: "deny" | "allow"): InteractionPolicy {
  return (pending) => {
    const draft = pending.draft;
    if (draft.type === "permission") {
      const wanted = mode === "allow" ? "allow" : "reject";
      const option = onceOption(draft.options, wanted) ?? draft.options.find((o) => o.polarity === wanted);
      if (option) return { outcome: "selected", optionId: option.optionId, answeredBy: `cli-policy:${mode}` } satisfies InteractionResolution;
      return { outcome: "cancelled", reason: "non-interactive" };
    }
    if (draft.type === "hook_trust") return { outcome: "skipped" };
    return { outcome: "cancelled", reason: "non-interactive" };
  };
}
