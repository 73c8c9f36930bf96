"""A comm that records what the kernel would send to the front end, for kernel-less tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import comm
import pytest
from comm.base_comm import BaseComm

if TYPE_CHECKING:
    from pausepoint import AgentRun, Inbox
    from pausepoint.agui import RemoteRun


class RecordingComm(BaseComm):
    """Keeps every message instead of sending it; `browser_*` act as the front end would."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        # Round-trip through JSON, as the wire would: later mutation cannot alter the record.
        with self._lock:
            self.messages.append((msg_type, json.loads(json.dumps(data or {}))))

    # what the kernel sent

    def custom(self, type_: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            sent = [d["content"] for t, d in self.messages if d.get("method") == "custom"]
        return [c for c in sent if type_ is None or c.get("type") == type_]

    def updates(self) -> list[dict[str, Any]]:
        with self._lock:
            return [d["state"] for t, d in self.messages if d.get("method") == "update"]

    def opened_state(self) -> dict[str, Any]:
        with self._lock:
            return next(d["state"] for t, d in self.messages if t == "comm_open")

    def bytes_sent(self) -> int:
        with self._lock:
            return sum(len(json.dumps(d)) for _, d in self.messages)

    # what the front end sends

    def browser_send(self, content: dict[str, Any]) -> None:
        self.handle_msg(
            {
                "content": {
                    "comm_id": self.comm_id,
                    "data": {"method": "custom", "content": content},
                },
                "buffers": [],
            }
        )


@pytest.fixture
def comms(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[RecordingComm]]:
    """Every comm a widget opens during the test, recording."""
    made: list[RecordingComm] = []

    def create(*args: Any, **kwargs: Any) -> RecordingComm:
        kwargs.pop("comm_id", None)
        c = RecordingComm(*args, **kwargs)
        made.append(c)
        return c

    monkeypatch.setattr(comm, "create_comm", create)
    return made


def recording_of(run: AgentRun | RemoteRun) -> RecordingComm:
    """The comm of the run's view (opening the view if needed)."""
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    return comm


def comm_of(box: Inbox) -> RecordingComm:
    """The comm of an inbox."""
    assert isinstance(box.comm, RecordingComm)
    return box.comm


async def response_to(comm: RecordingComm, request: dict[str, Any]) -> dict[str, Any]:
    """Send `request` as the front end would and wait for the one reply to it."""
    from tests.helpers import until

    comm.browser_send(request)
    found: dict[str, Any] = await until(
        lambda: next(
            (r for r in comm.custom("response") if r["requestId"] == request["requestId"]), None
        )
    )
    return found
