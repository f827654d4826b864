/**
 * Tests only: a target's binding, which the Controller keeps private (#13 doors: surfaces read `targets()` and
 * never build a binding). A test that must drive or inspect the harness process behind a target looks inside here,
 * in one named place, instead of widening the Controller's API.
 */
import type { HarnessBinding } from "../../src/controller/binding.ts";
import type { Controller } from "../../src/controller/controller.ts";

export function bindingOf(controller: Controller, targetId: string): HarnessBinding {
  return (controller as unknown as { binding(targetId: string): HarnessBinding }).binding(targetId);
}
