/** The live bindings of one session, one per target, created on first use and closed together. */
import type { InteractionDraft, InteractionResolution } from "../event/interaction-types.ts";
import type { EventDraft } from "../event/envelope.ts";
import type { InteractionContext } from "../harness/contract.ts";
import type { HarnessRegistry } from "../harness/registry.ts";
import { HarnessBinding } from "./binding.ts";
import type { AppendFn } from "./pipeline.ts";
import type { ControllerDeps } from "./ports.ts";
import type { TargetId } from "../shared/ids.ts";

type RequestFn = (target: { id: TargetId; harness: string }, draft: InteractionDraft, context: InteractionContext) => Promise<InteractionResolution>;

export class BindingPool {
  private readonly bindings = new Map<string, HarnessBinding>();

  constructor(
    private readonly deps: ControllerDeps & {
      readonly registry: HarnessRegistry;
      readonly onStorageFailure: (error: unknown) => void;
      /** An adapter's draft that changes nothing (an unchanged snapshot) is not stored. */
      readonly unchanged?: (draft: EventDraft) => boolean;
    },
    private readonly append: AppendFn,
    private readonly request: RequestFn,
    private readonly onAppendFailure?: (draft: EventDraft, error: unknown) => void,
  ) {}

  get size(): number {
    return this.bindings.size;
  }

  get(targetId: TargetId): HarnessBinding | undefined {
    return this.bindings.get(targetId);
  }

  create(targetId: TargetId): HarnessBinding {
    const target = this.deps.registry.target(targetId);
    const binding = new HarnessBinding(target, this.deps.registry.definitionOf(target), {
      append: this.append,
      meta: this.deps.meta,
      ids: this.deps.ids,
      clock: this.deps.clock,
      log: this.deps.log,
      cwd: this.deps.cwd,
      env: this.deps.env,
      interactions: { request: (draft, context) => this.request({ id: target.id, harness: target.harness }, draft, context) },
      preferences: this.deps.preferences,
      trace: this.deps.nativeTrace?.(target.id),
      stateDir: this.deps.stateDir,
      onStorageFailure: this.deps.onStorageFailure,
      unchanged: this.deps.unchanged,
      ...(this.onAppendFailure ? { onAppendFailure: this.onAppendFailure } : {}),
    });
    this.bindings.set(targetId, binding);
    return binding;
  }

  /** Stop every harness process (the next turn would start a fresh one and resume); failures are logged. */
  async resetAll(): Promise<void> {
    await Promise.all([...this.bindings.values()].map((binding) => binding.reset()));
  }

  /** Close every binding (adapters synthesize terminals for active turns); failures are logged. */
  async closeAll(): Promise<void> {
    const closing = [...this.bindings.values()].map((binding) =>
      binding.close().catch((error: unknown) => this.deps.log.log("warn", `closing ${binding.target.id} failed`, { error })),
    );
    await Promise.all(closing);
    this.bindings.clear();
  }
}
