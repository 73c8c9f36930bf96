/** Where focus goes once a card is answered: the next card, else the run's status. */

const CONTROLS = "button:not(:disabled), input:not(:disabled), textarea:not(:disabled), select:not(:disabled)";

/**
 * Moves focus on from the answered `card` (which may have left the page already: its
 * view's `root` says where to look). `hadFocus`: focus was in the card when the answer
 * left (its controls are disabled since, which takes focus from them); without it, or once
 * the user has put focus elsewhere, focus stays where it is.
 */
export function moveFocusAfterAnswer(card: HTMLElement | null, hadFocus: boolean, root?: Element | null): void {
  if (!card || !hadFocus) return;
  const active = document.activeElement;
  if (active && active !== document.body && !card.contains(active)) return;
  const view = root ?? card.closest(".pp-root");
  if (!view) return;
  const cards = [...view.querySelectorAll<HTMLElement>('[data-testid="pp-card"]')];
  const at = cards.indexOf(card);
  const order = at < 0 ? cards : [...cards.slice(at + 1), ...cards.slice(0, at)];
  const next = order.find((c) => c !== card && c.dataset.phase === "idle");
  const target = next?.querySelector<HTMLElement>(CONTROLS) ?? view.querySelector<HTMLElement>('[data-testid="pp-status"]');
  if (!target) return;
  if (target.dataset.testid === "pp-status") target.setAttribute("tabindex", "-1");
  target.focus();
}
