import type { PendingCard } from "../types";

/**
 * The card's key in a view: unique among its cards even when another producer's card
 * reuses an interrupt id of the run's own (cards are answered by id, told apart by key).
 * Views saved before cards carried keys fall back to kind and id.
 */
export function cardKey(card: PendingCard): string {
  return card.key ?? `${card.kind}:${card.id}`;
}
