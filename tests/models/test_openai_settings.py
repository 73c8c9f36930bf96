"""Where OpenAIChatModel gets its settings, and that `openai` stays optional."""

from __future__ import annotations

import subprocess
import sys

import pytest
from chat_server import ChatServer, answer

from pausepoint import ModelRequest
from pausepoint.models import ModelConfigurationError, OpenAIChatModel
from pausepoint.transcript import UserMessage

HELLO = ModelRequest(None, [UserMessage(text="Hi")], [])


async def test_model_url_and_key_come_from_the_environment(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    server.add(answer("ok"))
    model = OpenAIChatModel()
    await model.request(HELLO)
    assert model.model == "env-model"
    assert server.requests[0]["model"] == "env-model"
    assert server.headers[0]["authorization"] == "Bearer sk-env"


async def test_a_local_endpoint_needs_no_key(server: ChatServer) -> None:
    server.add(answer("ok"))
    await OpenAIChatModel("llama3.2", base_url=server.url).request(HELLO)
    assert server.headers[0]["authorization"] == "Bearer not-needed"


def test_a_missing_model_name_says_how_to_give_one() -> None:
    with pytest.raises(ModelConfigurationError, match="OPENAI_MODEL"):
        OpenAIChatModel(api_key="sk")


def test_a_missing_key_for_the_hosted_api_says_how_to_give_one() -> None:
    with pytest.raises(ModelConfigurationError, match="OPENAI_API_KEY"):
        OpenAIChatModel("gpt-4.1-mini")


def test_a_client_and_connection_settings_are_not_mixed(server: ChatServer) -> None:
    import openai

    client = openai.AsyncOpenAI(base_url=server.url, api_key="k")
    with pytest.raises(TypeError, match="either"):
        OpenAIChatModel("m", client=client, api_key="other")


def test_importing_the_package_does_not_import_openai() -> None:
    code = (
        "import sys, pausepoint, pausepoint.models\n"
        "assert 'openai' not in sys.modules, 'openai was imported eagerly'\n"
        "from pausepoint.models import OpenAIChatModel\n"
        "assert 'openai' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
