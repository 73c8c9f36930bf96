/**
 * Where focus goes once a card is answered: the next card, else the run's status.
 * `hadFocus`: focus was in the card when the answer left (its controls are disabled
 * since, which takes focus from them); without it, focus stays where the user put it.
 */
export function moveFocusAfterAnswer(card: HTMLElement | null, hadFocus: boolean): void {
  if (!card || !hadFocus) return;
  const active = document.activeElement;
  if (active && active !== document.body && !card.contains(active)) return;
  const root = card.closest(".pp-root");
  if (!root) return;
  const cards = [...root.querySelectorAll<HTMLElement>('[data-testid="pp-card"]')];
  const next = cards.slice(cards.indexOf(card) + 1).concat(cards.slice(0, cards.indexOf(card))).find((c) => c.dataset.phase === "idle");
  const target =
    next?.querySelector<HTMLElement>("button:not(:disabled), input:not(:disabled), textarea:not(:disabled), select:not(:disabled)") ??
    root.querySelector<HTMLElement>('[data-testid="pp-status"]');
  if (!target) return;
  if (target.dataset.testid === "pp-status") target.setAttribute("tabindex", "-1");
  target.focus();
}
