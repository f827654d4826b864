/**
 * A persistent append-only list of plain JSON data. Full pages of `PAGE_SIZE` items are never changed
 * again (a windowed view over old items does no work when new items arrive); the items after the last
 * full page sit in a tail of small chunks (`TAIL_CHUNK`), so that an append copies at most one chunk and
 * the tail's index (≤ 16 pointers each) — not a 256-item page, which made the first chunk of every
 * streamed message the slowest event of a live fold. When the tail holds a page's worth it becomes a
 * page (one copy per `PAGE_SIZE` appends). Inside a draft (`draft.ts`) the nodes the draft created are
 * appended to in place. In a state opened from an incremental checkpoint a full page may be a stub
 * (`lazy.ts`); the read functions resolve it.
 */
import { appended, editable, fresh } from "./draft.ts";
import { resolve } from "./lazy.ts";

export const PAGE_SIZE = 256;
export const TAIL_CHUNK = 16;
const CHUNKS_PER_PAGE = PAGE_SIZE / TAIL_CHUNK;

export interface PagedList<T> {
  readonly length: number;
  /** Full pages of `PAGE_SIZE` items. */
  readonly pages: readonly (readonly T[])[];
  /** The items after the last full page, in chunks of `TAIL_CHUNK` (the last one may be partial). */
  readonly tail: readonly (readonly T[])[];
}

export function emptyList<T>(): PagedList<T> {
  return { length: 0, pages: [], tail: [] };
}

type MutableList<T> = { length: number; pages: (readonly T[])[]; tail: (readonly T[])[] };

export function listPush<T>(list: PagedList<T>, item: T): PagedList<T> {
  const tail = list.tail;
  const lastIndex = tail.length - 1;
  const last = tail[lastIndex];
  const next = editable(list) as MutableList<T>;
  next.length = list.length + 1;
  if (last !== undefined && last.length < TAIL_CHUNK) {
    const chunk = appended(last, item);
    if (chunk !== last) {
      const nextTail = editable(tail) as (readonly T[])[];
      nextTail[lastIndex] = chunk;
      next.tail = nextTail;
    }
    return next;
  }
  if (tail.length < CHUNKS_PER_PAGE) {
    next.tail = appended<readonly T[]>(tail, fresh([item]));
    return next;
  }
  // The tail holds a full page: it becomes one, and a new tail starts with `item`.
  const page: T[] = [];
  for (const chunk of tail) for (const value of chunk) page.push(value);
  next.pages = appended<readonly T[]>(list.pages, page);
  next.tail = fresh([fresh([item])]);
  return next;
}

export function listAt<T>(list: PagedList<T>, index: number): T | undefined {
  if (index < 0 || index >= list.length) return undefined;
  const full = list.pages.length * PAGE_SIZE;
  if (index < full) {
    const page = list.pages[Math.floor(index / PAGE_SIZE)];
    return page === undefined ? undefined : resolve(page)[index % PAGE_SIZE];
  }
  const rest = index - full;
  return list.tail[Math.floor(rest / TAIL_CHUNK)]?.[rest % TAIL_CHUNK];
}

/** The list's items as consecutive arrays (full pages, then the tail's chunks), for a walk over all of them. */
export function listChunks<T>(list: PagedList<T>): readonly (readonly T[])[] {
  return [...list.pages.map((page) => resolve(page)), ...list.tail];
}

export function listToArray<T>(list: PagedList<T>): T[] {
  const out: T[] = [];
  for (const page of listChunks(list)) for (const item of page) out.push(item);
  return out;
}

/** Items in [start, end), clamped; for windowed transcripts. */
export function listSlice<T>(list: PagedList<T>, start: number, end: number = list.length): T[] {
  const from = Math.max(0, start);
  const to = Math.min(list.length, end);
  const out: T[] = [];
  for (let i = from; i < to; i++) {
    const item = listAt(list, i);
    if (item !== undefined) out.push(item);
  }
  return out;
}
