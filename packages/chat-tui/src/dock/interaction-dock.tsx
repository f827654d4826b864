import type { ReactNode } from "react";
import { assertNever } from "../assert.ts";
import type { InteractionCard } from "../types.ts";
import { PermissionCardView } from "./permission-card.tsx";
import { QuestionCardView } from "./question-card.tsx";
import { SuggestionCardView } from "./suggestion-card.tsx";

/** Shows the first pending card; it takes the keys while `active` (no picker open above it). */
export function InteractionDock(props: { readonly cards: readonly InteractionCard[]; readonly active: boolean }): ReactNode {
  const card = props.cards[0];
  if (card === undefined) return null;
  const pending = props.cards.length - 1;
  switch (card.kind) {
    case "permission":
      return <PermissionCardView key={card.id} card={card} active={props.active} pending={pending} />;
    case "question":
      return <QuestionCardView key={card.id} card={card} active={props.active} pending={pending} />;
    case "suggestion":
      return <SuggestionCardView key={card.id} card={card} active={props.active} pending={pending} />;
    default:
      return assertNever(card);
  }
}
