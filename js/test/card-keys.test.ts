import { afterEach, describe, expect, it } from "vitest";
import { cardKey } from "../src/lib/card-key";
import type { PendingCard } from "../src/types";
import { approvalCard, click, FakeModel, initialize, mount } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

const own = { ...approvalCard, key: "int-approve" } as PendingCard;
const foreign = {
  ...approvalCard,
  key: "foreign:int-approve",
  kind: "unbound",
  canResolve: false,
  message: "Approve the deploy?",
  readOnlyReason: "It belongs to run-2, not to this run.",
  toolCallId: null,
  args: null,
} as PendingCard;

describe("cards that share an interrupt id", () => {
  it("are drawn apart, and only the run's own can be answered, by its id", () => {
    const model = new FakeModel({ status: "interrupted", pending: [own, foreign] });
    const dispose = initialize(model);
    const view = mount(model);
    const cards = view.qa("pp-card");
    expect(cards.map((c) => c.dataset.kind)).toEqual(["tool-approval", "unbound"]);
    expect(cards[1].dataset.readonly).toBe("true");
    expect(cards[1].querySelector('[data-testid="pp-approve"]')).toBeNull();

    click(cards[0].querySelector<HTMLElement>('[data-testid="pp-approve"]')!);
    expect(model.lastRequest()).toMatchObject({ type: "resume", interrupt: "int-approve", data: true });
    view.cleanup();
    dispose();
  });

  it("keep each card's own element when the other leaves", () => {
    const model = new FakeModel({ status: "interrupted", pending: [own, foreign] });
    const dispose = initialize(model);
    const view = mount(model);
    const before = view.qa("pp-card")[1];

    model.setTrait("pending", [foreign]);

    const [after] = view.qa("pp-card");
    expect(after.dataset.kind).toBe("unbound");
    expect(after).toBe(before);
    view.cleanup();
    dispose();
  });

  it("fall back to kind and id for cards saved without a key", () => {
    const { key: _, ...saved } = foreign;
    expect(cardKey(saved as PendingCard)).toBe("unbound:int-approve");
    expect(cardKey(own)).toBe("int-approve");
  });
});
