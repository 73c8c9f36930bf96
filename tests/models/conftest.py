"""Fixtures: a live chat-completions server and models pointed at it.

With ``--import-mode=importlib`` no test folder is on ``sys.path``; this one is added so
the tests import the server helpers (``chat_server``) by name.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chat_server import ChatServer

from pausepoint.models.openai import OpenAIChatModel


@pytest.fixture(autouse=True)
def _clean_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    chat = ChatServer().start()
    yield chat
    chat.stop()


@pytest.fixture
def make_model(server: ChatServer) -> Callable[..., OpenAIChatModel]:
    def make(**options: Any) -> OpenAIChatModel:
        options.setdefault("base_url", server.url)
        options.setdefault("api_key", "sk-test")
        options.setdefault("retry_base_delay", 0.001)
        return OpenAIChatModel("test-model", **options)

    return make
