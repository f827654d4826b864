import { memo, type ReactNode } from "react";
import { assertNever } from "../assert.ts";
import type { TimelineItem } from "../types.ts";
import { AgentMessage, Thought, UserMessage } from "./message-items.tsx";
import { ErrorBlock, Notice, PlanBlock, ReviewReceipt } from "./misc-items.tsx";
import { ToolBlock } from "./tool-block.tsx";

function ItemBody(props: { readonly item: TimelineItem }): ReactNode {
  const { item } = props;
  switch (item.kind) {
    case "user":
      return <UserMessage item={item} />;
    case "agent":
      return <AgentMessage item={item} />;
    case "thought":
      return <Thought item={item} />;
    case "tool":
      return <ToolBlock item={item} />;
    case "plan":
      return <PlanBlock item={item} />;
    case "notice":
      return <Notice item={item} />;
    case "error":
      return <ErrorBlock item={item} />;
    case "review":
      return <ReviewReceipt item={item} />;
    default:
      return assertNever(item);
  }
}

/** One timeline entry; memoised on item identity, so unchanged items are not re-rendered. */
export const TimelineEntry = memo(function TimelineEntry(props: {
  readonly item: TimelineItem;
  readonly first: boolean;
}): ReactNode {
  return (
    <box flexDirection="column" flexShrink={0} marginTop={props.first ? 0 : 1}>
      <ItemBody item={props.item} />
    </box>
  );
});
