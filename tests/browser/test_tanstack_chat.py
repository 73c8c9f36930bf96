"""The example web page, `examples/tanstack-chat/`, built on TanStack AI's released client,
answers a pausepoint agent's pauses in Chromium: an approval approved or declined, a
question answered through a form (a refusal shown on its card first), and a pause of
another producer shown read-only beside one of ours. Each scenario runs against a
stateless server and one with a SQLite store, and checks on the server's side what ran.

The page is built once, from the example's lock file, into a cache folder named after
its sources (npm ci, then its esbuild bundle), never into the repository."""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.agui.foreign_pause import with_foreign_pause
from tests.agui.served_agent import FINAL_TEXT, build, executions
from tests.agui.serving import Served
from tests.browser.helpers import ARTIFACTS

from pausepoint.store import SQLiteStore

pytestmark = pytest.mark.browser

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tanstack-chat"
SOURCES = ("package.json", "package-lock.json", "index.html", "style.css", "src/main.js")
NPM_TIMEOUT_SECONDS = 600
WAIT_MS = 30_000


def _run(command: list[str], cwd: Path) -> None:
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=NPM_TIMEOUT_SECONDS, check=False
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stderr[-2000:]}"


@pytest.fixture(scope="module")
def dist() -> Path:
    """The example page, built from its lock file into a cache folder (once per sources)."""
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI") == "true":
            pytest.fail("The example page needs npm to build, and CI=true forbids skipping.")
        pytest.skip("npm is not installed")
    digest = hashlib.sha256(b"".join((EXAMPLE / name).read_bytes() for name in SOURCES))
    root = Path(os.environ.get("PAUSEPOINT_NODE_CACHE", Path.home() / ".cache" / "pausepoint-node"))
    target = root / f"tanstack-chat-{digest.hexdigest()[:16]}"
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".tanstack-chat.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / "dist" / ".built").exists():
            for name in SOURCES:
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(EXAMPLE / name, target / name)
            _run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], target)
            # esbuild's binary comes from its platform package; --ignore-scripts skips its check.
            _run([npm, "run", "build"], target)
            (target / "dist" / ".built").touch()
    return target / "dist"


def _page_app(agent: Any, store: SQLiteStore | None, dist: Path) -> Any:
    spec = importlib.util.spec_from_file_location("tanstack_chat_serve", EXAMPLE / "serve.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.page_app(agent, store, dist)


@pytest.fixture(params=["stateless", "store"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Chat:
    """The page in a browser tab, served with the tests' agent; `count` records what ran."""

    def __init__(self, page: Any, count: Path, name: str) -> None:
        self.page, self.count, self.name = page, count, name

    def card(self, kind: str) -> Any:
        return self.page.locator(f'#pauses .card[data-kind="{kind}"]')

    def ask(self, text: str) -> None:
        self.page.fill("#message", text)
        self.page.click("#compose button")

    def shot(self, label: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"tanstack-chat-{self.name}-{label}.png"
        self.page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")

    @property
    def ran(self) -> list[str]:
        return executions(self.count)


@pytest.fixture
def open_chat(
    browser: Any, dist: Path, tmp_path: Path, mode: str, request: pytest.FixtureRequest
) -> Iterator[Any]:
    contexts: list[Any] = []
    stores: list[SQLiteStore] = []

    def open_(foreign: bool = False) -> Chat:
        count = tmp_path / "executions.txt"
        store = SQLiteStore(tmp_path / "runs.db") if mode == "store" else None
        if store is not None:
            stores.append(store)
        served = _page_app(build(count), store, dist)
        server = Served(with_foreign_pause(served) if foreign else served).__enter__()
        request.addfinalizer(lambda: server.__exit__(None, None, None))
        context = browser.new_context(viewport={"width": 900, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(f"{server.url}/?thread=chat-{mode}")
        page.wait_for_selector("body[data-ready=true]")
        return Chat(page, count, f"{request.node.originalname}-{mode}")

    yield open_
    for context in contexts:
        context.close()
    for store in stores:
        store.close()


def test_approving_the_refund_runs_it_once_and_answering_the_question_finishes(
    open_chat: Any,
) -> None:
    from playwright.sync_api import expect

    chat = open_chat()
    chat.ask("Refund order 42")
    approval = chat.card("tool-approval")
    expect(approval).to_contain_text("refund")
    expect(approval).to_contain_text('"amount":30')
    chat.shot("approval")
    approval.get_by_role("button", name="Approve").click()

    question = chat.card("generic")
    expect(question).to_contain_text("How fast should order 42 ship?")
    assert chat.ran == ["refund"]
    question.locator("select[name=speed]").select_option("fast")
    question.get_by_role("button", name="Send").click()

    expect(chat.page.locator("#thread")).to_contain_text(FINAL_TEXT)
    expect(chat.page.locator("#pauses .card")).to_have_count(0)
    chat.shot("finished")
    assert chat.ran == ["refund", "ship fast"]


def test_declining_the_refund_never_runs_it_and_the_agent_goes_on(open_chat: Any) -> None:
    from playwright.sync_api import expect

    chat = open_chat()
    chat.ask("Refund order 42")
    chat.card("tool-approval").get_by_role("button", name="Decline").click()

    expect(chat.card("generic")).to_contain_text("How fast should order 42 ship?")
    expect(chat.page.locator("#thread")).to_contain_text("a person declined this call")
    chat.shot("declined")
    assert chat.ran == []


def test_an_answer_the_server_refuses_shows_on_its_card_and_a_good_one_finishes(
    open_chat: Any,
) -> None:
    from playwright.sync_api import expect

    chat = open_chat()
    chat.ask("Refund order 42")
    chat.card("tool-approval").get_by_role("button", name="Approve").click()
    question = chat.card("generic")
    expect(question).to_contain_text("How fast should order 42 ship?")

    # The form offers only the schema's choices; a value off the schema is sent through
    # the page's client, as a client that skips the form would send it.
    chat.page.evaluate(
        "() => window.chat.getInterrupts().find((i) => i.kind === 'generic')"
        ".resolveInterrupt({speed: 'warp'})"
    )
    expect(question.get_by_role("alert")).to_contain_text("warp")
    chat.shot("refused")
    assert chat.ran == ["refund"]

    question.locator("select[name=speed]").select_option("slow")
    question.get_by_role("button", name="Send").click()
    expect(chat.page.locator("#thread")).to_contain_text(FINAL_TEXT)
    assert chat.ran == ["refund", "ship slow"]


def test_another_producers_pause_is_shown_read_only_beside_ours_which_still_works(
    open_chat: Any,
) -> None:
    from playwright.sync_api import expect

    chat = open_chat(foreign=True)
    chat.ask("Refund order 42")
    foreign = chat.card("unbound")
    expect(foreign).to_contain_text("Paused elsewhere: Waiting on the finance workflow")
    expect(foreign.get_by_role("button")).to_have_count(0)
    chat.shot("unbound")
    chat.card("tool-approval").get_by_role("button", name="Approve").click()

    expect(chat.card("generic")).to_contain_text("How fast should order 42 ship?")
    assert chat.ran == ["refund"]
