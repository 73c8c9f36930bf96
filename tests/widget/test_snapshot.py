"""The static `text/html` a run's display carries for viewers without a live kernel: it
shows what happened and what waits, and nothing in it can run."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from pydantic import BaseModel
from tests.helpers import paused_delete

from pausepoint import (
    Action,
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    ModelResponse,
    ScriptedModel,
    action,
    call,
)
from pausepoint.widget._bundle import MISSING_BUNDLE_MESSAGE, front_end
from pausepoint.widget._snapshot import MAX_ITEMS, SET_ASIDE_NOTE, snapshot_html

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(2)</script>"
PAYLOAD = f"{IMG} and {SCRIPT}"


class Tags(HTMLParser):
    """Every start tag and attribute of a document, as a browser's parser sees them."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += attrs

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def assert_inert(html: str) -> Tags:
    parsed = Tags(html)
    allowed = {"div", "span", "p", "strong", "code", "pre", "ul", "li"}
    assert set(parsed.tags) <= allowed, set(parsed.tags) - allowed
    names = {name for name, _ in parsed.attributes}
    assert names <= {"class", "style", "title"}, names
    for name, value in parsed.attributes:
        if name == "style":
            assert value is not None
            assert "url(" not in value
            assert "expression" not in value
            # Colours and fonts come from JupyterLab's theme, with plain fallbacks.
            for var in re.findall(r"var\(([^,)]*)", value):
                assert var.startswith("--jp-"), value
    return parsed


class Card(BaseModel):
    note: str


def evil_action() -> Action:
    @action(needs_approval=True)
    def wipe(target: str) -> str:
        """Wipe a target."""
        return f"wiped {target}"

    return wipe


async def test_html_in_model_text_args_and_interrupts_is_escaped() -> None:
    @action
    async def ask(ctx: ActionContext) -> str:
        """Ask something."""
        if ctx.resumption is None:
            raise ActionInterrupt(f"Question {PAYLOAD}", {"html": PAYLOAD}, response_schema=Card)
        return f"answered {PAYLOAD}"

    model = ScriptedModel(
        [
            ModelResponse(f"Thinking {PAYLOAD}", [call("wipe", target=PAYLOAD)]),
            call("ask"),
            f"Done {PAYLOAD}",
        ]
    )
    agent = Agent(model=model, actions=[evil_action(), ask])
    run = agent.new_run(f"Hello {PAYLOAD}")
    await run.run()
    await run.resume(True)  # the wipe runs; the model then calls ask, which asks

    html = snapshot_html(run)

    parsed = assert_inert(html)
    text = "".join(parsed.text)
    assert f"Hello {PAYLOAD}" in text  # shown as the text the user typed
    assert f"Thinking {PAYLOAD}" in text
    assert f"Question {PAYLOAD}" in text
    assert "wiped" in text
    assert "&lt;img" in html
    assert "<img" not in html
    assert "<script" not in html
    assert "onerror=" not in html.replace("onerror=alert(1)&gt;", "")


async def test_snapshot_shows_tool_calls_with_arguments_results_and_answers(
    delete_record: Action,
) -> None:
    run = await paused_delete(delete_record, reply="All gone.")
    await run.resume({"approved": True})

    text = "".join(assert_inert(snapshot_html(run)).text)

    assert "Completed" in text
    assert "delete_record" in text
    assert "succeeded" in text
    assert '"id": 7' in text  # the arguments
    assert '"deleted 7"' in text  # the result
    assert "Approve deleting the record?" in text
    assert "Answered: approved: true" in text  # a generic interrupt's answer
    assert "All gone." in text
    assert "Waiting for" not in text
    assert "(read-only here)" not in text


async def test_a_rejection_and_its_reason_are_shown() -> None:
    run = Agent(
        model=ScriptedModel([call("wipe", target="db"), "Fine, I will not."]),
        actions=[evil_action()],
    ).new_run("wipe the db")
    await run.run()
    await run.reject("Not the production database")

    text = "".join(assert_inert(snapshot_html(run)).text)

    assert "Approve running wipe? → Declined: Not the production database" in text
    assert "wipe declined" in text  # the call's status, in a person's words
    assert "tool-approval" not in text  # no kind names for people
    assert "Fine, I will not." in text


async def test_a_turn_set_aside_by_retry_is_shown_and_says_so() -> None:
    run = Agent(model=ScriptedModel(["A first draft.", "A better draft."])).new_run("Write")
    await run.run()
    await run.retry()

    text = "".join(assert_inert(snapshot_html(run)).text)

    assert text.index("A first draft.") < text.index(SET_ASIDE_NOTE) < text.index("A better")
    assert text.count(SET_ASIDE_NOTE) == 1


async def test_pending_interrupts_are_read_only_and_say_how_to_answer_from_code() -> None:
    run = Agent(
        model=ScriptedModel([[call("wipe", target="a"), call("wipe", target="b")], "ok"]),
        actions=[evil_action()],
    ).new_run("wipe both")
    await run.run()
    first, second = run.pending

    html = snapshot_html(run)

    text = "".join(assert_inert(html).text)
    assert "Waiting for an answer" in text  # the view's words, not a count of interrupts
    assert "Waiting for 2 answers" in text
    assert "interrupt" not in text.replace("interrupt=", "")
    assert text.count("(read-only here)") == 2
    for pending in (first, second):
        assert pending.interrupt.message in text
        assert f'await run.resume(True, interrupt="{pending.interrupt.id}")' in text
    assert "<button" not in html
    assert "<input" not in html
    assert "<form" not in html


async def test_a_waiting_run_is_described_in_words_for_people(delete_record: Action) -> None:
    question = await paused_delete(delete_record)
    approval = Agent(model=ScriptedModel([call("wipe", target="a"), "ok"]), actions=[evil_action()])
    waiting = approval.new_run("wipe a")
    await waiting.run()

    asked = snapshot_html(question)
    text = "".join(assert_inert(asked).text)
    assert "A question for you" in text
    assert "Waiting for your answer" in text
    assert "Input needed" not in text
    assert question.id not in text  # the run id is a tooltip, not the headline
    assert f'title="Run {question.id}"' in asked
    approve = "".join(assert_inert(snapshot_html(waiting)).text)
    assert "Approval needed" in approve
    assert "toolName" not in approve  # the data only repeated the call shown above it
    assert '"target": "a"' in approve


async def test_a_long_transcript_shows_its_end_and_says_how_much_is_hidden() -> None:
    agent = Agent(model=ScriptedModel(["reply"] * 60))
    run = agent.new_run("message 0")
    await run.run()
    for i in range(1, 30):
        await run.run(f"message {i}")
    assert len(run.prompt.items) == 60

    text = "".join(assert_inert(snapshot_html(run)).text)

    assert f"{60 - MAX_ITEMS} earlier items are not shown" in text
    assert "message 29" in text
    assert "message 0" not in text
    assert text.count("reply") == MAX_ITEMS // 2


async def test_very_long_texts_are_cut() -> None:
    run = Agent(model=ScriptedModel(["x" * 50_000])).new_run("long")
    await run.run()

    html = snapshot_html(run)

    assert len(html) < 10_000
    assert "more characters)" in html


async def test_the_display_bundle_has_the_view_the_snapshot_and_plain_text(
    delete_record: Action,
) -> None:
    run = await paused_delete(delete_record)

    data, _ = run._repr_mimebundle_()

    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == run.view.model_id
    assert "Approve deleting the record?" in data["text/html"]
    assert data["text/plain"].startswith(f"<AgentRun {run.id} interrupted>")
    assert "waiting on" in data["text/plain"]


def test_without_a_bundle_the_view_says_what_to_do(tmp_path: Path) -> None:
    script, css = front_end(tmp_path)  # a static folder without the built front end

    assert isinstance(script, str)
    assert css == ""
    assert "release wheel or sdist" in MISSING_BUNDLE_MESSAGE
    assert "node >= 18 with npm" in MISSING_BUNDLE_MESSAGE
    assert "`make js`" in MISSING_BUNDLE_MESSAGE
    assert "restart the kernel" in MISSING_BUNDLE_MESSAGE
    # The message reaches the page as text, through a JSON string literal.
    assert "textContent = " in script
    assert "innerHTML" not in script
    assert "Reinstall pausepoint from a release wheel or sdist" in script


def test_with_a_bundle_the_view_loads_it(tmp_path: Path) -> None:
    (tmp_path / "widget.js").write_text("export default {}")
    (tmp_path / "widget.css").write_text(".pp-root {}")

    assert front_end(tmp_path) == (tmp_path / "widget.js", tmp_path / "widget.css")


def test_snapshot_of_a_fresh_run_is_idle() -> None:
    run = AgentRun(Agent(model=ScriptedModel(["hi"])), "hello")

    text = "".join(assert_inert(snapshot_html(run)).text)

    assert "Not started" in text
    assert "hello" in text


async def test_approvals_read_as_approved_with_any_edited_arguments() -> None:
    run = Agent(
        model=ScriptedModel([call("wipe", target="prod"), "ok"]),
        actions=[evil_action()],
    ).new_run("wipe prod")
    await run.run()
    await run.resume({"approved": True, "editedArgs": {"target": "staging"}})

    text = "".join(assert_inert(snapshot_html(run)).text)

    assert 'Approve running wipe? → Approved with changes: target "prod" → "staging"' in text
    assert '"target": "staging"' in text  # the arguments it ran with
    assert '"wiped staging"' in text
