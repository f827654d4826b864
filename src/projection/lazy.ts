/**
 * Lazy nodes: parts of a state opened from an incremental checkpoint that stay on disk until read.
 *
 * A `Stub` stands where a table's inner node, leaf or value, or a paged list's full page, would be
 * (`checkpoint-codec.ts` decides where). The containers' read functions (`tableGet`, `listAt`, …) resolve
 * stubs as they pass them, so a reader never sees one; a writer that copies a node copies its stubs
 * unread, and the next checkpoint writes an unread stub back as the reference it came from, so old
 * turns cost nothing until something looks at them. `toJSON` resolves too, so a state with stubs
 * serializes as the plain state it stands for.
 *
 * Eviction: the source is told of every stub that loads (`StubSource.loaded`) and may later ask it to let
 * go of its value (`evict`; the node file's bounded cache, `checkpoint-nodes.ts`). A stub's value is a
 * record as it is on disk — writers copy a node before changing it, so a stub's value is never changed —
 * and an evicted stub reads the same record again when next used. Identity is kept all the same (it is
 * the projection's change signal): the source holds an evicted value weakly (`keep`/`recall`, by record),
 * so while anybody still holds the object it is the one the next read returns — from this stub or from a
 * new stub of the same record (its parent was evicted and read again) — and once nobody does nobody can
 * compare it.
 *
 * A compaction of the node file copies an unread stub's record without resolving it (`readDetached`) and,
 * once the new file is named by a head on disk, moves the stub to its new place (`moveTo`).
 */
export interface StubSource {
  /** The parsed JSON of a token's record (synchronous; throws when the file is unreadable). */
  read(token: unknown): unknown;
  /** `node` was decoded from `token`: an unchanged node is then written as that token. */
  remember(node: object, token: unknown): void;
  /** `stub` read its record and holds its value now; the source may call `stub.evict()` later. */
  loaded?(stub: Stub, token: unknown): void;
  /** An evicted stub's value, held weakly under its record. */
  keep?(token: unknown, value: object): void;
  /** The value kept for that record, while it is alive. */
  recall?(token: unknown): object | undefined;
}

/** Decodes a record's JSON into the node it stands for, making its tokens stubs of `source`. */
export type StubDecode<T> = (json: unknown, source: StubSource, detached: boolean) => T;

export class Stub<T = unknown> {
  #value: T | undefined;
  #loaded = false;
  /** Read since the source last asked (`takeUse`): its cache's second chance. */
  #used = false;
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
    if (this.#loaded) {
      this.#used = true;
      return this.#value as T;
    }
    let value = this.#source.recall?.(this.#token) as T | undefined;
    if (value === undefined) {
      value = this.decode(this.#source.read(this.#token), this.#source, false);
      if (typeof value === "object" && value !== null) this.#source.remember(value, this.#token);
    }
    this.#value = value;
    this.#loaded = true;
    this.#source.loaded?.(this as Stub, this.#token); // may evict it again at once: `value` is still returned
    return value;
  }

  /** Lets go of the value (kept weakly, see the module comment); the next `get` reads the record again unless it is still alive. */
  evict(): void {
    if (!this.#loaded) return;
    const value = this.#value;
    if (typeof value === "object" && value !== null) this.#source.keep?.(this.#token, value);
    this.#value = undefined;
    this.#loaded = false;
    this.#used = false;
  }

  /** Whether it was read since the last call (and clears that). */
  takeUse(): boolean {
    const used = this.#used;
    this.#used = false;
    return used;
  }

  /** The node, read afresh and not kept (its own stubs are detached): for copying an unread stub elsewhere. */
  readDetached(): T {
    const held = this.peek();
    return held !== undefined ? held : this.decode(this.#source.read(this.#token), this.#source, true);
  }

  /** The record now lives in `source` under `token` (a compacted node file). */
  moveTo(source: StubSource, token: unknown): void {
    this.#source = source;
    this.#token = token;
  }

  /** The value if in memory (read and not evicted, or evicted and still alive), else undefined (never reads). */
  peek(): T | undefined {
    return this.#loaded ? this.#value : (this.#source.recall?.(this.#token) as T | undefined);
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
