# The quickstart in marimo: `marimo edit examples/marimo/quickstart.py`, run the cells,
# then answer the card with a click. Offline: DemoModel needs no API key.
import marimo

__generated_with = "0.25.2"
app = marimo.App()


@app.cell
def _():
    import marimo as mo

    from pausepoint import Agent, DemoModel, action

    return Agent, DemoModel, action, mo


@app.cell
def _(action):
    ORDERS = {42: 35.00, 7: 12.50}
    REFUNDED: list[int] = []

    @action
    def look_up_order(order_id: int) -> dict:
        """Look up an order: the amount paid."""
        return {"order_id": order_id, "amount": ORDERS[order_id]}

    @action(needs_approval=True)
    def refund_order(order_id: int) -> str:
        """Refund an order in full."""
        REFUNDED.append(order_id)
        return f"refunded {ORDERS[order_id]:.2f} for order {order_id}"

    return REFUNDED, look_up_order, refund_order


@app.cell
def _(Agent, DemoModel, look_up_order, refund_order):
    agent = Agent(
        model=DemoModel(),
        actions=[look_up_order, refund_order],
        instructions="You help customers with their orders.",
    )
    return (agent,)


@app.cell
def _(agent, mo):
    # marimo shows an anywidget through mo.ui.anywidget. Approve or Reject the card;
    # once the run completes, the message box below it starts the next turn.
    run = agent.start("Refund order 42")
    view = mo.ui.anywidget(run.view)
    view
    return (run,)


@app.cell
def _(REFUNDED, mo):
    # Run this cell again after answering: what the action did, read from the kernel.
    mo.md(f"Refunded so far: {REFUNDED or 'nothing'}")
    return


if __name__ == "__main__":
    app.run()
