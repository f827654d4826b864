/**
 * Lazy nodes: parts of a state opened from an incremental checkpoint that stay on disk until read.
 *
 * A `Stub` stands where a table's inner node, leaf or value, or a paged list's full page, would be
 * (`checkpoint-codec.ts` decides where). The containers' read functions (`tableGet`, `listAt`, …) resolve
 * stubs as they pass them, so a reader never sees one; a writer that copies a node copies its stubs
 * unread, and the next checkpoint writes an unread stub back as the reference it came from, so old
 * turns cost nothing until something looks at them. A resolved stub keeps its value (the same object
 * on every read: identity is the projection's change signal). `toJSON` resolves too, so a state with
 * stubs serializes as the plain state it stands for.
 */
export class Stub<T = unknown> {
  #value: T | undefined;
  #loaded = false;
  /**
   * @param source what the reference is resolved against (a checkpoint writer keeps references into its own source)
   * @param token the reference, as the source stored it
   * @param load reads and decodes the node (synchronously; may throw when the file is unreadable)
   */
  constructor(
    readonly source: object,
    readonly token: unknown,
    private readonly load: () => T,
  ) {}

  get(): T {
    if (!this.#loaded) {
      this.#value = this.load();
      this.#loaded = true;
    }
    return this.#value as T;
  }

  /** The value if already read, else undefined (never reads). */
  peek(): T | undefined {
    return this.#value;
  }

  toJSON(): unknown {
    return this.get();
  }
}

/** `node`, or what the stub in its place stands for. */
export function resolve<T>(node: T | Stub<T>): T {
  return node instanceof Stub ? node.get() : node;
}

/** Whether `stored` (possibly a stub) is `value`, without reading an unread stub. */
export function isStored<T>(stored: T | Stub<T>, value: T): boolean {
  return stored === value || (stored instanceof Stub && stored.peek() === value);
}
