"""Every notebook in notebooks/ runs top to bottom, offline and unattended, and teaches
what it says: each is executed in its own kernel and its outputs are checked."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat import NotebookNode
from tests.notebooks.fake_openai import REPLY_PREFIX, fake_openai_server

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
ALL = sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))
MODEL_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL")
SKIP_MESSAGE = "Skipped: no model endpoint."

Execute = Callable[[str], NotebookNode]


def execute(name: str, tmp: Path, env: dict[str, str] | None = None) -> NotebookNode:
    """Run a notebook in a fresh kernel; errors stay in the outputs for the tests to report.

    The kernel inherits this environment: no model endpoint unless `env` sets one, and
    TMPDIR pointing into pytest's temporary directory (notebook 04 writes files there).
    """
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=120,
        allow_errors=True,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    with pytest.MonkeyPatch.context() as patch:
        for key in MODEL_ENV:
            patch.delenv(key, raising=False)
        patch.setenv("TMPDIR", str(tmp))
        for key, value in (env or {}).items():
            patch.setenv(key, value)
        client.execute()
    return nb


@pytest.fixture(scope="session")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Execute:
    """Each notebook is executed once per session, however many tests look at it."""
    cache: dict[str, NotebookNode] = {}

    def get(name: str) -> NotebookNode:
        if name not in cache:
            cache[name] = execute(name, tmp_path_factory.mktemp(name.split("-")[0]))
        return cache[name]

    return get


def text(cell: NotebookNode) -> str:
    """What a code cell printed, plus the plain-text form of its results."""
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.data.get("text/plain", ""))
    return "".join(parts)


def cell_with(nb: NotebookNode, snippet: str) -> NotebookNode:
    """The one code cell whose source contains `snippet`."""
    found = [c for c in nb.cells if c.cell_type == "code" and snippet in c.source]
    assert len(found) == 1, f"expected one code cell containing {snippet!r}, got {len(found)}"
    return found[0]


def errors(nb: NotebookNode) -> list[str]:
    return [
        f"cell {index} raised {output.ename}: {output.evalue}\n--- source ---\n{cell.source}"
        for index, cell in enumerate(nb.cells)
        for output in cell.get("outputs", [])
        if output.output_type == "error"
    ]


# -- every notebook --------------------------------------------------------------------


def test_there_are_notebooks() -> None:
    assert {"01-quickstart.ipynb", "02-approvals.ipynb", "03-forms.ipynb"} <= set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_notebook_is_stored_without_outputs(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{name}: saved outputs in\n{cell.source}"
            assert cell.execution_count is None, f"{name}: saved execution count"


@pytest.mark.parametrize("name", ALL)
def test_notebook_runs_top_to_bottom(name: str, executed: Execute) -> None:
    problems = errors(executed(name))
    assert not problems, "\n\n".join(problems)


# -- what each one shows ---------------------------------------------------------------


def test_quickstart_answers_its_own_run_from_code(executed: Execute) -> None:
    nb = executed("01-quickstart.ipynb")
    by_code = text(cell_with(nb, "by_code = agent.new_run("))
    assert "interrupted - Approve running refund_order?" in by_code
    assert "completed - Done: refund_order returned refunded 35.00 for order 42." in by_code
    assert "completed - Done: look_up_order returned" in text(cell_with(nb, "lookup ="))
    answered = text(cell_with(nb, "result = await mine.wait()"))
    assert "Not answered in the view: Approve running refund_order? - approving from code." in (
        answered
    )
    assert "completed\nDone: refund_order returned refunded 12.50" in answered


def test_quickstart_leaves_the_readers_card_waiting(executed: Execute) -> None:
    """Run top to bottom, nothing answers the card the reader is invited to click."""
    nb = executed("01-quickstart.ipynb")
    transcript = text(cell_with(nb, "for item in run.prompt.items:"))
    assert transcript.startswith("Interrupted(")
    assert "refund_order({'order_id': 42}) -> interrupted: not run yet" in transcript
    assert "asked 'Approve running refund_order?': waiting for your answer" in transcript


def test_quickstart_saves_the_final_view_state(executed: Execute) -> None:
    nb = executed("01-quickstart.ipynb")
    state = nb.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    views = [model["state"] for model in state.values() if "run_id" in model["state"]]
    assert len(views) == 2  # the reader's run and "try your own request"
    waiting, mine = sorted(views, key=lambda view: view["status"] != "interrupted")
    assert waiting["status"] == "interrupted"
    assert [p["message"] for p in waiting["pending"]] == ["Approve running refund_order?"]
    assert mine["status"] == "completed"
    assert mine["pending"] == []
    assert mine["items"][-1]["text"] == "Done: refund_order returned refunded 12.50 for order 7."


def test_approvals(executed: Execute) -> None:
    nb = executed("02-approvals.ipynb")
    assert "completed - Done: refunded 35.00 for order 42." in text(
        cell_with(nb, "await run.resume(True)  # the Approve button")
    )
    edited = text(cell_with(nb, '"editedArgs": {"order_id": 42, "amount": 20.0}'))
    assert "Done: refunded 20.00 for order 42." in edited
    assert "model asked for: {'order_id': 42, 'amount': 35.0}" in edited
    rejected = text(cell_with(nb, "the customer wants store credit instead"))
    assert "Order 7 was not refunded: Order 7 was a gift" in rejected
    invalid = text(cell_with(nb, "bad_answers = ["))
    assert "$.editedArgs.amount: Input should be greater than 0" in invalid
    assert "$.editedArgs.order_id: Field required" in invalid
    assert "\n$: " in invalid
    assert "state: interrupted | recorded answer: None" in invalid
    several = text(cell_with(nb, "for p in run.pending:"))
    assert "2 interrupts are pending" in several
    assert text(cell_with(nb, "interrupt=first.id)\nprint")).startswith("interrupted")
    last = text(cell_with(nb, "interrupt=second.id"))
    assert "Done: refunded 35.00 for order 42." in last
    assert "Order 7 was not refunded: Order 7 is past the 30-day refund window." in last
    assert "already answered" in text(cell_with(nb, "except InterruptAlreadyResolvedError"))
    your_turn = text(cell_with(nb, "result = await yours.wait()"))
    assert your_turn == "Still waiting for you: Approve running refund? - answer the card above.\n"


SCHEMA_VALIDATION = (
    "EXPECTED BEHAVIOUR, schema validation of answers: resume() with data that breaks "
    "the interrupt's response schema must raise InvalidResolutionError with one problem "
    "per path and record nothing. The notebook's output was:\n{}"
)


def test_forms_refuse_answers_that_break_the_schema(executed: Execute) -> None:
    nb = executed("03-forms.ipynb")
    pydantic_schema = text(cell_with(nb, '"day": "Sunday"'))
    for expected in ("$.day: ", "$.minutes: ", "$.room: ", "recorded answer: None"):
        assert expected in pydantic_schema, SCHEMA_VALIDATION.format(pydantic_schema)
    json_schema = text(cell_with(nb, '"speed": "overnight"'))
    for expected in (
        "$.speed: ",
        "$.insured_value: ",
        "$.gift: Extra inputs are not permitted",
        "pending: 1",
    ):
        assert expected in json_schema, SCHEMA_VALIDATION.format(json_schema)


def test_forms_accept_valid_answers(executed: Execute) -> None:
    nb = executed("03-forms.ipynb")
    assert "completed - All set: pandas workshop on Tuesday, 90 min in Atlas." in text(
        cell_with(nb, '"day": "Tuesday"')
    )
    assert "completed - All set: parcel 31 sent express, insured for 250." in text(
        cell_with(nb, '"speed": "express"')
    )
    schema = json.loads(text(cell_with(nb, "class WorkshopSlot")))
    assert (schema["minimum"], schema["maximum"]) == (30, 180)


def test_save_and_restore(executed: Execute) -> None:
    nb = executed("04-save-and-restore.ipynb")
    assert "True interrupted" in text(cell_with(nb, "copy = AgentRun("))
    other_process = text(cell_with(nb, "done = subprocess.run("))
    assert "restored: interrupted - Close account 17 and pay out 120.50?" in other_process
    assert (
        "result: completed - Done: close_account returned account 17 closed, 120.50 paid out."
        in other_process
    )
    assert "looking up the balance" not in other_process  # the checkpoint was used
    after_restart = text(cell_with(nb, "restored = AgentRun("))
    assert after_restart.startswith("interrupted - Close account 17")
    assert "completed - Done: close_account returned account 17 closed, 120.50 paid out." in (
        text(cell_with(nb, "result = await restored.resume("))
    )


def test_save_and_restore_through_a_store_and_the_inbox(executed: Execute) -> None:
    nb = executed("04-save-and-restore.ipynb")
    stored = text(cell_with(nb, "stored_run = agent.new_run("))
    assert "interrupted - Close account 23 and pay out 0.00? - saved as version" in stored
    loaded = text(cell_with(nb, "loaded = agent.load("))
    assert loaded == "loaded: interrupted - Close account 23 and pay out 0.00?\n"
    answered = text(cell_with(nb, "again = agent.load("))
    assert "completed - Done: close_account returned account 23 closed, 0.00 paid out." in answered
    assert "stored: completed | waiting in the inbox: 0" in answered
    inbox_cell = cell_with(nb, "pausepoint.inbox(store")
    assert any(
        "application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in inbox_cell.outputs
    )


def test_real_model_skips_without_an_endpoint(executed: Execute) -> None:
    nb = executed("06-real-model.ipynb")
    needs_model = [
        c for c in nb.cells if c.cell_type == "code" and "if agent is not None" in c.source
    ]
    assert len(needs_model) == 4
    for cell in [cell_with(nb, "CONFIGURED = "), cell_with(nb, "agent = None"), *needs_model]:
        assert SKIP_MESSAGE in text(cell)


def test_real_model_against_a_local_endpoint(tmp_path: Path) -> None:
    """The configured path too, against a stub OpenAI-compatible server on localhost."""
    with fake_openai_server() as base_url:
        nb = execute(
            "06-real-model.ipynb",
            tmp_path,
            {
                "OPENAI_BASE_URL": base_url,
                "OPENAI_MODEL": "stub-model",
                "NO_PROXY": "127.0.0.1,localhost",
            },
        )
    problems = errors(nb)
    assert not problems, "\n\n".join(problems)
    assert SKIP_MESSAGE not in "".join(text(c) for c in nb.cells if c.cell_type == "code")
    # Nothing answers the reader's run: its card waits for a click.
    waiting = text(cell_with(nb, "result = await run.wait()"))
    assert waiting == "waiting for you: Approve running refund_order? {'order_id': 42}\n"
    answered = text(cell_with(nb, "result = await mine.wait()"))
    assert "approving from code: Approve running refund_order? {'order_id': 7}" in answered
    assert f"completed - {REPLY_PREFIX} refunded 12.50 for order 7" in answered


def event_names(output: str) -> list[str]:
    """The event names of notebook 05's log: its lines indented by two spaces."""
    return [line.split()[0] for line in output.splitlines() if line.startswith("  ")]


def test_under_the_hood_state_is_derived_from_the_transcript(executed: Execute) -> None:
    nb = executed("05-under-the-hood.ipynb")
    state = text(cell_with(nb, "rebuilt = AgentRun("))
    assert "before: Ready(status='ready')" in state
    assert "after:  Interrupted | status: interrupted" in state
    assert "waiting on: int_" in state
    assert "rebuilt from JSON, equal state: True" in state
    assert "rebuilt:  Ready(status='ready') - Done. refund: refunded 35.00" in state
    assert "original: interrupted" in state


def test_under_the_hood_logs_a_pause_and_resume_cycle(executed: Execute) -> None:
    nb = executed("05-under-the-hood.ipynb")
    paused = text(cell_with(nb, 'run.on("*", record)'))
    assert paused.startswith("(async handler) paged on-call: Refund 35.00 on order 42?\n")
    assert "run() returned interrupted" in paused
    assert event_names(paused) == ["run_started", "message", "interrupted", "run_finished"]
    assert "(tool-approval) 'Refund 35.00 on order 42?'" in paused
    resumed = text(cell_with(nb, "result = await run.resume(True)\n"))
    assert "resume() returned completed" in resumed
    assert event_names(resumed) == [
        "resolved",
        "run_started",
        "tool_call_started",
        "tool_call_finished",
        "text_delta",
        "message",
        "completed",
        "run_finished",
    ]
    raising = text(cell_with(nb, "def broken_dashboard"))
    assert (
        "A 'resolved' event handler raised ConnectionError: dashboard is down; the run goes on."
        in raising
    )
    assert "completed - Done. refund: Order 7 was a gift." in raising
    assert "tool_call_finished refund [rejected]" in raising


def test_under_the_hood_walks_the_interrupt_history(executed: Execute) -> None:
    nb = executed("05-under-the-hood.ipynb")
    answered = text(cell_with(nb, 'await run.resume({"code": "402913"})'))
    assert "now waiting on: Enter the 6-digit code from the banking app" in answered
    assert "completed - Done. refund: refunded 20.00 for order 42; transfer: sent 250.00" in (
        answered
    )
    history = text(cell_with(nb, "for entry in tool_call.interrupts:"))
    assert history.count("kind=tool-approval") == 1
    assert history.count("kind=generic") == 2  # the transfer paused twice
    assert "state:    {'step': 'confirm', 'account': 'ACME Ltd" in history
    assert "state:    {'step': 'code', 'account': 'ACME Ltd" in history
    edited = "{'approved': True, 'editedArgs': {'order_id': 42, 'amount': 20.0}}"
    assert f"answered: resume {edited}" in history
    assert "answered: resume {'code': '402913'} at " in history
    assert "refund: the model asked for {'order_id': 42, 'amount': 35.0}" in history
    assert "the action ran with  {'order_id': 42, 'amount': 20.0}" in history


def test_under_the_hood_shows_the_wire_form_and_classifies(executed: Execute) -> None:
    nb = executed("05-under-the-hood.ipynb")
    wire = json.loads(text(cell_with(nb, "wire = run.pending[0].to_agui()")))
    binding = wire["metadata"]["tanstack:interruptBinding"]
    assert (binding["kind"], binding["generation"], binding["interruptId"]) == (
        "tool-approval",
        0,
        wire["id"],
    )
    assert binding["responseSchemaHash"].startswith("sha256:")
    classified = text(cell_with(nb, "seen = classify(interrupt)"))
    assert "binding: tool-approval, run run_" in classified
    assert "kind=tool-approval, can_resolve=True" in classified
    assert "kind=generic, can_resolve=True" in classified
    assert "foreign        deploy-7: kind=unbound, can_resolve=False" in classified
    assert "Paused elsewhere: it has no binding." in classified
    assert "schema changed int_" in classified
    assert "does not match the hash in its binding" in classified


def test_under_the_hood_answers_in_batches(executed: Execute) -> None:
    nb = executed("05-under-the-hood.ipynb")
    refused = text(cell_with(nb, "bad_batches = {"))
    assert "[incomplete-batch] int_" in refused
    assert "This interrupt is pending but the batch has no entry for it" in refused
    assert "at $.editedArgs.amount: Input should be greater than 0" in refused
    assert "[invalid-edited-args] int_" in refused
    assert "[invalid-payload] int_" in refused
    assert "at $.confirmed: 'yes' is not of type 'boolean'" in refused
    assert "state: interrupted | pending: 2 | answers: [None, None]" in refused
    batches = text(cell_with(nb, "result = await run.continue_with(first_batch)"))
    assert "interrupted - Enter the 6-digit code from the banking app | generation 1" in batches
    assert "completed - Done. refund: The user cancelled this interrupt; transfer: sent" in (
        batches
    )
    assert batches.count("replayed: completed | unchanged: True") == 2


def test_debugging_steps_through_every_model_request_and_action(executed: Execute) -> None:
    nb = executed("07-debugging.ipynb")
    out = text(cell_with(nb, "step=True"))
    assert (
        "stops: ['paused', 'interrupted breakpoint lookup', 'paused', "
        "'interrupted breakpoint refund', 'interrupted tool-approval refund', 'paused', "
        "'completed']"
    ) in out
    assert "output: All done." in out


def test_debugging_edits_arguments_at_a_breakpoint(executed: Execute) -> None:
    nb = executed("07-debugging.ipynb")
    out = text(cell_with(nb, "breakpoints=[risky]"))
    assert "paused at: breakpoint refund {'order': 42, 'cents': 12000}" in out
    assert "then: tool-approval with {'order': 42, 'cents': 5000}" in out
    assert "refund result: refunded 5000 cents on order 42" in out


def test_debugging_forks_at_an_approval_without_asking_again(executed: Execute) -> None:
    nb = executed("07-debugging.ipynb")
    out = text(cell_with(nb, "approved.fork(at=approval)"))
    assert "approved: refund succeeded" in out
    assert "declined: refund rejected" in out
    assert "parent of the fork: True" in out
    assert "model requests for the fork: 1" in out


def test_debugging_replays_a_session_with_scripted_humans(executed: Execute) -> None:
    nb = executed("07-debugging.ipynb")
    out = text(cell_with(nb, "ReplayModel.from_prompt(saved)"))
    assert "replay status: completed" in out
    assert "same transcript: True" in out
    assert "answers given: [('refund', 'resume', True)]" in out


def test_debugging_shows_the_approved_run_with_its_declined_fork(executed: Execute) -> None:
    nb = executed("07-debugging.ipynb")
    state = nb.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    approved, finished = sorted(
        (m["state"] for m in state.values() if m["state"].get("forks")),
        key=lambda view: len(view["forks"]),
    )
    assert [fork["status"] for fork in approved["forks"]] == ["completed"]
    assert approved["items"][-1]["text"] == "All done."
    # The run both forks of "Go back to any step" came from, shown under them.
    assert [fork["name"] for fork in finished["forks"]] == [
        "edited cents at refund",
        "asked again at turn 1 with the message edited",
    ]


REMOTE = "09-remote-agents.ipynb"
TO_INSTALL = (
    'Skipping the LangGraph part: pip install "ag-ui-langgraph[fastapi]" langgraph langchain\n',
    'Skipping the Pydantic AI part: pip install "pydantic-ai-slim[ag-ui]"\n',
    "Skipping the OpenAI Agents part: pip install openai-agents\n",
)


def views(nb: NotebookNode) -> list[dict[str, Any]]:
    """The run views' saved states."""
    state = nb.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    return [model["state"] for model in state.values() if "run_id" in model["state"]]


def assistant_texts(view: dict[str, Any]) -> list[str]:
    return [item["text"] for item in view["items"] if item["type"] == "assistant"]


def stderr(nb: NotebookNode) -> list[str]:
    return [
        output.text
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if output.output_type == "stream" and output.name == "stderr"
    ]


def assert_readers_card_waits(nb: NotebookNode) -> None:
    waiting = text(cell_with(nb, "result = await yours.wait()"))
    assert waiting == "Still waiting for you: Approve running refund? - answer the card above.\n"
    (yours,) = [view for view in views(nb) if view["status"] == "interrupted"]
    assert [(p["kind"], p["message"], p["canResolve"]) for p in yours["pending"]] == [
        ("tool-approval", "Approve running refund?", True)
    ]
    assert text(cell_with(nb, "print(server)")).endswith(" running>\n")


def test_remote_agents_answers_a_served_pausepoint_agent(executed: Execute) -> None:
    nb = executed(REMOTE)
    assert not stderr(nb)
    paused = text(cell_with(nb, "server = serve(agent)"))
    assert paused == (
        "interrupted\n"
        "tool-approval  Approve running refund?\n"
        "generic        How fast should order 7 travel?\n"
    )
    answered = text(cell_with(nb, "approval, form = remote.pending"))
    assert answered == (
        "interrupted - still pending: ['How fast should order 7 travel?']\n"
        "completed - Done: refunded 35.00 for order 42. Done: order 7 sent express.\n"
    )
    wire = text(cell_with(nb, "groupby(event"))
    assert wire.startswith("RUN_STARTED\nSTEP_STARTED\n")
    assert wire.count("RUN_STARTED\n") == 2
    assert wire.count("RUN_FINISHED\n") == 2
    assert "TOOL_CALL_RESULT x2\n" in wire
    assert wire.endswith(
        "the first RUN_FINISHED: interrupt - "
        "['Approve running refund?', 'How fast should order 7 travel?']\n"
    )
    assert text(cell_with(nb, "for message in remote.messages:")) == (
        "user       Refund order 42 and ship order 7\n"
        "assistant  On it.\n"
        "tool       refunded 35.00 for order 42\n"
        "tool       order 7 sent express\n"
        "assistant  Done: refunded 35.00 for order 42. Done: order 7 sent express.\n"
    )
    sealed = text(cell_with(nb, 'sealed = remote.state["pausepoint"]'))
    assert sealed.startswith("['seal', 'transcript'] - hmac-sha256:")
    assert sealed.endswith("\n5 items in the sealed transcript\n")
    (first,) = [v for v in views(nb) if v["items"][0]["text"].startswith("Refund order 42")]
    assert first["status"] == "completed"
    assert assistant_texts(first) == [
        "On it.",
        "Done: refunded 35.00 for order 42. Done: order 7 sent express.",
    ]
    assert_readers_card_waits(nb)


def test_remote_agents_drives_langgraph_and_pydantic_ai(executed: Execute) -> None:
    frameworks = ("ag_ui_langgraph", "pydantic_ai", "agents")
    if not all(importlib.util.find_spec(name) for name in frameworks):
        if os.environ.get("CI") == "true":
            pytest.fail("CI installs the interop extra, which notebook 09 shows")
        pytest.skip("the interop extra (LangGraph, Pydantic AI, OpenAI Agents) is not installed")
    nb = executed(REMOTE)
    assert TO_INSTALL[0] not in text(cell_with(nb, "HAS_LANGGRAPH = True"))
    graph = text(cell_with(nb, "graph_run = RemoteRun("))
    assert graph.startswith(
        "interrupted - generic - Refund 30.00 on order 42?\n"
        "read from LangGraph - on the row interrupt\n"
    )
    assert text(cell_with(nb, "graph_run.resume(")) == (
        "completed - Done: refunded 25.00 on order 42.\nthe graph's state: {'refunded': 25.0}\n"
    )
    assert TO_INSTALL[1] not in text(cell_with(nb, "HAS_PYDANTIC_AI = True"))
    billing = text(cell_with(nb, "billing_run = RemoteRun("))
    assert billing.startswith('interrupted - Approve cancel_subscription({"subscription":314})?\n')
    assert text(cell_with(nb, "billing_run.resume(True)")) == (
        "completed - Done: subscription 314 cancelled.\n"
    )
    said = {view["items"][0]["text"]: assistant_texts(view) for view in views(nb)}
    # The node's question sat on a row of its own (a turn with no text), answered there.
    assert said["Please refund order 42"] == [
        "Order 42 qualifies for a refund of 30.00; I'll ask for approval first.",
        "",
        "Done: refunded 25.00 on order 42.",
    ]
    (graph_view,) = [v for v in views(nb) if v["items"][0]["text"] == "Please refund order 42"]
    rows = [
        (i["name"], i["status"], i["result"]) for i in graph_view["items"] if i["type"] == "tool"
    ]
    assert rows == [("interrupt", "succeeded", {"approved": True, "amount": 25})]
    assert said["Cancel my subscription 314"] == [
        "Cancelling subscription 314.",
        "Done: subscription 314 cancelled.",
    ]
    # langchain's human in the loop: a card per call, answered from code here.
    assert text(cell_with(nb, "accounts_run = RemoteRun(")).startswith(
        "interrupted - cards: ['send_invoice', 'close_account']\n"
    )
    refused = "User rejected the tool call for `close_account` with reason: Ada wants to keep"
    answered = text(cell_with(nb, 'by_name["close_account"]'))
    assert answered == (
        f"completed - Done. {refused} her account. invoice 42 sent to ada@example.com.\n"
        "the tools did: ['invoice 42 to ada@example.com']\n"
    )
    served = [v for v in views(nb) if not v["meta"].get("hosted")]
    (accounts,) = [v for v in served if v["items"][0]["text"].startswith("Send Ada")]
    statuses = [(i["name"], i["status"]) for i in accounts["items"] if i["type"] == "tool"]
    assert statuses == [("send_invoice", "succeeded"), ("close_account", "rejected")]


def test_remote_agents_hosts_langgraph_pydantic_ai_and_openai_agents(executed: Execute) -> None:
    """Part 5: the same LangGraph and Pydantic AI agents and an OpenAI Agents SDK agent,
    hosted in the kernel, each pause a card read from its framework's shape; answered
    from code here (the clicked test answers them on their cards)."""
    if not all(importlib.util.find_spec(name) for name in ("ag_ui_langgraph", "pydantic_ai")):
        if os.environ.get("CI") == "true":
            pytest.fail("CI installs the interop extra, which notebook 09 shows")
        pytest.skip("the interop extra is not installed")
    nb = executed(REMOTE)
    assert TO_INSTALL[2] not in text(cell_with(nb, "HAS_OPENAI_AGENTS = True"))
    assert text(cell_with(nb, "desk = host(accounts)")).startswith(
        "interrupted - cards: ['send_invoice', 'close_account']\n"
    )
    assert text(cell_with(nb, "billing_here = host(billing)")).startswith(
        "interrupted - read from Pydantic AI\n"
    )
    assert text(cell_with(nb, "helpdesk = host(support")).startswith(
        "interrupted - read from OpenAI Agents\n"
    )
    assert text(cell_with(nb, "for pending in desk.pending:")) == (
        "LangGraph: completed - the tools did: ['invoice 42 to ada@example.com']\n"
        "Pydantic AI: completed - Done: subscription 314 cancelled.\n"
        "OpenAI Agents: completed - credited: [('Ada', 5.0)]\n"
    )
    hosted = {v["meta"]["hosted"]: v for v in views(nb) if v["meta"].get("hosted")}
    assert sorted(hosted) == ["LangGraph", "OpenAI Agents", "Pydantic AI"]
    assert [v["status"] for v in hosted.values()] == ["completed"] * 3
    tools = {
        name: [(i["name"], i["status"]) for i in v["items"] if i["type"] == "tool"]
        for name, v in hosted.items()
    }
    assert tools == {
        "LangGraph": [("send_invoice", "succeeded"), ("close_account", "rejected")],
        "Pydantic AI": [("cancel_subscription", "succeeded")],
        "OpenAI Agents": [("issue_credit", "succeeded")],
    }
    assert assistant_texts(hosted["OpenAI Agents"]) == [
        "I'll credit Ada 5.00 for the late parcel.",
        "Done: credited 5.00 to Ada.",
    ]


def test_remote_agents_without_the_other_frameworks(tmp_path: Path) -> None:
    """Without LangGraph, Pydantic AI and the OpenAI Agents SDK, parts 2 to 5 say what to
    install and skip, and the rest runs as before."""
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    for module in ("ag_ui_langgraph", "pydantic_ai", "agents"):
        (hidden / f"{module}.py").write_text('raise ImportError("hidden by the test")\n')
    path = os.pathsep.join(p for p in (str(hidden), os.environ.get("PYTHONPATH")) if p)
    nb = execute(REMOTE, tmp_path, {"PYTHONPATH": path})
    problems = errors(nb)
    assert not problems, "\n\n".join(problems)
    assert not stderr(nb)
    assert text(cell_with(nb, "HAS_LANGGRAPH = True")) == TO_INSTALL[0]
    assert text(cell_with(nb, "HAS_PYDANTIC_AI = True")) == TO_INSTALL[1]
    assert text(cell_with(nb, "HAS_OPENAI_AGENTS = True")) == TO_INSTALL[2]
    skipped = [
        c
        for c in nb.cells
        if c.cell_type == "code"
        and c.source.startswith("if HAS_")
        and "print(server)" not in c.source
    ]
    assert len(skipped) == 13
    for cell in skipped:
        said = text(cell)
        assert said.startswith("Skipped: ") or said == "", cell.source
    assert "completed - Done: refunded 35.00" in text(cell_with(nb, "approval, form = "))
    assert_readers_card_waits(nb)


TEMPORAL = "10-temporal.ipynb"


def test_temporal_schedules_a_batch_answered_from_code_and_keeps_the_transcript_out(
    executed: Execute,
) -> None:
    """The notebook's own Temporal dev server runs the batch; the cell after the inbox
    answers the runs left waiting, and each completes. Its history holds no reply."""
    if importlib.util.find_spec("temporalio") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI installs the temporal extra, which notebook 10 shows")
        pytest.skip("the temporal extra is not installed")
    nb = executed(TEMPORAL)
    problems = errors(nb)
    assert not problems, "\n\n".join(problems)
    assert not stderr(nb)
    assert text(cell_with(nb, "HAS_TEMPORAL = temporal_cli() is not None")) == ""
    assert text(cell_with(nb, "DevServer.start()")).startswith("Temporal is serving at 127.0.0.1:")
    assert text(cell_with(nb, "for run in batch:\n        await runner.start(run)")) == (
        "Refund order 42: 35.00: interrupted\n"
        "Refund order 7: 12.50: interrupted\n"
        "Refund order 19: 80.00: interrupted\n"
    )
    assert text(cell_with(nb, "await runner.resume(run.id, True")) == (
        "completed - Done: refunded 35.00 on order 42.\n"
        "completed - Done: refunded 12.50 on order 7.\n"
        "completed - Done: refunded 80.00 on order 19.\n"
    )
    held = text(cell_with(nb, "fetch_history()"))
    assert held.endswith("the model's reply in the history: False\n")
    assert text(cell_with(nb, "server.stop()")) == "stopped\n"
