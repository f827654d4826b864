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
 *
 * A compaction of the node file copies an unread stub's record without resolving it (`readDetached`) and,
 * once the new file is named by a head on disk, moves the stub to its new place (`moveTo`).
 */
export interface StubSource {
  /** The parsed JSON of a token's record (synchronous; throws when the file is unreadable). */
  read(token: unknown): unknown;
  /** `node` was decoded from `token`: an unchanged node is then written as that token. */
  remember(node: object, token: unknown): void;
}

/** Decodes a record's JSON into the node it stands for, making its tokens stubs of `source`. */
export type StubDecode<T> = (json: unknown, source: StubSource, detached: boolean) => T;

export class Stub<T = unknown> {
  #value: T | undefined;
  #loaded = false;
  #source: StubSource;
  #token: unknown;

  /**
   * @param detached a stub inside a node read for a copy only (never part of a live state; never moved)
   */
  constructor(
    source: StubSource,
    token: unknown,
    private readonly decode: StubDecode<T>,
    readonly detached = false,
  ) {
    this.#source = source;
    this.#token = token;
  }

  get source(): StubSource {
    return this.#source;
  }

  get token(): unknown {
    return this.#token;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  get(): T {
    if (!this.#loaded) {
      const value = this.decode(this.#source.read(this.#token), this.#source, false);
      if (typeof value === "object" && value !== null) this.#source.remember(value, this.#token);
      this.#value = value;
      this.#loaded = true;
    }
    return this.#value as T;
  }

  /** The node, read afresh and not kept (its own stubs are detached): for copying an unread stub elsewhere. */
  readDetached(): T {
    return this.#loaded ? (this.#value as T) : this.decode(this.#source.read(this.#token), this.#source, true);
  }

  /** The record now lives in `source` under `token` (a compacted node file). */
  moveTo(source: StubSource, token: unknown): void {
    this.#source = source;
    this.#token = token;
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
