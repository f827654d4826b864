/**
 * Drafts: a batch fold (open, replay, export) updates in place the nodes it created itself.
 *
 * The projection is persistent: `reduce(state, event)` never changes `state`, and a new state shares
 * every untouched sub-tree with the old one. Copying the path to a change costs a few hundred bytes per
 * event, most of a fold's time when 100k events are folded in a row and nobody looks at the states in
 * between. Inside `inDraft(run)` a node that this draft created (a copy made by `editable`, or one
 * registered with `fresh`) is mutated in place instead of copied again; any other node — the input
 * state's, a checkpoint's — is copied on its first change, exactly as outside a draft. So the state
 * passed in is never changed, and once the draft closes its nodes are never changed again: what
 * readers get is as immutable as a persistent fold's result (the snapshot boundary is the end of the
 * draft). Outside a draft `editable` is a plain copy and `owned` is always false.
 *
 * Identity is the projection's change signal (`reduce` returns the same state when nothing changed,
 * selectors memoize on slices). An in-place edit keeps identity, so every edit is counted (`edits`):
 * `reduce` compares the count, not only the object.
 *
 * What this asks of reducer code: read what you need from a node *before* calling a helper that may
 * change it (`listPush`, `tableSet`, `appendBlock`, `editable`): inside a draft it may change in place,
 * so `{ list: listPush(s.list, x), index: s.list.length }` would read the new length. And do not decide
 * "nothing changed" by comparing a node with what such a helper returned (the same object may hold a
 * change). `tests/unit/projection-properties.test.ts` (live ≡ batch with every handed-out state frozen)
 * and `projection-draft.test.ts` catch both.
 */

/**
 * The nodes the open draft may change in place: the last `DRAFT_SLOTS` it created or changed, in a ring
 * scanned newest first. Forgetting an older one costs only a copy when it changes again (the copy is the
 * draft's), never correctness: every node in the ring was created by this draft. A live event creates a
 * dozen, so it forgets nothing; a load of 100k events keeps the nodes it is extending (the state, the
 * streaming message, the lists' tails) without a `Set` of everything it ever created — which the garbage
 * collector had to trace and which hashed every lookup. The ring is emptied when the draft closes. 32 slots,
 * not 64: a node not in the ring is looked for in every slot, and a load asks that several times an event
 * (bench/reducer.ts, 15 rounds alternated: the 100k fold 0.91× (0.49–1.00) of 64's, live chunks 0.98×).
 */
const DRAFT_SLOTS = 32;
let open = false;
const ring: (object | null)[] = new Array<object | null>(DRAFT_SLOTS).fill(null);
/** Slots used (≤ DRAFT_SLOTS) and the next slot to write. */
let used = 0;
let next = 0;
let count = 0;
/** Which draft is open (0: none); a new number for every draft, so a draft's notes cannot outlive it. */
let current = 0;
let drafts = 0;

function begin(): void {
  open = true;
  current = ++drafts;
}

function end(): void {
  open = false;
  current = 0;
  ring.fill(null, 0, used);
  used = 0;
  next = 0;
}

function add(value: object): void {
  ring[next] = value;
  next = next === DRAFT_SLOTS - 1 ? 0 : next + 1;
  if (used < DRAFT_SLOTS) used++;
}

function has(value: object): boolean {
  let at = next;
  for (let seen = 0; seen < used; seen++) {
    at = at === 0 ? DRAFT_SLOTS - 1 : at - 1;
    if (ring[at] === value) {
      // A node in the older half is written again as the newest, so one that keeps changing stays known.
      if (seen >= DRAFT_SLOTS / 2) add(value);
      return true;
    }
  }
  return false;
}

/** Runs `run` inside a draft (joins the open one, if any). */
export function inDraft<T>(run: () => T): T {
  if (open) return run();
  begin();
  try {
    return run();
  } finally {
    end();
  }
}

/** Opens a draft unless one is open; returns whether it did (then call `closeDraft`, in a `finally`). */
export function openDraft(): boolean {
  if (open) return false;
  begin();
  return true;
}

export function closeDraft(): void {
  end();
}

/** Whether the open draft created `value` (so it may be changed in place). */
export function owned(value: object): boolean {
  return open && has(value);
}

/** Registers an object just created by the fold with the open draft; returns it. */
export function fresh<T extends object>(value: T): T {
  if (open) add(value);
  return value;
}

/**
 * `value` itself when the open draft created it (counted as an edit: the caller is about to change it),
 * else a shallow copy the draft owns. Call it only when about to change the result.
 */
export function editable<T extends object>(value: T): T {
  if (open && has(value)) {
    count++;
    return value;
  }
  const copy = (Array.isArray(value) ? value.slice() : { ...value }) as T;
  if (open) add(copy);
  return copy;
}

/**
 * `array` with `items` appended: in place when the open draft created it (counted as an edit), else one
 * new array of the final length that the draft owns — a copy that is then pushed to would be allocated
 * twice (the engine sizes a copy exactly, so the push grows it again).
 */
export function appended<T>(array: readonly T[], ...items: T[]): T[] {
  if (open && has(array)) {
    count++;
    const own = array as T[];
    for (const item of items) own.push(item);
    return own;
  }
  const copy = [...array, ...items];
  if (open) add(copy);
  return copy;
}

/** Monotonic count of in-place edits (compare before/after a fold step). */
export function edits(): number {
  return count;
}

/** Counts an in-place edit made without `editable` (to a node the caller knows the open draft created). */
export function noteEdit(): void {
  count++;
}

/** The open draft's number, 0 when none is open: a note taken inside a draft is valid while this is the same. */
export function draftNumber(): number {
  return current;
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** `record` with `key` set to `value`: changed in place when the open draft owns it, else a copy; same object when equal. */
export function assign<T extends object, K extends keyof T>(record: T, key: K, value: T[K]): T {
  if (record[key] === value) return record;
  const next = editable(record) as Mutable<T>;
  next[key] = value;
  return next;
}
