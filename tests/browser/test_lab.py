"""The user's whole path in a real JupyterLab: run a notebook, answer in the view, and see
the kernel react (each test reads a later cell's output). Screenshots go to
test-artifacts/browser/."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

SETUP = """
from pydantic import BaseModel, Field
from pausepoint import Agent, ActionContext, ActionInterrupt, ScriptedModel, action, call
from pausepoint import outcome_of
executed = []

@action(needs_approval=True)
def refund(order_id: int, amount: float) -> dict:
    \"\"\"Refund an order.\"\"\"
    executed.append((order_id, amount))
    return {"refunded": amount}

def reply(request):
    last = request.items[-1]
    if last.type == "user":
        return call("refund", order_id=42, amount=30.0)
    done = outcome_of(last)
    if not done.ok:
        return f"Understood, no refund: {done.reason}"
    return f"Refunded {done.result['refunded']} on order 42."
"""
START = """
agent = Agent(model=ScriptedModel(reply), actions=[refund])
run = agent.start("Refund order 42")
run
"""
CHECK = 'print("KERNEL", run.state.status, "|", run.prompt.output, "|", executed)'

OpenNotebook = Callable[[str, list[str]], Any]


def _card(nb: Any, kind: str) -> Any:
    card = nb.page.locator(f'[data-testid="pp-card"][data-kind="{kind}"]').first
    expect(card).to_be_visible(timeout=60_000)
    return card


def _expect_status(nb: Any, text: str, view: int = 0) -> None:
    status = nb.page.get_by_test_id("pp-status").nth(view)
    expect(status).to_contain_text(text, ignore_case=True, timeout=30_000)


def _in_theme(nb: Any, theme: str) -> None:
    nb.page.evaluate(
        "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", theme
    )
    light = "false" if "Dark" in theme else "true"
    expect(nb.page.locator(f"body[data-jp-theme-light='{light}']")).to_have_count(1)


def _kernel_says(nb: Any, cell: int, text: str) -> None:
    nb.run_cell(cell)
    expect(nb.output(cell).last).to_contain_text(text, timeout=30_000)


def test_approve_a_tool_approval_and_see_the_run_complete(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("approve", [SETUP, START, CHECK])
    nb.run_all()
    card = _card(nb, "tool-approval")
    expect(card).to_contain_text("refund")
    expect(card).to_contain_text("42")
    nb.screenshot("a-approval-card")
    _in_theme(nb, "JupyterLab Dark")
    nb.screenshot("a-approval-card-dark")
    _in_theme(nb, "JupyterLab Light")

    card.get_by_test_id("pp-approve").click()

    _expect_status(nb, "completed")
    expect(nb.page.locator('[data-testid="pp-card"]')).to_have_count(0)
    expect(nb.widget()).to_contain_text("Refunded 30.0 on order 42.")
    _kernel_says(nb, 2, "KERNEL ready | Refunded 30.0 on order 42. | [(42, 30.0)]")
    nb.screenshot("a-approved-completed")


def test_reject_with_a_reason_and_see_the_models_reply(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("reject", [SETUP, START, CHECK])
    nb.run_all()
    card = _card(nb, "tool-approval")

    card.get_by_test_id("pp-reject-reason").fill("Too expensive")
    card.get_by_test_id("pp-reject").click()

    _expect_status(nb, "completed")
    expect(nb.widget()).to_contain_text("Understood, no refund: Too expensive")
    _kernel_says(nb, 2, "KERNEL ready | Understood, no refund: Too expensive | []")
    nb.screenshot("b-rejected-with-reason")


FORM_SETUP = """
from typing import Literal
from pydantic import BaseModel, Field
from pausepoint import Agent, ActionContext, ActionInterrupt, ScriptedModel, action, call
received = []

class Order(BaseModel):
    quantity: int = Field(ge=1, le=10, description="How many boxes")
    speed: Literal["standard", "express"] = "standard"

@action
async def order_boxes(ctx: ActionContext) -> str:
    \"\"\"Order boxes.\"\"\"
    if ctx.resumption is None:
        raise ActionInterrupt("How many boxes, and how fast?", response_schema=Order)
    received.append(ctx.resumption.data)
    return "ordered"

run = Agent(model=ScriptedModel([call("order_boxes"), "Your boxes are on their way."]),
            actions=[order_boxes]).start("Order boxes")
run
"""
FORM_CHECK = 'print("KERNEL", run.state.status, "|", received)'


def test_schema_form_validates_in_the_browser_then_submits(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("form", [FORM_SETUP, FORM_CHECK])
    nb.run_all()
    card = _card(nb, "generic")
    quantity = card.get_by_test_id("pp-field-quantity")
    submit = card.get_by_test_id("pp-submit")

    quantity.fill("0")
    expect(card.get_by_test_id("pp-field-error").first).to_be_visible()
    expect(submit).to_be_disabled()
    nb.screenshot("c-form-invalid")
    _kernel_says(nb, 1, "KERNEL interrupted | []")  # nothing was sent

    quantity.fill("3")
    card.get_by_test_id("pp-field-speed").select_option("express")
    expect(card.get_by_test_id("pp-field-error")).to_have_count(0)
    expect(submit).to_be_enabled()
    submit.click()

    _expect_status(nb, "completed")
    _kernel_says(nb, 1, "KERNEL ready | [{'quantity': 3, 'speed': 'express'}]")
    nb.screenshot("c-form-submitted")


def test_double_click_on_approve_runs_the_action_once(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("double", [SETUP, START, CHECK])
    nb.run_all()
    card = _card(nb, "tool-approval")

    card.get_by_test_id("pp-approve").dblclick()

    _expect_status(nb, "completed")
    _kernel_says(nb, 2, "| [(42, 30.0)]")
    nb.screenshot("d-double-click")


XSS_SETUP = """
from pausepoint import Agent, ScriptedModel
evil = ('Look: <img src=x onerror="window.__pwned = 1"> and '
        '<script>window.__pwned = 2</script> **bold** done.')
run = Agent(model=ScriptedModel([evil])).start("say something")
run
"""
XSS_CHECK = 'print("KERNEL", run.state.status, "|", run.prompt.output[:5])'


def test_html_in_model_text_renders_as_text_and_runs_nothing(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("xss", [XSS_SETUP, XSS_CHECK])
    nb.run_all()
    _expect_status(nb, "completed")
    view = nb.widget()
    expect(view).to_contain_text("bold")
    expect(view.locator("strong")).to_contain_text("bold")  # markdown still renders

    expect(view).to_contain_text('<img src=x onerror="window.__pwned = 1">')
    expect(view).to_contain_text("<script>window.__pwned = 2</script>")
    assert view.locator("script").count() == 0
    assert view.locator("img").count() == 0
    assert view.locator("[onerror]").count() == 0
    assert nb.page.evaluate("() => window.__pwned") is None
    _kernel_says(nb, 1, "KERNEL ready | Look:")
    nb.screenshot("e-sanitized")


def test_two_views_of_one_run_stay_in_sync(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("two-views", [SETUP, START, "display(run)", CHECK])
    nb.run_all()
    cards = nb.page.locator('[data-testid="pp-card"][data-kind="tool-approval"]')
    expect(cards).to_have_count(2, timeout=60_000)

    cards.nth(1).get_by_test_id("pp-approve").click()

    _expect_status(nb, "completed", view=0)
    _expect_status(nb, "completed", view=1)
    expect(cards).to_have_count(0)
    _kernel_says(nb, 3, "KERNEL ready | Refunded 30.0 on order 42. | [(42, 30.0)]")
    nb.screenshot("f-two-views")


QUICKSTART = Path(__file__).parents[2] / "notebooks" / "01-quickstart.ipynb"


def open_quickstart(open_notebook: OpenNotebook, name: str) -> Any:
    """`make demo`'s notebook open in JupyterLab, run down to the cell that shows the run."""
    nb = open_notebook(name, [])
    (nb.lab.root / f"{name}.ipynb").write_text(QUICKSTART.read_text(encoding="utf-8"))
    nb.page.reload()
    nb.wait_kernel_idle()
    nb.page.evaluate(
        """() => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = 8;
            window.jupyterapp.commands.execute('notebook:run-all-above');
        }"""
    )
    return nb


def test_quickstart_notebook_approve_in_the_view(open_notebook: OpenNotebook) -> None:
    """`make demo`'s notebook, as a newcomer uses it: run down to the view, click Approve."""
    nb = open_quickstart(open_notebook, "quickstart")
    expect(nb.output(7)).to_have_count(0)  # starting a run prints nothing
    nb.run_cell(8)
    card = _card(nb, "tool-approval")
    expect(card).to_contain_text("refund_order")
    nb.screenshot("g-quickstart-card")

    card.get_by_test_id("pp-approve").click()

    _expect_status(nb, "completed")
    _kernel_says(nb, 10, "completed")
    expect(nb.output(10).last).not_to_contain_text("approving from code")
    nb.screenshot("g-quickstart-completed")


def test_edit_arguments_then_approve_runs_with_the_edits(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("edit-args", [SETUP, START, CHECK])
    nb.run_all()
    card = _card(nb, "tool-approval")

    card.get_by_test_id("pp-edit-args").click()
    amount = card.get_by_test_id("pp-field-amount")
    expect(amount).to_have_value("30")
    amount.fill("12.5")
    nb.screenshot("h-edit-arguments")
    card.get_by_test_id("pp-approve").click()

    _expect_status(nb, "completed")
    expect(nb.widget()).to_contain_text("Refunded 12.5 on order 42.")
    _kernel_says(nb, 2, "KERNEL ready | Refunded 12.5 on order 42. | [(42, 12.5)]")
