/**
 * The Board in the sidecar (TUI-11, BRD-01): the plugins' last published Board mapped to the chat-tui
 * sidecar, and `/board`, which toggles it (`/board open|hide|auto` sets the mode). Modes: `auto` shows it
 * inline on wide terminals when it has items; `open` also as an overlay on narrow ones (Esc closes it);
 * `hidden` never. Nothing here does I/O: the Board is a value the plugins published earlier.
 */
import { sidecarPlacement, SIDECAR_WIDTH, type SidecarItem, type SidecarState, type Tone } from "chat-tui";
import type { BoardView, TuiPlugins } from "./session-port.ts";

/** What `/board` needs of the host (a port: the host is not imported here). */
export interface BoardHost {
  readonly session: { readonly plugins?: Pick<TuiPlugins, "board"> };
  readonly board: { readonly mode: BoardMode; readonly columns: number };
  setBoardMode(mode: BoardMode): void;
  toast(text: string, tone: "warning"): void;
}

export type BoardMode = "auto" | "open" | "hidden";

const TONES: Readonly<Record<BoardView["sections"][number]["items"][number]["tone"], Tone | undefined>> = {
  default: undefined,
  muted: undefined,
  success: "success",
  warning: "warning",
  error: "error",
};

const EMPTY_ITEM: SidecarItem = { id: "board-empty", title: "Nothing on the Board", detail: "Plugins show what they track here" };

/** The sidecar state for a Board in a mode (undefined when there is nothing to show in any mode). */
export function boardSidecar(board: BoardView | undefined, mode: BoardMode): SidecarState | undefined {
  const sections = (board?.sections ?? []).map((section) => ({
    id: section.id,
    title: section.more > 0 ? `${section.title} (+${section.more})` : section.title,
    items: section.items.map((item): SidecarItem => {
      const tone = TONES[item.tone];
      return {
        id: item.id,
        title: item.title,
        ...(item.url === undefined ? {} : { url: item.url }),
        ...(item.status === undefined ? {} : { status: item.status }),
        ...(item.detail === undefined ? {} : { detail: item.detail }),
        ...(tone === undefined ? {} : { tone }),
      };
    }),
  }));
  if (sections.length === 0 && mode !== "open") return undefined;
  return { title: "Board", sections: sections.length === 0 ? [{ id: "board-empty", items: [EMPTY_ITEM] }] : sections, mode };
}

/** The columns left to the transcript, composer and footer: the terminal's, less the Board when it sits beside them. */
export function mainColumns(sidecar: SidecarState | undefined, columns: number): number {
  return sidecarPlacement(sidecar, columns) === "inline" ? columns - SIDECAR_WIDTH : columns;
}

/** `/board` with no argument: hide it when it is showing, open it when it is not. */
export function toggledMode(board: BoardView | undefined, mode: BoardMode, columns: number): BoardMode {
  return sidecarPlacement(boardSidecar(board, mode), columns) === "none" ? "open" : "hidden";
}

/** `/board <word>`: the mode it names, or undefined. */
export function parseBoardMode(word: string): BoardMode | undefined {
  switch (word) {
    case "open":
    case "show":
      return "open";
    case "hide":
    case "hidden":
    case "close":
      return "hidden";
    case "auto":
      return "auto";
    default:
      return undefined;
  }
}

/** `/board [open|hide|auto]`: no argument toggles (hide when showing, open when not). */
export function runBoardCommand(host: BoardHost, args: string): void {
  const plugins = host.session.plugins;
  if (plugins === undefined) {
    host.toast("Plugins do not run in this session", "warning");
    return;
  }
  const word = args.trim();
  const { mode, columns } = host.board;
  const next = word === "" ? toggledMode(plugins.board(), mode, columns) : parseBoardMode(word);
  if (next === undefined) {
    host.toast(`Unknown /board mode '${word}'; use open, hide or auto (or /board alone to toggle)`, "warning");
    return;
  }
  host.setBoardMode(next);
}
