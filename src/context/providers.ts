/**
 * ContextProviders (CTX-06): sources the user can reference with `@<prefix>:<id>`. Built-in kind
 * `session`; plugin kinds are qualified `<pluginName>@<kind>` and written `@<pluginName>.<kind>:<id>`.
 */
import type { ContextAttachment } from "../event/content.ts";
import { BatonError } from "../shared/errors.ts";

export interface ContextCandidate {
  readonly id: string;
  readonly label: string;
  readonly detail?: string;
}

/** Provided text that names its source (a plugin Resource): delivered as a context snapshot of its own. */
export interface SourcedContext {
  readonly text: string;
  readonly source: ContextAttachment["source"];
}

export interface ContextProvider {
  readonly kind: string;
  /** Candidates while the user types (no side effects: nothing is provided before submit, CTXP-01). */
  search(query: string, options: { readonly limit: number }): Promise<readonly ContextCandidate[]>;
  /** The referenced content within `maxChars` (longer text is cut), or undefined when the id is unknown. */
  provide(id: string, options: { readonly maxChars: number }): Promise<string | SourcedContext | undefined>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `reqloop@req` → `reqloop.req`: the token prefix of a kind. */
export function tokenPrefix(kind: string): string {
  return kind.replace("@", ".");
}

export class ContextProviderRegistry {
  private readonly providers = new Map<string, ContextProvider>();

  register(provider: ContextProvider): () => void {
    const parts = provider.kind.split("@");
    if (parts.length > 2 || !parts.every((part) => NAME.test(part))) {
      throw new BatonError("usage", `invalid context provider kind '${provider.kind}'`);
    }
    if (this.providers.has(provider.kind)) throw new BatonError("usage", `context provider kind '${provider.kind}' is already registered`);
    this.providers.set(provider.kind, provider);
    return () => {
      if (this.providers.get(provider.kind) === provider) this.providers.delete(provider.kind);
    };
  }

  /** The provider for a token prefix (`session`, `reqloop.req`). */
  byPrefix(prefix: string): ContextProvider | undefined {
    for (const provider of this.providers.values()) if (tokenPrefix(provider.kind) === prefix) return provider;
    return undefined;
  }

  list(): ContextProvider[] {
    return [...this.providers.values()];
  }
}
