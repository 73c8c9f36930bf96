"""Every notebook in notebooks/, read and clicked as its text invites, in a real
JupyterLab: the cells run in order, each card the text asks the reader to answer is
answered in the view (Approve, a form, Reject with a reason, the inbox) before the next
cells run, and at the end no cell holds an error and the kernel says what happened.
Screenshots of each clicked card go to test-artifacts/browser/."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import nbformat
import pytest
from playwright.sync_api import expect

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
WAIT = 60_000

OpenSaved = Callable[[str, nbformat.NotebookNode], Any]
Click = Callable[[Any], None]


def open_real(open_saved: OpenSaved, name: str, check: str, first: str = "") -> Any:
    """The notebook `name` from notebooks/, copied into JupyterLab's root and opened, with
    `check` (code that prints what the kernel holds) added as its last cell, and `first`
    (if any) as its first."""
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    if first:
        nb.cells.insert(0, nbformat.v4.new_code_cell(first))
    nb.cells.append(nbformat.v4.new_code_cell(check))
    opened = open_saved(name, nb)
    opened.cells = len(nb.cells)
    return opened


def run_cell(nb: Any, index: int) -> None:
    """Run one cell and wait until it has finished (JupyterLab's run command resolves then)."""
    nb.page.evaluate(
        """(i) => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = i;
            window.__ppRan = -1;
            window.jupyterapp.commands.execute('notebook:run-cell').then(() => {
                window.__ppRan = i;
            });
        }""",
        index,
    )
    nb.page.wait_for_function(f"() => window.__ppRan === {index}", timeout=WAIT)


def walk(nb: Any, clicks: Mapping[int, Click] | None = None) -> None:
    """Run every cell in order; after cell `i`, do `clicks[i]` (what its text invites)."""
    clicks = clicks or {}
    for index in range(nb.cells):
        run_cell(nb, index)
        if index in clicks:
            clicks[index](nb)
    assert_no_errors(nb)


def assert_no_errors(nb: Any) -> None:
    raised = nb.page.evaluate(
        """() => {
            const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
            const found = [];
            for (let i = 0; i < cells.length; i++) {
                const cell = cells.get(i);
                if (cell.type !== 'code') continue;
                for (const out of cell.outputs.toJSON()) {
                    const text = Array.isArray(out.text) ? out.text.join('') : (out.text || '');
                    if (out.output_type === 'error') {
                        found.push(`cell ${i}: ${out.ename}: ${out.evalue}`);
                    } else if (out.name === 'stderr' && text.includes('Traceback')) {
                        found.push(`cell ${i}: ${text}`);
                    }
                }
            }
            return found;
        }"""
    )
    assert raised == [], "\n".join(raised)
    stderr = nb.page.locator(
        '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
    )
    expect(stderr.filter(has_text="Traceback")).to_have_count(0)


def kernel_says(nb: Any, *texts: str) -> None:
    """The last cell (added by the test) printed each of `texts`."""
    output = nb.output(nb.cells - 1).last
    for text in texts:
        expect(output).to_contain_text(text, timeout=WAIT)


def card_in(nb: Any, cell: int, kind: str = "") -> Any:
    selector = '[data-testid="pp-card"]' + (f'[data-kind="{kind}"]' if kind else "")
    card = nb.output(cell).locator(selector).first
    expect(card).to_be_visible(timeout=WAIT)
    card.scroll_into_view_if_needed()
    return card


def _markdown_of(path: Path) -> str:
    """The text of a notebook's markdown cells, as a reader reads it."""
    notebook = nbformat.read(path, as_version=4)
    return "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")


def status_in(nb: Any, cell: int, text: str) -> None:
    status = nb.output(cell).get_by_test_id("pp-status").first
    expect(status).to_contain_text(text, ignore_case=True, timeout=WAIT)


# -- 01 --------------------------------------------------------------------------------


def test_quickstart_clicked_as_it_invites(open_saved: OpenSaved) -> None:
    """Approve the quickstart's card, reject the card of "try your own request" with a
    reason; the code path uses a run of its own, and nothing answers the reader's cards."""

    def approve(nb: Any) -> None:
        card = card_in(nb, 8, "tool-approval")
        expect(card).to_contain_text("refund_order")
        nb.screenshot("nb01-card")
        # The notebook's text names every button the reader's card offers, and the ones
        # that Edit arguments and Respond bring up.
        offered = card.locator("button:visible").all_inner_texts()
        card.get_by_test_id("pp-edit-args").click()
        offered += card.locator("button:visible").all_inner_texts()
        card.get_by_test_id("pp-edit-args").click()  # Cancel edits
        card.get_by_test_id("pp-respond").click()
        offered += card.locator("button:visible").all_inner_texts()
        card.get_by_test_id("pp-respond").click()  # Cancel response
        text = _markdown_of(NOTEBOOKS / "01-quickstart.ipynb")
        buttons = {b.strip() for b in offered if b.strip()}
        unnamed = sorted(b for b in buttons if f"**{b}**" not in text)
        assert {"Approve", "Edit arguments", "Respond", "Reject"} <= buttons
        assert not unnamed, f"the quickstart never names these buttons of its card: {unnamed}"
        card.get_by_test_id("pp-approve").click()
        status_in(nb, 8, "completed")

    def reject(nb: Any) -> None:
        card = card_in(nb, 17, "tool-approval")
        card.get_by_test_id("pp-reject-reason").fill("Not this one")
        nb.screenshot("nb01-reject")
        card.get_by_test_id("pp-reject").click()
        status_in(nb, 17, "completed")

    nb = open_real(
        open_saved,
        "01-quickstart",
        'print("KERNEL", run.status, "|", run.prompt.output, "|", mine.status, "|",'
        " [c.status for c in mine.prompt.tool_calls()])",
    )
    walk(nb, {8: approve, 17: reject})

    expect(nb.output(10).last).to_contain_text("completed - Done: refund_order returned")
    expect(nb.output(12).last).to_contain_text("answered")
    expect(nb.output(12).last).not_to_contain_text("waiting for your answer")
    expect(nb.output(18).last).not_to_contain_text("approving from code")
    kernel_says(
        nb,
        "KERNEL completed | Done: refund_order returned refunded 35.00 for order 42. |"
        " completed | ['rejected']",
    )
    nb.screenshot("nb01-end")


# -- 02 --------------------------------------------------------------------------------


def test_approvals_your_turn_approved_with_edits(open_saved: OpenSaved) -> None:
    def edit_and_approve(nb: Any) -> None:
        card = card_in(nb, 25, "tool-approval")
        card.get_by_test_id("pp-edit-args").click()
        amount = card.get_by_test_id("pp-field-amount")
        expect(amount).to_have_value("12.5")
        amount.fill("5")
        nb.screenshot("nb02-edit")
        card.get_by_test_id("pp-approve").click()
        status_in(nb, 25, "completed")

    nb = open_real(
        open_saved, "02-approvals", 'print("KERNEL", yours.status, "|", yours.prompt.output)'
    )
    walk(nb, {25: edit_and_approve})

    expect(nb.output(26).last).to_contain_text("you decided: Approved with changes: amount")
    kernel_says(nb, "KERNEL completed | Done: refunded 5.00 for order 7.")


# -- 03 --------------------------------------------------------------------------------


def test_forms_answered_in_the_forms(open_saved: OpenSaved) -> None:
    def plan(nb: Any) -> None:
        card = card_in(nb, 10, "generic")
        card.get_by_test_id("pp-field-day").select_option("Wednesday")
        card.get_by_test_id("pp-field-minutes").fill("500")
        expect(card.get_by_test_id("pp-submit")).to_be_disabled()
        card.get_by_test_id("pp-field-minutes").fill("60")
        card.get_by_test_id("pp-field-room").fill("Orion")
        nb.screenshot("nb03-workshop-form")
        card.get_by_test_id("pp-submit").click()
        status_in(nb, 10, "completed")

    def ship(nb: Any) -> None:
        card = card_in(nb, 16, "generic")
        card.get_by_test_id("pp-field-speed").select_option("standard")
        card.get_by_test_id("pp-field-insured_value").fill("100")
        nb.screenshot("nb03-parcel-form")
        card.get_by_test_id("pp-submit").click()
        status_in(nb, 16, "completed")

    nb = open_real(
        open_saved,
        "03-forms",
        'print("KERNEL", run.prompt.output, "|", shipping.prompt.output)',
    )
    walk(nb, {10: plan, 16: ship})

    expect(nb.output(12).last).to_contain_text("You already answered in the form")
    expect(nb.output(18).last).to_contain_text("You already answered in the form")
    kernel_says(
        nb,
        "KERNEL All set: pandas workshop on Wednesday, 60 min in Orion. |"
        " All set: parcel 31 sent standard, insured for 100.",
    )


# -- 04 --------------------------------------------------------------------------------


def restart_kernel(nb: Any) -> None:
    """Kernel > Restart Kernel, as notebook 04 invites (without the confirmation dialog)."""
    nb.page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.restartKernel()")
    nb.wait_kernel_idle()


def answer_restored_card(nb: Any) -> None:
    card = card_in(nb, 13, "generic")
    expect(card).to_contain_text("Close account 17")
    nb.screenshot("nb04-restored-card")
    card.get_by_test_id("pp-answer-yes").click()
    status_in(nb, 13, "completed")


def answer_in_the_inbox(nb: Any) -> None:
    row = nb.output(21).get_by_test_id("pp-triage-row").first
    expect(row).to_contain_text("Close account 23", timeout=WAIT)
    row.get_by_test_id("pp-triage-open").click()
    entry = nb.output(21).get_by_test_id("pp-inbox-entry")
    entry.scroll_into_view_if_needed()
    nb.screenshot("nb04-inbox")
    entry.get_by_test_id("pp-answer-yes").click()
    expect(nb.output(21).get_by_test_id("pp-triage-row")).to_have_count(0, timeout=WAIT)


@pytest.mark.parametrize("restart", [False, True], ids=["same-kernel", "restarted"])
def test_save_and_restore_answered_in_the_card_and_the_inbox(
    open_saved: OpenSaved, restart: bool
) -> None:
    """The restored run's card and the inbox, each answered Yes; with `restarted`, the
    kernel is restarted where the text offers it and the cells from there run alone."""
    # The notebook's folder outlives its kernels; runs an earlier walk left waiting in its
    # store would show in the inbox too. (The kernel shares this process's temp folder.)
    shutil.rmtree(Path(tempfile.gettempdir()) / "pausepoint-04", ignore_errors=True)
    nb = open_real(
        open_saved,
        "04-save-and-restore",
        'print("KERNEL", restored.prompt.output, "|", store.summary(loaded.id).status)',
    )
    clicks = {13: answer_restored_card, 21: answer_in_the_inbox}
    if restart:
        clicks[12] = restart_kernel
    walk(nb, clicks)

    expect(nb.output(14).last).not_to_contain_text("answering from code")
    expect(nb.output(23).last).to_contain_text("Answered in the inbox.")
    expect(nb.output(23).last).to_contain_text("stored: completed | waiting in the inbox: 0")
    kernel_says(
        nb,
        "KERNEL Done: close_account returned account 17 closed, 120.50 paid out. | completed",
    )


# -- 05, 06, 07: nothing to answer, but every view and cell works -------------------------


def test_under_the_hood_runs_to_the_end(open_saved: OpenSaved) -> None:
    nb = open_real(open_saved, "05-under-the-hood", 'print("KERNEL", run.state.status)')
    walk(nb)
    kernel_says(nb, "KERNEL ready")


def test_real_model_without_an_endpoint_skips(open_saved: OpenSaved) -> None:
    nb = open_real(
        open_saved,
        "06-real-model",
        'print("KERNEL", CONFIGURED, agent)',
        first='import os\nfor key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):\n'
        "    os.environ.pop(key, None)",
    )
    walk(nb)
    skipped = nb.page.locator(".jp-OutputArea-output").filter(has_text="Skipped: no model endpoint")
    expect(skipped).to_have_count(6)
    kernel_says(nb, "KERNEL False None")


def test_debugging_compares_the_fork(open_saved: OpenSaved) -> None:
    def compare(nb: Any) -> None:
        view = nb.output(11)
        status_in(nb, 11, "completed")
        view.get_by_test_id("pp-debug").locator("summary").first.click()  # the Debug section
        button = view.get_by_test_id("pp-compare").first
        button.scroll_into_view_if_needed()
        button.click()
        expect(view.get_by_test_id("pp-branches")).to_be_visible(timeout=WAIT)
        nb.screenshot("nb07-compare")

    def go_back(nb: Any) -> None:
        """What cell 14 invites on `finished`: Go back here on refund, fewer cents; then
        Go back here on turn 2, Edit the message, Continue; each fork answered in place."""
        view = nb.output(13)
        status_in(nb, 13, "completed")
        refund = view.locator('.pp-transcript [data-testid="pp-tool-call"][data-name="refund"]')
        refund.first.get_by_test_id("pp-go-back-call").click()
        shown = view.get_by_test_id("pp-fork-view")
        card = shown.locator('[data-testid="pp-card"][data-kind="breakpoint"]')
        expect(card).to_be_visible(timeout=WAIT)
        card.get_by_test_id("pp-debug-edit").click()
        card.get_by_test_id("pp-field-cents").fill("3000")
        card.get_by_test_id("pp-debug-run-edited").click()
        shown.get_by_test_id("pp-approve").click()  # refund still asks for its approval
        expect(shown.get_by_test_id("pp-status").first).to_have_attribute(
            "data-status", "completed", timeout=WAIT
        )
        expect(shown.get_by_test_id("pp-fork-view-name")).to_have_text(
            "edited cents at refund", timeout=WAIT
        )

        view.get_by_test_id("pp-debug").locator("summary").first.click()
        # Each fork says how to reach it from code, by the notebook's own name for the run.
        expect(view.get_by_test_id("pp-fork-code").nth(2)).to_have_text("finished.forks[2]")
        turn = view.locator('[data-testid="pp-debug-turn"][data-turn="1"]').first
        turn.get_by_test_id("pp-go-back-turn").click()
        expect(shown.get_by_test_id("pp-fork-view-name")).to_have_text(
            "asked again at turn 2", timeout=WAIT
        )
        shown.get_by_test_id("pp-edit-item").first.click()
        shown.get_by_test_id("pp-edit-text").fill("Refund order 42, only half of it")
        shown.get_by_test_id("pp-edit-save").click()
        expect(shown.get_by_test_id("pp-edited-mark")).to_have_count(1, timeout=WAIT)
        shown.get_by_test_id("pp-debug-continue").click()
        shown.get_by_test_id("pp-approve").click()
        expect(shown.get_by_test_id("pp-status").first).to_have_attribute(
            "data-status", "completed", timeout=WAIT
        )
        shown.scroll_into_view_if_needed()
        nb.screenshot("nb07-went-back")

    def find(nb: Any) -> None:
        """What cell 17 invites: choose Failed under Status, or type 51 under Call #."""
        view = nb.output(18)
        status_in(nb, 18, "completed")
        view.get_by_test_id("pp-find-status").select_option("failed")
        count = view.get_by_test_id("pp-find-count")
        expect(count).to_have_text("3 of 60 calls", timeout=WAIT)
        found = view.get_by_test_id("pp-found").locator('[data-testid="pp-tool-call"]')
        expect(found).to_have_count(3)
        view.get_by_test_id("pp-find-clear").click()
        number = view.get_by_test_id("pp-jump-call")
        number.fill("51")
        number.press("Enter")
        expect(count).to_have_text("Call 51 of 60", timeout=WAIT)
        target = view.locator('[data-target="true"] [data-testid="pp-tool-call"]')
        expect(target).to_have_attribute("data-status", "failed")  # order 51 = 3 × 17
        nb.screenshot("nb07-find")

    nb = open_real(
        open_saved,
        "07-debugging",
        'print("KERNEL", approved.status, [f.status for f in approved.forks], '
        "[f.fork_name for f in finished.forks], finished.forks[-1].prompt.items[0].text)",
    )
    walk(nb, {11: compare, 13: go_back, 18: find})
    kernel_says(
        nb,
        "KERNEL completed ['completed'] ['edited cents at refund', 'asked again at turn 1 with "
        "the message edited', 'edited cents at refund', 'asked again at turn 2 with the message "
        "edited'] Refund order 42, only half of it",
    )


# -- 08 --------------------------------------------------------------------------------


def test_durable_runs_answered_in_the_inbox(open_saved: OpenSaved) -> None:
    def approve_first(nb: Any) -> None:
        rows = nb.output(10).get_by_test_id("pp-triage-row")
        expect(rows).to_have_count(1, timeout=WAIT)
        rows.first.get_by_test_id("pp-triage-open").click()
        entry = nb.output(10).get_by_test_id("pp-inbox-entry")
        entry.scroll_into_view_if_needed()
        nb.screenshot("nb08-inbox-one")
        entry.get_by_test_id("pp-approve").click()
        expect(rows).to_have_count(0, timeout=WAIT)

    def clear_batch(nb: Any) -> None:
        view = nb.output(18)
        rows = view.get_by_test_id("pp-triage-row")
        expect(rows).to_have_count(4, timeout=WAIT)
        view.get_by_test_id("pp-triage-sort").select_option(label="amount, largest first")
        expect(rows.first).to_contain_text("9,500", timeout=WAIT)
        view.scroll_into_view_if_needed()
        nb.screenshot("nb08-inbox-batch")
        rows.first.get_by_test_id("pp-triage-select").click()
        view.get_by_test_id("pp-bulk-decline").click()
        view.get_by_test_id("pp-bulk-words").fill(
            "Over 1000 EUR: needs the finance director's signature"
        )
        expect(view.get_by_test_id("pp-bulk-confirm-text")).to_contain_text("Decline 1 run")
        view.get_by_test_id("pp-bulk-confirm-yes").click()
        expect(rows).to_have_count(3, timeout=WAIT)
        view.get_by_test_id("pp-triage-select-page").click()
        view.get_by_test_id("pp-bulk-approve").click()
        expect(view.get_by_test_id("pp-bulk-confirm-text")).to_contain_text("Approve 3 runs")
        nb.screenshot("nb08-inbox-confirm")
        view.get_by_test_id("pp-bulk-confirm-yes").click()
        expect(rows).to_have_count(0, timeout=WAIT)
        expect(view.get_by_test_id("pp-bulk-progress")).to_contain_text("Approved 3 of 3")
        nb.screenshot("nb08-inbox-cleared")

    nb = open_real(
        open_saved,
        "08-durable-runs",
        'print("KERNEL", sorted(s.status for s in store.runs(agent="payments")), len(box.entries))',
    )
    walk(nb, {10: approve_first, 20: clear_batch})

    expect(nb.output(12).last).to_contain_text("Answered in the inbox: completed")
    expect(nb.output(21).last).to_contain_text("Nothing left to clear")
    # Invoice 1001, the overnight four and the six the workers carried.
    kernel_says(nb, f"KERNEL {['completed'] * 11} 0")
    for cell in (10, 18):  # the inbox's views still show it, after the tidy-up too
        expect(nb.output(cell).get_by_test_id("pp-inbox-empty")).to_be_visible()
    nb.screenshot("nb08-end")


# -- 09 --------------------------------------------------------------------------------

YOUR_TURN = 50  # notebook 09's served run that waits for the reader


def answer_langgraphs_question(cell: int) -> Click:
    """A LangGraph node's `interrupt()`: a form from its schema, on a row of its own, with
    no Reject; filled in and submitted, the graph goes on with the value."""

    def click(nb: Any) -> None:
        card = card_in(nb, cell, "generic")
        expect(card).to_contain_text("Refund 30.00 on order 42?")
        expect(card.get_by_test_id("pp-read-from")).to_have_text("Read from LangGraph's pause")
        expect(card.get_by_test_id("pp-reject")).to_have_count(0)
        card.get_by_test_id("pp-field-approved").check()
        card.get_by_test_id("pp-field-amount").fill("25")
        nb.screenshot(f"nb09-langgraph-{cell}")
        card.get_by_test_id("pp-submit").click()
        status_in(nb, cell, "completed")
        call = nb.page.locator('[data-testid="pp-tool-call"][data-name="interrupt"]')
        row = nb.output(cell).get_by_test_id("pp-row").filter(has=call)
        expect(row).to_have_count(1)
        expect(row.get_by_test_id("pp-decision")).to_contain_text("Answered")
        expect(row.get_by_test_id("pp-decision")).to_contain_text("amount")
        said = nb.output(cell).locator(".pp-root").first
        expect(said).to_contain_text("Done: refunded 25.00 on order 42.")

    return click


def approve_read_from_its_shape(cell: int) -> Click:
    """Pydantic AI's approval: a card read from its shape, approved with a click."""

    def click(nb: Any) -> None:
        card = card_in(nb, cell, "tool-approval")
        expect(card).to_contain_text("Approve cancel_subscription")
        expect(card.get_by_test_id("pp-read-from")).to_have_text("Read from Pydantic AI's pause")
        nb.screenshot(f"nb09-shape-{cell}")
        card.get_by_test_id("pp-approve").click()
        status_in(nb, cell, "completed")
        expect(nb.output(cell).get_by_test_id("pp-decision").last).to_contain_text("Approved")

    return click


def answer_langchains_review(cell: int) -> Click:
    """langchain's human in the loop: a card per call read from LangGraph's pause, each
    offering what its review allows; Approve on one, Reject with a reason on the other."""

    def click(nb: Any) -> None:
        cards = nb.output(cell).get_by_test_id("pp-card")
        invoice = cards.filter(has_text="send_invoice")
        closing = cards.filter(has_text="close_account")
        expect(invoice).to_be_visible(timeout=WAIT)
        for card in (invoice, closing):
            expect(card.get_by_test_id("pp-read-from")).to_have_text("Read from LangGraph's pause")
        expect(invoice.get_by_test_id("pp-edit-args")).to_be_visible()
        expect(invoice.get_by_test_id("pp-respond")).to_be_visible()
        # close_account's review allows approve and reject only.
        expect(closing.get_by_test_id("pp-edit-args")).to_have_count(0)
        expect(closing.get_by_test_id("pp-respond")).to_have_count(0)
        nb.screenshot(f"nb09-langchain-{cell}")
        invoice.get_by_test_id("pp-approve").click()
        closing.get_by_test_id("pp-reject-reason").fill("Ada wants to keep her account")
        closing.get_by_test_id("pp-reject").click()
        status_in(nb, cell, "completed")
        decisions = nb.output(cell).get_by_test_id("pp-decision")
        expect(decisions).to_have_count(2)
        expect(decisions.first).to_contain_text("Approved")
        expect(decisions.last).to_contain_text("Declined")
        expect(decisions.last).to_contain_text("Ada wants to keep her account")

    return click


def approve_the_sdks_call(cell: int) -> Click:
    """An OpenAI Agents SDK approval, hosted: a card read from the SDK's pause, with no
    Edit arguments, approved with a click; the header says where the run executes."""

    def click(nb: Any) -> None:
        card = card_in(nb, cell, "tool-approval")
        expect(card).to_contain_text("issue_credit")
        expect(card.get_by_test_id("pp-read-from")).to_have_text("Read from OpenAI Agents' pause")
        expect(card.get_by_test_id("pp-edit-args")).to_have_count(0)
        expect(card.get_by_test_id("pp-respond")).to_be_visible()
        view = nb.output(cell).locator(".pp-root").first
        expect(view).to_contain_text("OpenAI Agents agent in this kernel")
        nb.screenshot(f"nb09-openai-agents-{cell}")
        card.get_by_test_id("pp-approve").click()
        status_in(nb, cell, "completed")
        expect(nb.output(cell).get_by_test_id("pp-decision").last).to_contain_text("Approved")
        expect(view).to_contain_text("Done: credited 5.00 to Ada.")

    return click


def test_remote_agents_your_turn_approved_in_the_remote_card(open_saved: OpenSaved) -> None:
    """The LangGraph node's question is a form, answered on its card; Pydantic AI's approval, read
    from its shape, is approved on its card; langchain's review is answered on its two
    cards; then the same agents and an OpenAI Agents SDK agent, hosted in the kernel, are
    answered on theirs; the served run of "Your turn" is approved in its card, and the
    RemoteRun in the kernel completes."""

    def approve(nb: Any) -> None:
        card = card_in(nb, YOUR_TURN, "tool-approval")
        expect(card).to_contain_text("refund")
        nb.screenshot("nb09-card")
        card.get_by_test_id("pp-approve").click()
        status_in(nb, YOUR_TURN, "completed")

    nb = open_real(
        open_saved,
        "09-remote-agents",
        'print("KERNEL", yours.status, "|", yours.prompt.output)',
    )
    walk(
        nb,
        {
            25: answer_langgraphs_question(25),
            32: approve_read_from_its_shape(32),
            38: answer_langchains_review(38),
            42: answer_langchains_review(42),
            44: approve_read_from_its_shape(44),
            46: approve_the_sdks_call(46),
            YOUR_TURN: approve,
        },
    )

    expect(nb.output(27).last).to_contain_text("completed - Done: refunded 25.00 on order 42.")
    expect(nb.output(34).last).to_contain_text("completed - Done: subscription 314 cancelled.")
    # The cell after langchain's cards finds them answered: the tools did what was said.
    expect(nb.output(40).last).to_contain_text("the tools did: ['invoice 42 to ada@example.com']")
    expect(nb.output(40).last).to_contain_text("with reason: Ada wants to keep her account")

    # The cell after the hosted cards finds them answered, each by its framework.
    hosted = nb.output(48).last
    expect(hosted).to_contain_text("LangGraph: completed - the tools did: ['invoice 42")
    expect(hosted).to_contain_text("Pydantic AI: completed - Done: subscription 314 cancelled.")
    expect(hosted).to_contain_text("OpenAI Agents: completed - credited: [('Ada', 5.0)]")

    expect(nb.output(YOUR_TURN + 1).last).to_contain_text(
        "completed - Done: refunded 12.50 for order 7."
    )
    kernel_says(nb, "KERNEL completed | Done: refunded 12.50 for order 7.")
    expect(nb.output(YOUR_TURN).get_by_test_id("pp-card")).to_have_count(0)
    nb.screenshot("nb09-end")


# -- Run All ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "check", "card_cell"),
    [
        ("01-quickstart", 'print("KERNEL", run.status, mine.status)', 8),
        ("02-approvals", 'print("KERNEL", yours.status)', 25),
        ("09-remote-agents", 'print("KERNEL", yours.status)', YOUR_TURN),
    ],
    ids=["01", "02", "09"],
)
def test_run_all_leaves_a_card_for_the_reader(
    open_saved: OpenSaved, name: str, check: str, card_cell: int
) -> None:
    nb = open_real(open_saved, name, check)
    nb.run_all()
    kernel_says(nb, "KERNEL interrupted")
    assert_no_errors(nb)
    card = card_in(nb, card_cell, "tool-approval")
    expect(card.get_by_test_id("pp-approve")).to_be_enabled()
    nb.screenshot(f"nb{name[:2]}-run-all")


def test_run_all_keeps_the_inbox_views(open_saved: OpenSaved) -> None:
    nb = open_real(open_saved, "08-durable-runs", 'print("KERNEL", len(box.entries))')
    nb.run_all()
    kernel_says(nb, "KERNEL 0")
    assert_no_errors(nb)
    for cell in (10, 18):
        expect(nb.output(cell).get_by_test_id("pp-inbox-empty")).to_be_visible()
    nb.screenshot("nb08-run-all")


# -- Respond, wherever a notebook's card offers it ----------------------------------------


def respond_in(cell: int, words: str, where: str = "") -> Click:
    """Respond on the card after `cell` (or in its inbox entry): the words instead of the
    action; the decision line says so, and the run completes."""

    def click(nb: Any) -> None:
        if where == "inbox":
            rows = nb.output(cell).get_by_test_id("pp-triage-row")
            expect(rows).to_have_count(1, timeout=WAIT)
            rows.first.get_by_test_id("pp-triage-open").click()
            card = nb.output(cell).get_by_test_id("pp-inbox-entry").get_by_test_id("pp-card")
            expect(card).to_be_visible(timeout=WAIT)
        else:
            card = card_in(nb, cell, "tool-approval")
        card.get_by_test_id("pp-respond").click()
        card.get_by_test_id("pp-respond-text").fill(words)
        card.get_by_test_id("pp-respond-send").click()
        if where == "inbox":
            answered = nb.output(cell).get_by_test_id("pp-triage-answered")
            expect(answered).to_contain_text("the run completed", timeout=WAIT)
        else:
            status_in(nb, cell, "completed")
            line = nb.output(cell).get_by_test_id("pp-decision").last
            expect(line).to_contain_text(f"Responded: {words}")
        nb.screenshot(f"respond-{cell}")

    return click


LOADED_08 = (
    'done = agent.load(paid.run_id, store)\nprint("KERNEL", done.status, "|", done.prompt.output)'
)
YOURS = 'print("KERNEL", yours.status, "|", yours.prompt.output)'


@pytest.mark.parametrize(
    ("name", "cell", "where", "check"),
    [
        ("02-approvals", 25, "", YOURS),
        ("08-durable-runs", 10, "inbox", LOADED_08),
        ("09-remote-agents", YOUR_TURN, "", YOURS),
    ],
    ids=["02", "08", "09"],
)
def test_respond_on_a_notebook_card_reaches_its_model_and_the_run_completes(
    open_saved: OpenSaved, name: str, cell: int, where: str, check: str
) -> None:
    words = "Only refund half, and tell them why."
    nb = open_real(open_saved, name, check)
    walk(nb, {cell: respond_in(cell, words, where)})
    kernel_says(nb, "KERNEL completed |")
    kernel_says(nb, "Only refund half")


# -- 10 --------------------------------------------------------------------------------


def test_temporal_batch_approved_in_the_inbox(open_saved: OpenSaved) -> None:
    """The batch Temporal schedules waits in the inbox; its rows approved there go to
    their workflows, and the cell after it finds every run completed."""

    def approve_all(nb: Any) -> None:
        view = nb.output(9)
        rows = view.get_by_test_id("pp-triage-row")
        expect(rows).to_have_count(3, timeout=WAIT)
        expect(rows.first).to_contain_text("refund")
        view.scroll_into_view_if_needed()
        nb.screenshot("nb10-inbox")
        view.get_by_test_id("pp-triage-select-page").click()
        view.get_by_test_id("pp-bulk-approve").click()
        expect(view.get_by_test_id("pp-bulk-confirm-text")).to_contain_text("Approve 3 runs")
        view.get_by_test_id("pp-bulk-confirm-yes").click()
        expect(rows).to_have_count(0, timeout=WAIT)
        expect(view.get_by_test_id("pp-bulk-progress")).to_contain_text("Approved 3 of 3")
        nb.screenshot("nb10-inbox-cleared")

    nb = open_real(
        open_saved,
        "10-temporal",
        'print("KERNEL", sorted(store.summary(r.id).status for r in batch))',
    )
    walk(nb, {9: approve_all})

    done = nb.output(10).last
    expect(done).to_contain_text("completed - Done: refunded 35.00 on order 42.")
    expect(done).to_contain_text("completed - Done: refunded 80.00 on order 19.")
    kernel_says(nb, f"KERNEL {['completed'] * 3}")
    nb.screenshot("nb10-end")
