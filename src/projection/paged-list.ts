/**
 * A persistent append-only list of plain JSON data, stored in fixed-size pages so that appending copies
 * the page index (n/256 pointers) and the last page (≤ 256), not the whole list. Full pages keep their
 * identity, so a windowed view over old items does no work when new items arrive. Inside a draft
 * (`draft.ts`) the pages the draft created are appended to in place.
 */
import { editable, fresh } from "./draft.ts";

export const PAGE_SIZE = 256;

export interface PagedList<T> {
  readonly length: number;
  readonly pages: readonly (readonly T[])[];
}

export function emptyList<T>(): PagedList<T> {
  return { length: 0, pages: [] };
}

export function listPush<T>(list: PagedList<T>, item: T): PagedList<T> {
  const lastIndex = list.pages.length - 1;
  const last = list.pages[lastIndex];
  const next = editable(list) as { length: number; pages: (readonly T[])[] };
  if (next !== list) next.pages = fresh(list.pages.slice());
  if (last === undefined || last.length >= PAGE_SIZE) {
    next.pages.push(fresh([item]));
  } else {
    const page = editable(last) as T[];
    page.push(item);
    next.pages[lastIndex] = page;
  }
  next.length = list.length + 1;
  return next;
}

export function listAt<T>(list: PagedList<T>, index: number): T | undefined {
  if (index < 0 || index >= list.length) return undefined;
  return list.pages[Math.floor(index / PAGE_SIZE)]?.[index % PAGE_SIZE];
}

export function listToArray<T>(list: PagedList<T>): T[] {
  const out: T[] = [];
  for (const page of list.pages) for (const item of page) out.push(item);
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
