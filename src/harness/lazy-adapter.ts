/**
 * An adapter whose module is loaded on first use. Harness modules can be heavy (the Claude Agent SDK
 * costs ~100 ms to import); the UI's first frame should not wait for a harness nobody has used yet.
 * The capabilities are declared up front and must equal the real adapter's (a contract test checks).
 */
import type { Capabilities, ReconcileResult, SessionConfigOption, TextGenRequest } from "./capabilities.ts";
import type { BindingSink, EventSink, HarnessAdapter, HarnessHandle, HarnessOpenOptions, PromptInput, SendTurnResult } from "./contract.ts";
import type { PromptBlock } from "../event/content.ts";
import type { TurnId } from "../shared/ids.ts";
import type { ConfigId } from "../shared/config-ids.ts";

type Full = HarnessAdapter & {
  compactContext?(handle: HarnessHandle, turnId: TurnId): Promise<SendTurnResult>;
  getConfig?(handle: HarnessHandle | undefined): Promise<readonly SessionConfigOption[]>;
  setConfig?(handle: HarnessHandle | undefined, id: ConfigId, value: string): Promise<void>;
  reconcile?(handle: HarnessHandle, turnId: TurnId): Promise<ReconcileResult>;
  approvalRoute?(handle: HarnessHandle): "user" | "delegated" | null;
  generateStructured?(request: TextGenRequest): Promise<unknown>;
  syncContext?(handle: HarnessHandle, blocks: readonly PromptBlock[]): Promise<void>;
};

export class LazyAdapter implements HarnessAdapter {
  private loading: Promise<Full> | undefined;
  private loaded: Full | undefined;

  constructor(
    readonly capabilities: Capabilities,
    private readonly load: () => Promise<HarnessAdapter>,
  ) {}

  /** The real adapter, loading its module once. */
  adapter(): Promise<Full> {
    this.loading ??= this.load().then((adapter) => {
      this.loaded = adapter as Full;
      return this.loaded;
    });
    return this.loading;
  }

  async open(options: HarnessOpenOptions, sink: EventSink, binding: BindingSink): Promise<HarnessHandle> {
    return (await this.adapter()).open(options, sink, binding);
  }
  async sendTurn(handle: HarnessHandle, input: PromptInput): Promise<SendTurnResult> {
    return (await this.adapter()).sendTurn(handle, input);
  }
  async cancel(handle: HarnessHandle, turnId: TurnId): Promise<void> {
    return (await this.adapter()).cancel(handle, turnId);
  }
  async close(handle: HarnessHandle): Promise<void> {
    return (await this.adapter()).close(handle);
  }
  async compactContext(handle: HarnessHandle, turnId: TurnId): Promise<SendTurnResult> {
    return call(await this.adapter(), "compactContext")(handle, turnId);
  }
  async getConfig(handle: HarnessHandle | undefined): Promise<readonly SessionConfigOption[]> {
    return call(await this.adapter(), "getConfig")(handle);
  }
  async setConfig(handle: HarnessHandle | undefined, id: ConfigId, value: string): Promise<void> {
    return call(await this.adapter(), "setConfig")(handle, id, value);
  }
  async reconcile(handle: HarnessHandle, turnId: TurnId): Promise<ReconcileResult> {
    return call(await this.adapter(), "reconcile")(handle, turnId);
  }
  /** Synchronous by contract: before the adapter is loaded no route is known. */
  approvalRoute(handle: HarnessHandle): "user" | "delegated" | null {
    return this.loaded?.approvalRoute ? this.loaded.approvalRoute(handle) : null;
  }
  async generateStructured(request: TextGenRequest): Promise<unknown> {
    return call(await this.adapter(), "generateStructured")(request);
  }
  async syncContext(handle: HarnessHandle, blocks: readonly PromptBlock[]): Promise<void> {
    return call(await this.adapter(), "syncContext")(handle, blocks);
  }
}

function call<K extends keyof Full>(adapter: Full, method: K): NonNullable<Full[K]> & ((...args: never[]) => unknown) {
  const fn = adapter[method];
  if (typeof fn !== "function") throw new Error(`adapter has no ${String(method)}()`);
  return (fn as (...args: unknown[]) => unknown).bind(adapter) as never;
}
