import type { TimelineItem } from "chat-tui";

/** A timeline item without its id (the host mints one). */
export type LocalDraft = TimelineItem extends infer T ? (T extends TimelineItem ? Omit<T, "id"> : never) : never;
