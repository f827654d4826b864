/**
 * The session's Board as published (plugins.md §5): recomputed with the pure selector whenever a binding's
 * presented items or the set of active bindings changed, kept as a value the TUI reads without I/O, and
 * announced to listeners. An unchanged empty Board is not announced again.
 */
import { EMPTY_BOARD, selectBoard, type Board, type BoardGroupInput } from "./board.ts";

export class BoardHub {
  private published: Board = EMPTY_BOARD;
  private readonly listeners = new Set<(board: Board) => void>();

  constructor(private readonly inputs: () => readonly BoardGroupInput[]) {}

  get board(): Board {
    return this.published;
  }

  onBoard(listener: (board: Board) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  republish(): void {
    const board = selectBoard(this.inputs());
    if (board.sections.length === 0 && this.published.sections.length === 0) return;
    this.published = board;
    for (const listener of [...this.listeners]) listener(board);
  }
}
