/**
 * `exec --model` / `--effort` are checked against the target's own catalog before anything uses them, the
 * way `/model` only offers what the target lists: an unknown value is a usage error (exit 2) and is neither
 * sent to the agent nor remembered. The catalog comes from a throwaway adapter of the target (a session-less
 * probe), so checking starts no native session and writes nothing.
 */
import { matchConfigChoice } from "../controller/target-config.ts";
import { canConfigure } from "../harness/capabilities.ts";
import type { HarnessTarget } from "../harness/definition.ts";
import type { HarnessRegistry } from "../harness/registry.ts";
import { BatonError } from "../shared/errors.ts";
import { silentLogger } from "../shared/log.ts";

export interface ConfigChoices {
  readonly model?: string | undefined;
  readonly effort?: string | undefined;
}

/**
 * The offered values for what was typed (`{model, effort}` as the catalog spells them). `currentModel` is the
 * model in effect when `--model` is not given: the effort must be one that model supports.
 */
export async function checkConfigChoices(
  registry: HarnessRegistry,
  target: HarnessTarget,
  typed: ConfigChoices,
  currentModel: string | undefined,
): Promise<ConfigChoices> {
  if (typed.model === undefined && typed.effort === undefined) return {};
  const adapter = registry.definitionOf(target).create({ target, log: silentLogger });
  if (!canConfigure(adapter)) throw new BatonError("usage", `${target.id} has no model or effort setting`);
  const pick = async (id: "model" | "effort", value: string): Promise<string> => {
    const choices = (await adapter.getConfig(undefined)).find((option) => option.id === id)?.options ?? [];
    const chosen = matchConfigChoice(choices, value);
    if (chosen !== undefined) return chosen.value;
    const offered = choices.map((choice) => choice.value);
    throw new BatonError("usage", `--${id}: ${target.id} has no ${id} '${value}'`, {
      hint: offered.length > 0 ? `Choose one of: ${offered.join(", ")}` : `${target.id} offers no ${id} choices here`,
    });
  };
  const model = typed.model === undefined ? undefined : await pick("model", typed.model);
  // The effort list depends on the model: check it against the one the turn will run.
  const effectiveModel = model ?? currentModel;
  if (typed.effort !== undefined && effectiveModel !== undefined && effectiveModel !== "default") {
    await adapter.setConfig(undefined, "model", effectiveModel).catch(() => undefined);
  }
  const effort = typed.effort === undefined ? undefined : await pick("effort", typed.effort);
  return { ...(model === undefined ? {} : { model }), ...(effort === undefined ? {} : { effort }) };
}
