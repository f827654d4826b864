/**
 * The one picker the host may show at a time (`composer.picker`): opened loading or filled, filled later
 * by whoever opened it (stale fills of a picker that was replaced or closed are dropped), and, for a
 * remote picker, the query changes routed to its search. Only state: publishing is the host's.
 */
import type { PickerItem, PickerState } from "chat-tui";

export interface RemoteSearch {
  readonly search: (query: string) => void;
  readonly query?: string;
  readonly placeholder?: string;
}

/** Fill the picker (`loading` keeps the spinner on); `null` closes it. */
export type PickerFill = (items: readonly PickerItem[] | null, loading?: boolean) => void;

interface Open {
  readonly state: PickerState;
  readonly select: (itemId: string) => void;
  readonly remote: RemoteSearch | undefined;
}

export class PickerSlot {
  private open: Open | undefined;
  private counter = 0;

  constructor(private readonly changed: () => void) {}

  get state(): PickerState | undefined {
    return this.open?.state;
  }

  show(title: string, select: (itemId: string) => void, items?: readonly PickerItem[], remote?: RemoteSearch): PickerFill {
    const id = `picker-${++this.counter}`;
    const shape = remote === undefined ? {} : { filter: "remote" as const, ...(remote.query === undefined ? {} : { query: remote.query }), ...(remote.placeholder === undefined ? {} : { placeholder: remote.placeholder }) };
    const state = (filled: readonly PickerItem[], loading: boolean): PickerState => ({ id, title, items: filled, ...shape, ...(loading ? { loading: true } : {}) });
    this.open = { state: state(items ?? [], items === undefined), select, remote };
    this.changed();
    return (filled, loading = false) => {
      if (this.open?.state.id !== id) return;
      if (filled === null) this.close();
      else {
        this.open = { state: state(filled, loading), select, remote };
        this.changed();
      }
    };
  }

  /** The user chose an item: the picker closes and the chooser is returned (to be run later), if it was this one. */
  take(id: string): ((itemId: string) => void) | undefined {
    const open = this.open;
    if (open === undefined || open.state.id !== id) return undefined;
    this.close();
    return open.select;
  }

  query(id: string, query: string): void {
    if (this.open?.state.id === id) this.open.remote?.search(query);
  }

  cancel(id: string): void {
    if (this.open?.state.id === id) this.close();
  }

  close(): void {
    if (this.open === undefined) return;
    this.open = undefined;
    this.changed();
  }
}
